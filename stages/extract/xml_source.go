package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// listXML lists a source of ISO 19115 or FGDC XML records: one document, a WAF, or a waf-collection (its
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
func (h *Handler) listXML(ctx context.Context, job *harvest.Job) error {
	if job.SourceType == harvest.SourceDocument {
		return h.listXMLDocument(ctx, job)
	}
	return h.listWAFSource(ctx, job)
}

// listXMLDocument lists a document source of one ISO 19115 or FGDC XML record.
func (h *Handler) listXMLDocument(ctx context.Context, job *harvest.Job) error {
	l := &Run{h: h, ctx: ctx, job: job, seen: map[string]int{}}
	f, cleanup, notModifiedSince, err := h.FetchSource(ctx, job)
	var se *StageError
	if errors.As(err, &se) {
		return se.Err
	}
	if errors.Is(err, fetch.ErrTooLarge) && h.fetch.MaxBytes > int64(h.cfg.MaxRecordBytes) {
		if err := l.XMLTooLarge(job.URL, &RecordTooLargeError{Cap: h.cfg.MaxRecordBytes, FetchCap: h.fetch.MaxBytes}); err != nil {
			return err
		}
		return l.Complete()
	}
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, err)
	}
	defer cleanup()
	if notModifiedSince != "" {
		return h.NotModified(job, notModifiedSince)
	}
	body, err := h.ReadRecord(f)
	if err == nil {
		err = fetch.NotHTML(body)
	}
	var tle *RecordTooLargeError
	if errors.As(err, &tle) {
		if err := l.XMLTooLarge(job.URL, tle); err != nil {
			return err
		}
		return l.Complete()
	}
	if err == nil {
		err = wrongKind(sniffDocument(body[:min(len(body), 4<<10)]), job.SchemaType)
	}
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, fmt.Errorf("read %s: %w", job.URL, err))
	}
	if err := l.XML(job.URL, body, ""); err != nil {
		return err
	}
	return l.Complete()
}

// listWAFSource lists a waf or waf-collection source.
func (h *Handler) listWAFSource(ctx context.Context, job *harvest.Job) error {
	l := &Run{h: h, ctx: ctx, job: job, seen: map[string]int{}}
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
	var se *StageError
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
// the job's heartbeat every HeartbeatEvery files, as listing them did. Its error is the crawl's
// (ErrWAFLimit, a *fetch.Error naming the folder, ...), or a *StageError when the store failed.
func (h *Handler) listWAF(ctx context.Context, job *harvest.Job, loc *time.Location) ([]WAFFile, error) {
	var files []WAFFile
	err := CrawlWAF(ctx, h.fetch, WAFConfig{Location: loc}, job.URL, func(f WAFFile) error {
		files = append(files, f)
		if len(files)%HeartbeatEvery == 0 {
			if err := h.store.JobHeartbeat(ctx, job.JobID); err != nil {
				return &StageError{Err: fmt.Errorf("job heartbeat: %w", err)}
			}
		}
		return nil
	})
	return files, err
}

// StageError marks an error of ours inside a crawl, apart from the crawl's own.
type StageError struct{ Err error }

func (e *StageError) Error() string { return e.Err.Error() }

// readXML returns one XML document, one record: a download for an http(s) URL, the file for a
// path. Neither is read beyond Config.MaxRecordBytes+1 bytes (after decompression): a larger
// one is a *RecordTooLargeError.
func (h *Handler) ReadXML(ctx context.Context, url string) ([]byte, error) {
	f, cleanup, err := h.OpenRecord(ctx, url)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	body, err := h.ReadRecord(f)
	if err != nil {
		return nil, err
	}
	return body, fetch.NotHTML(body)
}

// openRecord is open with the download capped at Config.MaxRecordBytes (a larger one is a
// *RecordTooLargeError; the download stops there).
func (h *Handler) OpenRecord(ctx context.Context, url string) (*os.File, func(), error) {
	fc := h.fetch
	fc.MaxBytes = min(fc.MaxBytes, int64(h.cfg.MaxRecordBytes))
	f, cleanup, err := h.OpenWith(ctx, fc, url)
	if errors.Is(err, fetch.ErrTooLarge) {
		return nil, nil, &RecordTooLargeError{Cap: h.cfg.MaxRecordBytes, FetchCap: fc.MaxBytes}
	}
	return f, cleanup, err
}

// readRecord reads one record from r, at most Config.MaxRecordBytes: more is a
// *RecordTooLargeError, and r is read no further than one byte beyond the cap.
func (h *Handler) ReadRecord(r io.Reader) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(r, int64(h.cfg.MaxRecordBytes)+1))
	if err != nil {
		return nil, err
	}
	if len(body) > h.cfg.MaxRecordBytes {
		return nil, &RecordTooLargeError{Cap: h.cfg.MaxRecordBytes, FetchCap: h.fetch.MaxBytes}
	}
	return body, nil
}

