package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
)

// The pieces of an XML record source that the document, WAF and CSW families share: reading
// one XML record within the record size cap, and sending it on.

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
	if len(bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\uFEFF")))) == 0 {
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
