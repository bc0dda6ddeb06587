package document

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// Lister lists the sources of harvest.FamilyDocument: one downloaded document, a data.json
// (DCAT-US 1.1 or 3.0) or one ISO 19115 or FGDC XML file (one record, read as a WAF's file is).
type Lister struct{}

// List lists job's document with h (extract.Lister).
func (Lister) List(ctx context.Context, h *extract.Handler, job *harvest.Job) error {
	return (&handler{h}).listDocument(ctx, job)
}

// handler is the extract handler of one document job, with this family's methods.
type handler struct{ *extract.Handler }

// lister is the listing of one document job (the extract.Run), with this family's methods.
type lister struct {
	*extract.Run
	h *handler
}

// listDocument lists a document source: a data.json (DCAT-US 1.1, or 3.0: list3), or one ISO
// 19115 or FGDC XML record (listXMLDocument). A DCAT-US 1.1 catalog is checked whole
// (catalog.Check) before its "dataset" array is streamed a record at a time (entry).
func (h *handler) listDocument(ctx context.Context, job *harvest.Job) error {
	if job.SchemaType.IsXML() {
		return h.listXMLDocument(ctx, job)
	}
	f, cleanup, notModifiedSince, err := h.FetchSource(ctx, job)
	var se *extract.StageError
	if errors.As(err, &se) {
		return se.Err
	}
	if err != nil {
		return h.Fail(ctx, job, harvest.TypeExtractError, err)
	}
	defer cleanup()
	if notModifiedSince != "" {
		return h.NotModified(job, notModifiedSince)
	}
	if job.SchemaType.IsDCATUS3() {
		return h.list3(ctx, job, f)
	}
	if err := catalog.Check(f); err != nil {
		if title, ok := fetch.HTMLPage(f); ok {
			return h.Fail(ctx, job, harvest.TypeParseError, fmt.Errorf("read catalog %s: the server sent an HTML page "+
				"(title %q) where a DCAT-US catalog (JSON) was expected", job.URL, title))
		}
		if why := wrongKind(sniffDocument(readHead(f)), job.SchemaType); why != nil {
			return h.Fail(ctx, job, harvest.TypeParseError, fmt.Errorf("read catalog %s: %w", job.URL, why))
		}
		return h.Fail(ctx, job, harvest.TypeParseError, fmt.Errorf("read catalog %s: %w", job.URL, err))
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	l := &lister{Run: h.NewClaimedRun(ctx, job), h: h}
	if err := catalog.WalkEntries(f, h.Config().MaxRecordBytes, l.entry); err != nil {
		var perr *catalog.ParseError
		if errors.As(err, &perr) { // the file changed under us; nothing can be trusted
			return h.Fail(ctx, job, harvest.TypeParseError, fmt.Errorf("read catalog %s: %w", job.URL, err))
		}
		return err
	}
	return l.Complete()
}

func (l *lister) entry(e catalog.Entry) error {
	if _, err := l.Next(); err != nil {
		return err
	}
	pos, raw := e.Position, e.Raw
	if e.TooLarge {
		return l.TooLarge(&e)
	}
	// JSON text is UTF-8 (RFC 8259 §8.1). encoding/json would silently turn each bad byte into
	// U+FFFD, and Postgres text refuses them: the record is an error, never rewritten.
	if off := extract.InvalidUTF8(raw); off >= 0 {
		if e.Err != nil || strings.ContainsRune(e.Identifier, utf8.RuneError) || strings.ContainsRune(e.Identifier, 0) {
			e.Identifier = "" // not a key to trust, nor to store
		} else if err := l.See(&e); err != nil {
			return err
		}
		return l.SettleError(&e, harvest.TypeInvalidEncoding, fmt.Sprintf(
			"dataset #%d%s is not valid UTF-8: byte 0x%02X at offset %d of the record (%d bytes) "+
				"is not part of a UTF-8 character; JSON text must be UTF-8 (RFC 8259 §8.1)",
			pos+1, e.Named(), raw[off], off, len(raw)))
	}
	if s := e.Structure; s != nil {
		// Which identifier a dataset repeating "identifier" has depends on the reader: none is
		// trusted, and none is kept from deletion.
		if e.Err != nil || strings.ContainsRune(e.Identifier, 0) || (s.Type == "DuplicateKey" && s.Path == "$.identifier") {
			e.Identifier = ""
		} else if err := l.See(&e); err != nil {
			return err
		}
		return l.SettleError(&e, s.Type, fmt.Sprintf("dataset #%d%s %v", pos+1, e.Named(), s))
	}
	if bad := harvest.CheckIdentifierWith(pos, e.Identifier, e.Title, e.Err, l.FirstAt); bad != nil {
		if err := l.KeepTooLong(&e, bad); err != nil {
			return err
		}
		e.Identifier = bad.Identifier // "" when the error row could not hold it; the message names it
		return l.SettleError(&e, bad.Type, bad.Message)
	}
	rec := &harvest.Record{JobID: l.Job().JobID, SourceID: l.Job().SourceID, JobType: l.Job().JobType,
		SchemaType: l.Job().SchemaType, RecordID: harvest.RecordID(l.Job().JobID, e.Identifier),
		Identifier: e.Identifier, Position: pos, Body: harvest.RawText(e.Raw), RecordType: e.RecordType,
		IsPartOf: e.IsPartOf}
	m, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
	if err != nil {
		return err
	}
	return l.PublishRecord(&e, m) // once its identifier is claimed: a repeat settles as DuplicateIdentifier
}