// RecordTooLargeError is an XML record over Config.MaxRecordBytes (or over the fetch size cap,
// when that is smaller), which was not read further.
type RecordTooLargeError struct {
	Cap      int   // Config.MaxRecordBytes
	FetchCap int64 // the fetch configuration's MaxBytes
}

func (e *RecordTooLargeError) Error() string {
	if e.FetchCap < int64(e.Cap) {
		return fmt.Sprintf("more than %d bytes, the download size cap (--fetch-max-bytes)", e.FetchCap)
	}
	return fmt.Sprintf("more than %d bytes, over the record size cap (--max-record-bytes)", e.Cap)
}

// xmlTooLarge settles an XML record over the cap as errored; it is recorded as seen, so the
// dataset it already has is kept.
func (l *Run) XMLTooLarge(url string, cause *RecordTooLargeError) error {
	pos, err := l.Next()
	if err != nil {
		return err
	}
	e := catalog.Entry{Position: pos, Identifier: url}
	if err := l.See(&e); err != nil {
		return err
	}
	return l.SettleError(&e, harvest.TypeRecordTooLarge, fmt.Sprintf("file %s is %v; it was not read further", url, cause))
}

// wafFile lists one file of a WAF: a record sent to COMPARE without its body when its listing
// date says it is unchanged (harvest.Record.NotDownloaded), an error row when it cannot be
// downloaded, or a record.
func (l *Run) wafFile(f WAFFile, parent string) error {
	pos, err := l.Next()
	if err != nil {
		return err
	}
	e := catalog.Entry{Position: pos, Identifier: f.URL}
	if _, dup := l.seen[f.URL]; dup {
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
		rec := &harvest.Record{JobID: l.job.JobID, SourceID: l.job.SourceID, JobType: l.job.JobType,
			SchemaType: l.job.SchemaType, RecordID: harvest.RecordID(l.job.JobID, f.URL), Identifier: f.URL,
			Position: pos, NotDownloaded: true}
		m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
		if err != nil {
			return err
		}
		return l.h.pub.Publish(harvest.SubjectCompare, m)
	}
	body, err := l.h.ReadXML(l.ctx, f.URL)
	if err != nil {
		if l.ctx.Err() != nil {
			return err
		}
		if errors.Is(err, fetch.ErrHTMLPage) {
			return l.SettleError(&e, "HTMLPage", fmt.Sprintf("file %s: %v", f.URL, err))
		}
		var tle *RecordTooLargeError
		if errors.As(err, &tle) {
			return l.SettleError(&e, harvest.TypeRecordTooLarge, fmt.Sprintf("file %s is %v; it was not read further", f.URL, tle))
		}
		return l.SettleError(&e, harvest.TypeFetchError, fmt.Sprintf("file %s could not be downloaded: %v", f.URL, err))
	}
	return l.SendXML(pos, f.URL, body, parent)
}

