package waf

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

// listWAFSource lists a source of ISO 19115 or FGDC XML files: a WAF, or a waf-collection (its
// parent record first, then the WAF, every child part of the parent). The identifier of a
// record is its file's absolute URL, as Data.gov uses. A listing that cannot be read fails the
// job, and no Listing is sent, so nothing is deleted; one file that cannot be downloaded is one
// error row, and the dataset it has is kept.
//
// A WAF's listing is read whole (every folder, listWAF) before any file is downloaded or any
// record sent, as Data.gov's traverse_waf lists before it processes: a folder that cannot be
// read fails the job with no record sent, so the failed job always counts 0 and writes nothing.
// (Records sent before the failure would settle before or after the job ended, and be written,
// from run to run.) A waf-collection's parent is downloaded before the listing, so that a parent
// that cannot be read fails the job without a crawl, and sent after it.
func (h *handler) listWAFSource(ctx context.Context, job *harvest.Job) error {
	l := &lister{Run: h.NewRun(ctx, job), h: h}
	parent, parentBody := "", []byte(nil)
	if job.SourceType == harvest.SourceWAFCollection {
		if job.CollectionParentURL == "" {
			return h.Fail(ctx, job, harvest.TypeExtractError, errors.New("a waf-collection source needs a collection parent URL"))
		}
		body, err := h.ReadXML(ctx, job.CollectionParentURL)
		if err != nil {
			return h.Fail(ctx, job, harvest.TypeExtractError, fmt.Errorf("collection parent: %w", err))
		}
		parent, parentBody = job.CollectionParentURL, body
	}
	loc, err := harvest.ParseWAFTimeZone(job.WAFTimeZone)
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, fmt.Errorf("the source's WAF time zone: %w", err))
	}
	files, err := h.listWAF(ctx, job, loc)
	var se *extract.StageError
	if errors.As(err, &se) {
		return se.Err // the store failed: retry the listing
	}
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, fmt.Errorf("list WAF %s: %w", job.URL, err))
	}
	if parent != "" {
		if err := l.XML(parent, parentBody, ""); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := l.wafFile(f, parent); err != nil {
			return err
		}
	}
	return l.Complete()
}

// listWAF reads the whole listing of the WAF at job.URL (CrawlWAF, dates in loc) and returns
// its files in crawl order: URLs and listing dates only, tens of bytes each beside the URL
// (CrawlWAF keeps every URL anyway, to report each file once), never a file's body. It records
// the job's heartbeat every extract.HeartbeatEvery files, as listing them did. Its error is the crawl's
// (ErrWAFLimit, a *fetch.Error naming the folder, ...), or a *extract.StageError when the store failed.
func (h *handler) listWAF(ctx context.Context, job *harvest.Job, loc *time.Location) ([]WAFFile, error) {
	var files []WAFFile
	err := CrawlWAF(ctx, h.Fetch(), WAFConfig{Location: loc}, job.URL, func(f WAFFile) error {
		files = append(files, f)
		if len(files)%extract.HeartbeatEvery == 0 {
			if err := h.Store().JobHeartbeat(ctx, job.JobID); err != nil {
				return &extract.StageError{Err: fmt.Errorf("job heartbeat: %w", err)}
			}
		}
		return nil
	})
	return files, err
}

// wafFile lists one file of a WAF: a record sent to COMPARE without its body when its listing
// date says it is unchanged (harvest.Record.NotDownloaded), an error row when it cannot be
// downloaded, or a record.
func (l *lister) wafFile(f WAFFile, parent string) error {
	pos, err := l.Next()
	if err != nil {
		return err
	}
	e := catalog.Entry{Position: pos, Identifier: f.URL}
	if _, dup := l.FirstAt(f.URL); dup {
		return l.SettleError(&e, harvest.TypeDuplicateIdentifier, fmt.Sprintf("file %s is listed twice in the WAF", f.URL))
	}
	latest, err := l.unchangedByDate(f)
	if err != nil {
		return err
	}
	if err := l.See(&e); err != nil {
		return err
	}
	if latest != nil { // not downloaded: COMPARE settles it
		rec := &harvest.Record{JobID: l.Job().JobID, SourceID: l.Job().SourceID, JobType: l.Job().JobType,
			SchemaType: l.Job().SchemaType, RecordID: harvest.RecordID(l.Job().JobID, f.URL), Identifier: f.URL,
			Position: pos, NotDownloaded: true}
		m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
		if err != nil {
			return err
		}
		return l.h.Publisher().Publish(harvest.SubjectCompare, m)
	}
	body, err := l.h.ReadXML(l.Context(), f.URL)
	if err != nil {
		if l.Context().Err() != nil {
			return err
		}
		if errors.Is(err, fetch.ErrHTMLPage) {
			return l.SettleError(&e, "HTMLPage", fmt.Sprintf("file %s: %v", f.URL, err))
		}
		var tle *extract.RecordTooLargeError
		if errors.As(err, &tle) {
			return l.SettleError(&e, harvest.TypeRecordTooLarge, fmt.Sprintf("file %s is %v; it was not read further", f.URL, tle))
		}
		return l.SettleError(&e, harvest.TypeFetchError, fmt.Sprintf("file %s could not be downloaded: %v", f.URL, err))
	}
	return l.SendXML(pos, f.URL, body, parent)
}

// unchangedByDate returns the stored record by which a harvest job may skip downloading a WAF
// file (COMPARE then settles it from its stored record), or nil when it must download it: its listing
// shows a date, the newest record of the file with a known outcome was checked against the
// same schema, and the file's last change, however late within its listing date's precision
// (WAFFile.Precision) and extract.ClockSkew, came before the job that made that record started.
// That job listed and downloaded the file after it started, so what it read was the file as
// of that change. Anything in doubt is downloaded (COMPARE then counts it unchanged by its
// hash). force_harvest and validate jobs download everything.
func (l *lister) unchangedByDate(f WAFFile) (*store.HarvestRecord, error) {
	if l.Job().JobType != harvest.JobHarvest || f.Modified.IsZero() {
		return nil, nil
	}
	latest, err := l.h.Store().RecordLatest(l.Context(), &store.RecordLatestParams{SourceID: l.Job().SourceID, Identifier: f.URL})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("look up stored record: %w", err)
	}
	if latest.Action == harvest.ActionDelete || (latest.SchemaType != "" && latest.SchemaType != l.Job().SchemaType) {
		return nil, nil
	}
	read, err := l.jobStart(latest.JobID)
	if err != nil {
		return nil, err
	}
	if !f.Modified.Add(f.Precision + extract.ClockSkew).Before(read) {
		return nil, nil
	}
	return latest, nil
}

// jobStart is when a job was created, no later than its EXTRACT read anything; zero (skip
// nothing) for a job that is gone. It looks each job up once.
func (l *lister) jobStart(jobID string) (time.Time, error) {
	if t, ok := l.jobStarts[jobID]; ok {
		return t, nil
	}
	var start time.Time
	job, err := l.h.Store().JobGet(l.Context(), jobID)
	switch {
	case err == nil:
		start = job.CreatedAt
	case !errors.Is(err, store.ErrNotFound):
		return time.Time{}, fmt.Errorf("look up the job of the stored record: %w", err)
	}
	if l.jobStarts == nil {
		l.jobStarts = map[string]time.Time{}
	}
	l.jobStarts[jobID] = start
	return start, nil
}
