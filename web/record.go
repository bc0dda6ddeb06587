package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/store"
)

// historyRows is how many of a record's versions the record page lists.
const historyRows = 50

type recordViewData struct {
	Record      *store.HarvestRecord
	Raw         string // pretty-printed JSON or RDF; XML as stored
	RawKind     string // JSON, XML, Turtle or text
	Transformed string // pretty-printed DCAT-US JSON, or ""
	Errors      []*store.RecordError
	History     []*store.HarvestRecord
	HistoryMore bool
	Previous    *store.HarvestRecord
	Diff        []fieldChange
	DatasetPath string // the live dataset's public page; "" when the identifier has none (deleted, held, never made)
	Source      *store.Source
}

// recordTitle names a record version by its identifier, source and time: "<identifier> —
// <source name>, 2006-01-02 15:04 UTC".
func recordTitle(src *store.Source, rec *store.HarvestRecord) string {
	return fmt.Sprintf("%s — %s, %s", rec.Identifier, src.Name, rec.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"))
}

func (s *server) recordView(w http.ResponseWriter, r *http.Request) error {
	rec, err := pathGet(r, "harvest record", s.store.RecordGet)
	if err != nil {
		return err
	}
	d := recordViewData{Record: rec}
	d.Raw, d.RawKind = prettyRaw(rec.SourceRaw, rec.SchemaType)
	if len(rec.SourceTransform) > 0 {
		d.Transformed = prettyJSON([]byte(rec.SourceTransform))
	}
	errs, _, err := s.store.RecordErrorList(r.Context(), &store.RecordErrorListParams{JobID: rec.JobID,
		PageParams: store.PageParams{Limit: recordPageErrorScan}})
	if err != nil {
		return err
	}
	for _, e := range errs { // the job's errors of this record (the store lists a job's, by identifier)
		if e.RecordID == rec.ID || e.RecordID == "" && e.Identifier == rec.Identifier {
			d.Errors = append(d.Errors, e)
		}
	}
	hist, total, err := s.store.RecordHistory(r.Context(), &store.RecordHistoryParams{SourceID: rec.SourceID,
		Identifier: rec.Identifier, PageParams: store.PageParams{Limit: historyRows}})
	if err != nil {
		return err
	}
	d.History, d.HistoryMore = hist, total > len(hist)
	for i, h := range hist { // the version before this one: the next older record with a body
		if h.ID != rec.ID {
			continue
		}
		for _, older := range hist[i+1:] {
			if older.SourceRaw != "" && older.Action != harvest.ActionDelete {
				d.Previous = older
				break
			}
		}
		break
	}
	if rec.Action == harvest.ActionUpdate && d.Previous != nil {
		d.Diff = diffRecords(d.Previous, rec)
	}
	ds, err := s.store.DatasetGet(r.Context(), &store.DatasetGetParams{SourceID: rec.SourceID, Identifier: rec.Identifier})
	switch {
	case err == nil && ds.DuplicateOf == "":
		d.DatasetPath = datasetPath(ds.Slug)
	case err != nil && !isNotFound(err):
		return err
	}
	if d.Source, err = s.store.SourceGet(r.Context(), rec.SourceID); err != nil {
		return fmt.Errorf("source of record %s: %w", rec.ID, err)
	}
	return s.render(w, r, http.StatusOK, "record.html", recordTitle(d.Source, rec), d)
}

// comparable is the body a diff compares: the DCAT-US made from a record, or its raw JSON.
func comparable(rec *store.HarvestRecord) []byte {
	if len(rec.SourceTransform) > 0 {
		return rec.SourceTransform
	}
	return []byte(rec.SourceRaw)
}

// diffRecords is the field-level difference from old to cur (see diffJSON); a body that is
// not JSON (ISO XML without a transform) is compared as one field, "body".
func diffRecords(old, cur *store.HarvestRecord) []fieldChange {
	changes, err := diffJSON(comparable(old), comparable(cur))
	if err != nil {
		if old.SourceRaw != cur.SourceRaw {
			return []fieldChange{{Path: "body", Kind: "changed", Old: old.SourceRaw, New: cur.SourceRaw}}
		}
		return nil
	}
	return changes
}

// prettyRaw formats a raw record for reading: JSON indented, RDF as Turtle (rdf.WriteTurtle);
// XML (an ISO or FGDC record) is shown byte for byte as stored, and so is anything it cannot
// read.
func prettyRaw(raw string, schema harvest.SchemaType) (string, string) {
	t := strings.TrimSpace(raw)
	switch {
	case t == "":
		return "", "text"
	case schema == harvest.SchemaDCATAP:
		if ttl, err := turtle(raw); err == nil {
			return ttl, "Turtle"
		}
	case t[0] == '{' || t[0] == '[':
		return prettyJSON([]byte(raw)), "JSON"
	case t[0] == '<':
		return raw, "XML" // as it came: re-encoding it (encoding/xml) would rewrite its namespaces
	}
	return raw, "text"
}

func prettyJSON(data []byte) string {
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return string(data)
	}
	return buf.String()
}