// WAFDateMargin is added to a WAF listing date, beyond its precision, before it is compared
// with our clock: the WAF server's clock may be off from ours by up to this much.
const WAFDateMargin = 5 * time.Minute

// unchangedByDate returns the stored record by which a harvest job may skip downloading a WAF
// file (COMPARE then settles it from its stored record), or nil when it must download it: its listing
// shows a date, the newest record of the file with a known outcome was checked against the
// same schema, and the file's last change, however late within its listing date's precision
// (WAFFile.Precision) and WAFDateMargin, came before the job that made that record started.
// That job listed and downloaded the file after it started, so what it read was the file as
// of that change. Anything in doubt is downloaded (COMPARE then counts it unchanged by its
// hash). force_harvest and validate jobs download everything.
func (l *Run) unchangedByDate(f WAFFile) (*store.HarvestRecord, error) {
	if l.job.JobType != harvest.JobHarvest || f.Modified.IsZero() {
		return nil, nil
	}
	latest, err := l.h.store.RecordLatest(l.ctx, &store.RecordLatestParams{SourceID: l.job.SourceID, Identifier: f.URL})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("look up stored record: %w", err)
	}
	if latest.Action == harvest.ActionDelete || (latest.SchemaType != "" && latest.SchemaType != l.job.SchemaType) {
		return nil, nil
	}
	read, err := l.jobStart(latest.JobID)
	if err != nil {
		return nil, err
	}
	if !f.Modified.Add(f.Precision + WAFDateMargin).Before(read) {
		return nil, nil
	}
	return latest, nil
}

// jobStart is when a job was created, no later than its EXTRACT read anything; zero (skip
// nothing) for a job that is gone. It looks each job up once.
func (l *Run) jobStart(jobID string) (time.Time, error) {
	if t, ok := l.jobStarts[jobID]; ok {
		return t, nil
	}
	var start time.Time
	job, err := l.h.store.JobGet(l.ctx, jobID)
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

// xml lists one XML record (a document source, or a collection's parent).
func (l *Run) XML(url string, body []byte, parent string) error {
	pos, err := l.Next()
	if err != nil {
		return err
	}
	if err := l.See(&catalog.Entry{Position: pos, Identifier: url}); err != nil {
		return err
	}
	return l.SendXML(pos, url, body, parent)
}

// sendXML sends one XML record, already recorded as seen, to COMPARE, UTF-16 decoded to UTF-8
// (xmlRecordUTF8). An empty file (nothing but white space, or a BOM) is an error row instead:
// there is no record to compare; so are UTF-32 and U+0000 (InvalidEncoding), which could not
// be stored.
func (l *Run) SendXML(pos int, url string, body []byte, parent string) error {
	e := catalog.Entry{Position: pos, Identifier: url}
	body, err := xmlRecordUTF8(body)
	if err != nil {
		return l.SettleError(&e, harvest.TypeInvalidEncoding, fmt.Sprintf("file %s: %v", url, err))
	}
	if len(bytes.TrimSpace(bytes.TrimPrefix(body, utf8BOM))) == 0 {
		what := "empty (0 bytes)"
		if len(body) > 0 {
			what = fmt.Sprintf("empty (%d bytes of white space)", len(body))
		}
		return l.SettleError(&e, "EmptyFile", fmt.Sprintf("file %s is %s: it holds no ISO 19115 or FGDC record", url, what))
	}
	rec := &harvest.Record{JobID: l.job.JobID, SourceID: l.job.SourceID, JobType: l.job.JobType,
		SchemaType: l.job.SchemaType, RecordID: harvest.RecordID(l.job.JobID, url), Identifier: url,
		Position: pos, XML: body, IsPartOf: parent, PublisherName: l.job.PublisherName}
	m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
	if err != nil {
		return err
	}
	return l.h.pub.Publish(harvest.SubjectCompare, m)
}
