package catalogsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

const (
	// releaseBatch bounds the datasets one delete makes live again per store call.
	releaseBatch = 500
	// MaxLandingPageKey is the longest landingPage kept as a key as it is, in bytes; a longer one
	// is keyed by "sha256:" and its SHA-256 (hex), so that the indexed column stays within
	// Postgres's B-tree entry limit (about 2.7 kB) whatever a record holds.
	MaxLandingPageKey = 1024
)

// keyStripes is how many locks the datasets' duplicate keys are spread over (keyLocks).
const keyStripes = 64

// keyLocks serialize, within one process, the judging of datasets that share a duplicate key:
// judge reads the live candidates and then holds or keeps, so two concurrent judges of three
// sources' datasets sharing a key could each act on what the other was about to change and
// leave two live datasets with one key (found with three sources written at once). A key's
// stripe is its FNV-1a hash modulo keyStripes; a dataset locks the stripes of its identifier,
// landingPage and downloadURL set in ascending order. Processes of a cluster do not share
// them: there the window stays, and a pair missed there stays until one of its records changes
// or is force-harvested (docs/operators-guide.md, "Sources harvested at once").
type keyLocks [keyStripes]sync.Mutex

// lock locks the stripes of ds's keys and returns their unlock.
func (l *keyLocks) lock(ds *store.Dataset) func() {
	var stripes []int
	for i, k := range []string{ds.Identifier, ds.LandingPage, ds.DownloadURLsSHA} {
		if k == "" {
			continue
		}
		h := fnv.New32a()
		_, _ = h.Write([]byte{byte(i)})
		_, _ = h.Write([]byte(k))
		stripes = append(stripes, int(h.Sum32()%keyStripes))
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, i := range stripes {
		l[i].Lock()
	}
	return func() {
		for _, i := range stripes {
			l[i].Unlock()
		}
	}
}

// DuplicateKeys returns a DCAT-US dataset's cross-source duplicate keys besides its identifier:
// its landingPage (trimmed; "" when missing or not a string; over MaxLandingPageKey bytes,
// "sha256:" and its SHA-256 in hex) and the SHA-256 (hex) of the set of
// its distribution[].downloadURL values (trimmed, empty ones dropped, sorted, repeats dropped,
// joined by newlines; "" when there is none). Order and repeats of the downloadURLs do not
// change the key.
func DuplicateKeys(dcat json.RawMessage) (landingPage, downloadURLsSHA string) {
	f := fieldsOf(dcat)
	return f.landingPage, f.downloadURLsSHA
}

// fields are what SYNC reads of a DCAT-US dataset: its title (a string; "" otherwise) and its
// cross-source duplicate keys (DuplicateKeys), from one parse of the body.
type fields struct {
	title, landingPage, downloadURLsSHA string
}

// fieldsOf parses dcat once for its fields; a body that is not a JSON object has none.
func fieldsOf(dcat json.RawMessage) fields {
	var d struct {
		Title        any `json:"title"`
		LandingPage  any `json:"landingPage"`
		Distribution any `json:"distribution"`
	}
	var f fields
	if json.Unmarshal(dcat, &d) != nil {
		return f
	}
	f.title, _ = d.Title.(string)
	if s, ok := d.LandingPage.(string); ok {
		f.landingPage = strings.TrimSpace(s)
	}
	if len(f.landingPage) > MaxLandingPageKey {
		sum := sha256.Sum256([]byte(f.landingPage))
		f.landingPage = "sha256:" + hex.EncodeToString(sum[:])
	}
	dists, _ := d.Distribution.([]any)
	var urls []string
	for _, x := range dists {
		if m, ok := x.(map[string]any); ok {
			if u, ok := m["downloadURL"].(string); ok && strings.TrimSpace(u) != "" {
				urls = append(urls, strings.TrimSpace(u))
			}
		}
	}
	if len(urls) == 0 {
		return f
	}
	slices.Sort(urls)
	sum := sha256.Sum256([]byte(strings.Join(slices.Compact(urls), "\n")))
	f.downloadURLsSHA = hex.EncodeToString(sum[:])
	return f
}

// judge applies the cross-source duplicate rule to the dataset ds that SYNC just wrote for job
// jobID, and keeps the search index in step: of ds and the datasets of other sources sharing a
// key with it, the one that outranks the others is live: its source's precedence is higher, or
// equal and its source first published a dataset with that key (store.DuplicateCandidate's
// Outranks), whichever was live before and whichever is judged first. It returns the
// CrossSourceDuplicate warning of ds's record (nil when ds has no duplicate) and whether ds is
// live.
func (h *Handler) judge(ctx context.Context, jobID string, ds *store.Dataset, later *[]*store.Dataset) (*harvest.RecordError, bool, error) {
	cands, err := h.store.DatasetDuplicateFind(ctx, &store.DatasetDuplicateFindParams{DatasetID: ds.ID,
		SourceID: ds.SourceID, Identifier: ds.Identifier, LandingPage: ds.LandingPage, DownloadURLsSHA: ds.DownloadURLsSHA})
	if err != nil {
		return nil, false, fmt.Errorf("find cross-source duplicates: %w", err)
	}
	if cands, err = h.unpairStale(ctx, jobID, ds, cands, later); err != nil {
		return nil, false, err
	}
	if len(cands) == 0 && ds.DuplicateOf == "" {
		return nil, true, nil // the usual case: one lookup
	}
	src, err := h.store.SourceGet(ctx, ds.SourceID)
	if err != nil {
		return nil, false, fmt.Errorf("read the source: %w", err)
	}
	var best *store.DuplicateCandidate
	for _, c := range cands {
		if c.Outranks && (best == nil || c.Precedence > best.Precedence) {
			best = c
		}
	}
	if best == nil {
		return h.keep(ctx, jobID, ds, src, cands)
	}
	if best.Live {
		held, err := h.store.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: best.DatasetID, HeldID: ds.ID,
			Match: best.Match, Key: best.Key, JobID: jobID})
		if err != nil {
			return nil, false, fmt.Errorf("hold the dataset: %w", err)
		}
		if !held { // the other one stopped being live meanwhile: judge again on the retry
			return nil, false, fmt.Errorf("hold the dataset: %s of source %s is no longer live", best.Slug, best.SourceID)
		}
		return heldWarning(best, src), false, h.unindex(ctx, ds.ID)
	}
	// One held against ds now outranks it (a precedence changed): it becomes the live one.
	won, err := h.store.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: best.DatasetID, JobID: jobID})
	if err != nil {
		return nil, false, fmt.Errorf("keep the dataset %s: %w", best.Slug, err)
	}
	if err := h.reindex(ctx, best.SourceID, best.Identifier); err != nil {
		return nil, false, err
	}
	live := true
	for _, c := range won {
		live = live && c.DatasetID != ds.ID
		if err := h.unindex(ctx, c.DatasetID); err != nil {
			return nil, false, err
		}
	}
	if live { // ds no longer shares a key with it: both are live
		return nil, true, nil
	}
	return heldWarning(best, src), false, nil
}

