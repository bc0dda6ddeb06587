package document

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// listXMLDocument lists a document source of one ISO 19115 or FGDC XML record.
func (h *handler) listXMLDocument(ctx context.Context, job *harvest.Job) error {
	l := &lister{Run: h.NewRun(ctx, job), h: h}
	f, cleanup, notModifiedSince, err := h.FetchSource(ctx, job)
	var se *extract.StageError
	if errors.As(err, &se) {
		return se.Err
	}
	if errors.Is(err, fetch.ErrTooLarge) && h.Fetch().MaxBytes > int64(h.Config().MaxRecordBytes) {
		if err := l.XMLTooLarge(job.URL, &extract.RecordTooLargeError{Cap: h.Config().MaxRecordBytes, FetchCap: h.Fetch().MaxBytes}); err != nil {
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
	var tle *extract.RecordTooLargeError
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
