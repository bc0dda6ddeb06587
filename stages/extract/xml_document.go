package extract

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
)

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
