package extract

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Conditional GET of a document source (RFC 9110 §13.1). A harvest job sends If-None-Match /
// If-Modified-Since with the validators its source's last finished job saved, when that job
// completed (store.JobFetchLatest) and fetched the same URL with the same schema type: the
// catalog then matches the document those validators name. force_harvest and validate jobs send
// none. Every job that downloads its document saves the response's validators (JobFetchSet).
//
// On 304 Not Modified nothing is listed: a Listing naming the job whose validators were sent
// tells COMPARE, which deletes nothing: each of
// the source's live datasets settles as unchanged, the expected count is their number, and the
// job completes with total = unchanged + errored: the records that job counted as errored
// (invalid, duplicate identifiers, …) are not read again but count as errored in this job too,
// which carries their error rows (marked as carried from the job that found them), so an
// on_error source is emailed again; a force_harvest reads them again. The job's fetch is
// marked NotModified for its report.

// since returns the validators the job's GET of its document sends, and the job that saved
// them ("" when none are sent).
func (h *Handler) Since(ctx context.Context, job *harvest.Job) (fetch.Validators, string, error) {
	if job.JobType != harvest.JobHarvest {
		return fetch.Validators{}, "", nil
	}
	last, err := h.store.JobFetchLatest(ctx, job.SourceID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fetch.Validators{}, "", nil
	case err != nil:
		return fetch.Validators{}, "", fmt.Errorf("look up the last fetch: %w", err)
	case last.URL != job.URL || last.SchemaType != job.SchemaType:
		return fetch.Validators{}, "", nil
	}
	return fetch.Validators{ETag: last.ETag, LastModified: last.LastModified}, last.JobID, nil
}

// fetchSource returns the job's source document: the file itself for an absolute path, else a
// (conditional) download, whose validators it saves on the job. notModifiedSince is the job
// whose validators were sent, with no file, when the server answered 304 ("" otherwise). Errors of the store come wrapped in a *StageError (retry
// the message); any other error fails the job.
func (h *Handler) FetchSource(ctx context.Context, job *harvest.Job) (f *os.File, cleanup func(), notModifiedSince string, err error) {
	if !IsHTTP(job.URL) {
		f, cleanup, err = h.Open(ctx, job.URL)
		return f, cleanup, "", err
	}
	since, sinceJob, err := h.Since(ctx, job)
	if err != nil {
		return nil, nil, "", &StageError{Err: err}
	}
	fc := h.fetch
	if job.SchemaType.IsXML() { // the document is one record
		fc.MaxBytes = min(fc.MaxBytes, int64(h.cfg.MaxRecordBytes))
	}
	doc, err := fetch.GetDocument(ctx, fc, job.URL, since)
	if err != nil {
		return nil, nil, "", err
	}
	if err := h.store.JobFetchSet(ctx, &store.JobFetch{JobID: job.JobID, URL: job.URL, SchemaType: job.SchemaType,
		ETag: doc.Validators.ETag, LastModified: doc.Validators.LastModified, NotModified: doc.NotModified}); err != nil {
		doc.Close()
		return nil, nil, "", &StageError{Err: fmt.Errorf("save the fetch: %w", err)}
	}
	if doc.NotModified {
		return nil, func() {}, sinceJob, nil
	}
	f, err = h.decodeCharset(doc, job)
	if err != nil {
		doc.Close()
		return nil, nil, "", err
	}
	return f, func() { f.Close() }, "", nil // a download has no name to remove (fetch.Get)
}

// notModified ends the listing of a job whose document the server reported unchanged since
// job since read it (or itself had a 304): nothing is listed, and the Listing tells COMPARE so
// (harvest.Listing.NotModifiedSince), which settles the job's records.
func (h *Handler) NotModified(job *harvest.Job, since string) error {
	return h.Publish(harvest.SubjectListing, &harvest.Listing{V: harvest.Version, JobID: job.JobID,
		SourceID: job.SourceID, JobType: job.JobType, NotModifiedSince: since}, job.JobID)
}

func IsHTTP(url string) bool {
	return len(url) > 7 && (url[:7] == "http://" || (len(url) > 8 && url[:8] == "https://"))
}
