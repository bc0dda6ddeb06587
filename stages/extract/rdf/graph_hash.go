package rdf

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/shacl/profiles"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

// The whole-source skip of an rdf source (FDK's first layer of change detection): a harvest
// job whose parsed graph hashes (dcatap.GraphHash) to what the source's last reusable job saved
// is "not modified", as after a 304: the same rules decide which earlier job may be reused
// (store.JobFetchLatest: the last finished harvest job completed, fetched the same URL with
// the same schema type, and no record of the source is left failed or pending), and the same
// path ends it (notModified: a Listing with NotModifiedSince, COMPARE settles every live
// dataset as unchanged). force_harvest and validate jobs never skip. The fingerprint saved and
// compared is that of the graph and of the SHACL profile its records are validated with
// (checkedGraphHash): a source whose shacl_profile changed lists every record again, and
// COMPARE sends those whose profile changed to be validated again.

// checkedGraphHash is the fingerprint the whole-source skip saves and compares: the SHA-256 of
// the graph's hash (dcatap.GraphHash) and of the job's SHACL profile (the shacl_profile
// option, resolved by profiles.Resolve), in hex.
func checkedGraphHash(job *harvest.Job, graphHash string) string {
	sum := sha256.Sum256([]byte(graphHash + "\nshacl_profile=" + profiles.Resolve(extract.Setting(job, "shacl_profile"))))
	return hex.EncodeToString(sum[:])
}

// graphNotModifiedSince returns the job whose saved graph hash equals hash when job may skip
// its source as unchanged since that job, or "". Store errors come wrapped in a *extract.StageError.
func (h *handler) graphNotModifiedSince(ctx context.Context, job *harvest.Job, hash string) (string, error) {
	if job.JobType != harvest.JobHarvest || hash == "" {
		return "", nil
	}
	hash = checkedGraphHash(job, hash)
	last, err := h.Store().JobFetchLatest(ctx, job.SourceID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", nil
	case err != nil:
		return "", &extract.StageError{Err: fmt.Errorf("look up the last fetch: %w", err)}
	case last.URL != job.URL || last.SchemaType != job.SchemaType || last.GraphHash != hash:
		return "", nil
	}
	return last.JobID, nil
}

// saveGraphHash records the hash of the graph the job parsed with what its fetch saved
// (the validators fetchSource stored, kept), and whether the job skipped its source as not
// modified. Store errors come wrapped in a *extract.StageError.
func (h *handler) saveGraphHash(ctx context.Context, job *harvest.Job, hash string, notModified bool) error {
	f, err := h.Store().JobFetchGet(ctx, job.JobID)
	if errors.Is(err, store.ErrNotFound) { // a file source saves no validators
		f, err = &store.JobFetch{JobID: job.JobID, URL: job.URL, SchemaType: job.SchemaType}, nil
	}
	if err != nil {
		return &extract.StageError{Err: fmt.Errorf("get the job's fetch: %w", err)}
	}
	if hash != "" {
		hash = checkedGraphHash(job, hash)
	}
	f.GraphHash, f.NotModified = hash, f.NotModified || notModified
	if err := h.Store().JobFetchSet(ctx, f); err != nil {
		return &extract.StageError{Err: fmt.Errorf("save the graph hash: %w", err)}
	}
	return nil
}