// unpairStale ends the pairs of the datasets held against ds by a key ds no longer has (its
// record changed its landingPage or downloadURL set): those are judged again at once (release:
// live and indexed, or held again by another key). It returns ds's candidates (cands, or found
// again when a pair ended).
func (h *Handler) unpairStale(ctx context.Context, jobID string, ds *store.Dataset,
	cands []*store.DuplicateCandidate, later *[]*store.Dataset,
) ([]*store.DuplicateCandidate, error) {
	if !slices.ContainsFunc(cands, func(c *store.DuplicateCandidate) bool { return !c.Live }) {
		return cands, nil
	}
	n, err := h.store.DatasetDuplicateUnpairStale(ctx, ds.ID)
	if err != nil {
		return nil, fmt.Errorf("end cross-source duplicate pairs by an old key: %w", err)
	}
	if n == 0 {
		return cands, nil
	}
	if err := h.release(ctx, jobID, later); err != nil {
		return nil, err
	}
	cands, err = h.store.DatasetDuplicateFind(ctx, &store.DatasetDuplicateFindParams{DatasetID: ds.ID,
		SourceID: ds.SourceID, Identifier: ds.Identifier, LandingPage: ds.LandingPage, DownloadURLsSHA: ds.DownloadURLsSHA})
	if err != nil {
		return nil, fmt.Errorf("find cross-source duplicates: %w", err)
	}
	return cands, nil
}

// keep makes ds the live one of its duplicates (cands: DatasetDuplicateFind's) and takes the ones
// it now holds out of the index.
func (h *Handler) keep(ctx context.Context, jobID string, ds *store.Dataset, src *store.Source,
	cands []*store.DuplicateCandidate,
) (*harvest.RecordError, bool, error) {
	held, err := h.store.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: ds.ID, JobID: jobID})
	if err != nil {
		return nil, false, fmt.Errorf("keep the dataset: %w", err)
	}
	for _, c := range held {
		if err := h.unindex(ctx, c.DatasetID); err != nil {
			return nil, false, err
		}
	}
	if len(held) == 0 { // it keeps the ones already held against it, if any
		for _, c := range cands {
			if !c.Live {
				held = append(held, c)
			}
		}
	}
	if len(held) == 0 {
		return nil, true, nil
	}
	o := held[0]
	more := ""
	if len(held) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(held)-1)
	}
	why := fmt.Sprintf("this source's precedence %d is higher", src.Precedence)
	if o.Precedence == src.Precedence {
		why = fmt.Sprintf("both sources have precedence %d and this source published it first", src.Precedence)
	}
	return &harvest.RecordError{Type: harvest.TypeCrossSourceDuplicate, Severity: harvest.SeverityWarning,
		Message: fmt.Sprintf("harvest source %q (%s) publishes the same dataset as %q (same %s %q)%s: "+
			"%s, so this dataset is the live one and that one is held",
			o.SourceName, o.SourceID, o.Slug, o.Match, o.Key, more, why)}, true, nil
}