// turtle reads an RDF record and writes it as Turtle. A DCAT-AP record is stored as the
// N-Quads of its graph (EXTRACT's record body); anything else is read in the format its text
// looks like (RDF/XML, JSON-LD, Turtle).
func turtle(raw string) (string, error) {
	ts, err := parseTriples(raw, rdf.NQuads)
	if err != nil {
		f, ferr := rdf.FormatFor("", "", sniffRDFName(raw))
		if ferr != nil {
			return "", ferr
		}
		if ts, err = parseTriples(raw, f); err != nil {
			return "", err
		}
	}
	var buf bytes.Buffer
	if err := rdf.WriteTurtle(&buf, ts, turtlePrefixes); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// parseTriples reads raw in format f; N-Quads as a record body (rdf.ParseRecord).
func parseTriples(raw string, f rdf.Format) ([]rdf.Triple, error) {
	var ts []rdf.Triple
	add := func(t rdf.Triple) error {
		ts = append(ts, t)
		return nil
	}
	if f == rdf.NQuads {
		return ts, rdf.ParseRecord(strings.NewReader(raw), add)
	}
	err := rdf.Parse(strings.NewReader(raw), f, "", add)
	return ts, err
}

// sniffRDFName is a file name whose extension names the format raw looks like.
func sniffRDFName(raw string) string {
	t := strings.TrimSpace(raw)
	switch {
	case strings.HasPrefix(t, "<?xml") || strings.HasPrefix(t, "<rdf:RDF"):
		return "record.rdf"
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		return "record.jsonld"
	}
	return "record.ttl"
}

var turtlePrefixes = map[string]string{
	"dcat": "http://www.w3.org/ns/dcat#", "dct": "http://purl.org/dc/terms/", "foaf": "http://xmlns.com/foaf/0.1/",
	"rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
	"vcard": "http://www.w3.org/2006/vcard/ns#", "xsd": "http://www.w3.org/2001/XMLSchema#",
	"adms": "http://www.w3.org/ns/adms#", "skos": "http://www.w3.org/2004/02/skos/core#",
}

// datasetView answers the operators' query-form dataset URL, /datasets?source_id=&identifier=:
// a live dataset is at its public page now, so the answer is a 301 to /dataset/{slug}; a held
// or unknown dataset is the 404 it always was, and a missing parameter a 400.
func (s *server) datasetView(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	srcID, ident := q.Get("source_id"), q.Get("identifier")
	if srcID == "" || ident == "" {
		return errorf(http.StatusBadRequest, "a dataset is named by ?source_id= and ?identifier=")
	}
	ds, err := s.store.DatasetGet(r.Context(), &store.DatasetGetParams{SourceID: srcID, Identifier: ident})
	if isNotFound(err) {
		return notFound("no live dataset %q in harvest source %q", ident, srcID)
	}
	if err != nil {
		return err
	}
	if ds.DuplicateOf != "" { // a cross-source duplicate that lost to another source's dataset
		return notFound("dataset %q of harvest source %q is held as a cross-source duplicate: it is not live", ident, srcID)
	}
	http.Redirect(w, r, datasetPath(ds.Slug), http.StatusMovedPermanently)
	return nil
}

// datasetPath is the path of a dataset's public page, /dataset/{slug}.
func datasetPath(slug string) string { return "/dataset/" + url.PathEscape(slug) }

// recordPageErrorScan bounds the job's record errors the record page reads to find its own
// (the store lists a job's errors by identifier; one query).
const recordPageErrorScan = 1000