// heldWarning is the warning of a record whose dataset is held against kept.
func heldWarning(kept *store.DuplicateCandidate, src *store.Source) *harvest.RecordError {
	why := fmt.Sprintf("that source's precedence %d is higher than this one's (%d)", kept.Precedence, src.Precedence)
	if kept.Precedence == src.Precedence {
		why = fmt.Sprintf("both sources have precedence %d and that source published it first", src.Precedence)
	}
	return &harvest.RecordError{Type: harvest.TypeCrossSourceDuplicate, Severity: harvest.SeverityWarning,
		Message: fmt.Sprintf("harvest source %q (%s) publishes the same dataset as %q (same %s %q): %s, "+
			"so this record stays harvested but its dataset is held, not live", kept.SourceName, kept.SourceID,
			kept.Slug, kept.Match, kept.Key, why)}
}

// rejudge judges the released datasets ds again, each under its key locks, and indexes those
// that are live; datasets that judging releases in turn are judged after it, the same way.
func (h *Handler) rejudge(ctx context.Context, jobID string, ds []*store.Dataset) error {
	for len(ds) > 0 {
		d := ds[0]
		ds = ds[1:]
		var later []*store.Dataset
		err := func() error {
			defer h.keys.lock(d)()
			if _, live, err := h.judge(ctx, jobID, d, &later); err != nil || !live {
				return err
			}
			return h.reindex(ctx, d.SourceID, d.Identifier)
		}()
		if err != nil {
			return err
		}
		ds = append(ds, later...)
	}
	return nil
}

// release makes live again the datasets that were held against a dataset since deleted, and
// judges each as if it had just been written (one of them may hold the others), in batches.
// Inside a judge (later not nil), which holds its own dataset's key locks, it only adds them to
// *later: the caller judges them once it has let its locks go (rejudge), so that no judge waits
// for a lock while holding another.
func (h *Handler) release(ctx context.Context, jobID string, later *[]*store.Dataset) error {
	for {
		ds, err := h.store.DatasetDuplicateRelease(ctx, releaseBatch)
		if err != nil {
			return fmt.Errorf("release held duplicates: %w", err)
		}
		if later != nil {
			*later = append(*later, ds...)
		} else if err := h.rejudge(ctx, jobID, ds); err != nil {
			return err
		}
		if len(ds) < releaseBatch {
			return nil
		}
	}
}

// ReleaseShared ends the cross-source duplicate pairs of the source sourceID (on either side)
// that were matched by a landingPage or downloadURL set no longer unique within both sources
// (store.DatasetDuplicateUnpair): records of one job reach SYNC at once, so the first of a
// source's datasets sharing a key may be held before the others are written. Each held dataset
// of those pairs is judged again (release) and, live, indexed, in batches. The job aggregator
// calls it when a job of the source ends (jobID: the FirstJobID of any pair judging makes). It
// returns the held datasets of the ended pairs, with the pair's Match and Key.
func (h *Handler) ReleaseShared(ctx context.Context, jobID, sourceID string) ([]*store.DuplicateCandidate, error) {
	var ended []*store.DuplicateCandidate
	for {
		batch, err := h.store.DatasetDuplicateUnpair(ctx, &store.DatasetDuplicateUnpairParams{SourceID: sourceID, Limit: releaseBatch})
		if err != nil {
			return ended, fmt.Errorf("end pairs by a shared key: %w", err)
		}
		ended = append(ended, batch...)
		if err := h.release(ctx, jobID, nil); err != nil {
			return ended, err
		}
		if len(batch) < releaseBatch {
			return ended, nil
		}
	}
}

// reindex writes the search document of the dataset (source, identifier) as it is now.
func (h *Handler) reindex(ctx context.Context, sourceID, identifier string) error {
	if h.index == nil {
		return nil
	}
	ds, err := h.store.DatasetGet(ctx, &store.DatasetGetParams{SourceID: sourceID, Identifier: identifier})
	if err != nil {
		return fmt.Errorf("read dataset: %w", err)
	}
	if ds.DuplicateOf != "" {
		return nil
	}
	return h.put(ctx, ds)
}

// put writes ds's search document.
func (h *Handler) put(ctx context.Context, ds *store.Dataset) error {
	if h.index == nil {
		return nil
	}
	org, err := h.orgs.Name(ctx, ds.SourceID)
	if err != nil {
		return fmt.Errorf("organization of the source: %w", err)
	}
	return indexError(h.index.Put(ctx, search.FromDataset(ds, org)))
}

// unindex removes the search document of a dataset that is not live.
func (h *Handler) unindex(ctx context.Context, datasetID string) error {
	if h.index == nil {
		return nil
	}
	return indexError(h.index.Delete(ctx, datasetID))
}
