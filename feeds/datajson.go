package feeds

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Pager is what the feeds read of the store (store.Store has it): the live catalog by keyset
// and the stats of a selection.
type Pager interface {
	DatasetPage(ctx context.Context, p *store.DatasetPageParams) ([]*store.LiveDataset, error)
	DatasetPageStats(ctx context.Context, p *store.DatasetPageParams) (*store.DatasetPageStats, error)
}

// The versions of DCAT-US a DataJSON feed writes.
const (
	DCATUS11 = "1.1" // a Project Open Data v1.1 catalog: every live dataset (3.0 ones mapped)
	DCATUS30 = "3.0" // a DCAT-US 3.0 catalog: the records harvested as DCAT-US 3.0, as they are
)

// The DCAT-US 1.1 catalog's own members, as the Project Open Data v1.1 schema names them.
const (
	POD11Context     = "https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld"
	POD11ConformsTo  = "https://project-open-data.cio.gov/v1.1/schema"
	POD11DescribedBy = "https://project-open-data.cio.gov/v1.1/schema/catalog.json"
)

// SkippedHeader is the HTTP trailer in which a DCAT-US 1.1 feed counts the records it left out:
// DCAT-US 3.0 records that are not datasets (data services, catalog records, dataset series) and
// 3.0 datasets that MapDCATUS3To11 cannot map. The feed also logs them (one line per feed).
const SkippedHeader = "Harvester-Skipped-Records"

// DataJSON serves the live catalog as a DCAT-US data.json (issue 35): the stored, validated
// records as harvested, paged from the store by keyset (store.DatasetPage) and written one at a
// time, so memory stays flat whatever the catalog's size. Held duplicates and deleted datasets
// are not in the store's live catalog, so never in the feed.
type DataJSON struct {
	Store   Pager
	Catalog Catalog
	// Logger gets one line per feed that left records out, and streams cut by an error.
	// Default slog.Default().
	Logger *slog.Logger

	pageSize int // rows per store page; 0 means store.MaxDatasetPage (a knob for tests)
}

// DataJSONParams selects a feed.
type DataJSONParams struct {
	Version        string // DCATUS11 or DCATUS30
	OrganizationID string // only this organization's datasets; "" for the whole catalog
	Path           string // the feed's own path (e.g. "/data.json"): the catalog's @id
}

// DataJSONStats is what Write wrote.
type DataJSONStats struct {
	Written int
	// Skipped counts the records a 1.1 feed left out; SkippedIDs names the first few (dataset
	// identifiers, with why).
	Skipped    int
	SkippedIDs []string
}

// Serve answers r with the feed p: 304 when r's validators match (ETag from the selection's
// store.DatasetPageStats, Last-Modified its latest change), else the document, gzip-compressed
// when r accepts gzip, the SkippedHeader trailer on a 1.1 feed. An error before the first byte
// is returned for the caller to answer; after it the stream is cut (http.ErrAbortHandler), as a
// truncated document must not look whole.
func (f *DataJSON) Serve(w http.ResponseWriter, r *http.Request, p DataJSONParams) error {
	ctx := r.Context()
	st, err := f.Store.DatasetPageStats(ctx, &store.DatasetPageParams{OrganizationID: p.OrganizationID})
	if err != nil {
		return fmt.Errorf("data.json stats: %w", err)
	}
	gz := acceptsGzip(r)
	enc := "identity"
	if gz {
		enc = "gzip"
	}
	c := f.Catalog.WithDefaults()
	base := c.Base(r)
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	etag := StatsETag("data.json "+p.Version+" "+enc, strings.Join([]string{p.OrganizationID, base, p.Path,
		c.Title, c.Description, c.Publisher, c.License}, "\x00"), st)
	if NotModified(w, r, etag, st.LastModified) {
		return nil
	}
	h.Set("Content-Type", "application/json; charset=utf-8")
	if p.Version == DCATUS11 {
		h.Set("Trailer", SkippedHeader)
	}
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	if r.Method == http.MethodHead {
		return nil
	}
	var out io.Writer = w
	var zw *gzip.Writer
	if gz {
		zw, _ = gzip.NewWriterLevel(w, gzip.BestSpeed)
		out = zw
	}
	stats, err := f.Write(ctx, out, base, p)
	if err == nil && zw != nil {
		err = zw.Close()
	}
	if err != nil {
		if ctx.Err() == nil {
			f.logger().ErrorContext(ctx, "feeds: data.json cut short", "path", p.Path, "written", stats.Written, "err", err)
		}
		panic(http.ErrAbortHandler)
	}
	if p.Version == DCATUS11 {
		h.Set(SkippedHeader, strconv.Itoa(stats.Skipped))
	}
	return nil
}

// Write writes the feed p to w, its links made from base (Catalog.Base): a DCAT-US 1.1
// catalog ({"@context", "@id", "@type", "conformsTo", "describedBy", "dataset": […]}) of every
// live dataset (a DCAT-US 3.0 dataset through MapDCATUS3To11, other 3.0 records left out), or a
// DCAT-US 3.0 catalog ({"@type": "Catalog", "conformsTo": {"@type": "Standard", "title":
// "DCAT-US 3.0"}, …, "dataset", "service", "record", "datasetSeries"}) of the records harvested
// as 3.0, each array present when it has records ("dataset" always). Each record is the stored
// JSON on one line (oneLine); one that is not a JSON object is left out and logged. A 3.0 feed reads the
// selection once per array. It stops at w's first error or ctx's end.
func (f *DataJSON) Write(ctx context.Context, w io.Writer, base string, p DataJSONParams) (DataJSONStats, error) {
	c := f.Catalog.WithDefaults()
	bw := bufio.NewWriterSize(w, 64<<10)
	var stats DataJSONStats
	var head bytes.Buffer
	var err error
	switch p.Version {
	case DCATUS11:
		head.WriteString(`{"@context":` + quote(POD11Context) + `,"@id":` + quote(base+p.Path) + `,"@type":"dcat:Catalog",` +
			`"conformsTo":` + quote(POD11ConformsTo) + `,"describedBy":` + quote(POD11DescribedBy) + `,"dataset":[`)
		bw.Write(head.Bytes())
		err = f.walk(ctx, bw, p, &stats, func(d *store.LiveDataset) ([]byte, string) {
			if harvest.SchemaType(d.SchemaType) != harvest.SchemaDCATUS30 {
				return d.DCAT, ""
			}
			if store.DatasetRecordType(d.RecordType) != harvest.RecordTypeDataset {
				return nil, "a DCAT-US 3.0 " + d.RecordType + ", not a dataset"
			}
			b, err := MapDCATUS3To11(d.DCAT)
			if err != nil {
				return nil, err.Error()
			}
			return b, ""
		})
		if err == nil {
			_, err = bw.WriteString("]}\n")
		}
	case DCATUS30:
		head.WriteString(`{"@type":"Catalog","@id":` + quote(base+p.Path) + `,"conformsTo":{"@type":"Standard","title":"DCAT-US 3.0"},"title":` + quote(c.Title))
		if c.Description != "" {
			head.WriteString(`,"description":` + quote(c.Description))
		}
		if c.Publisher != "" {
			head.WriteString(`,"publisher":{"@type":"Organization","name":` + quote(c.Publisher) + `}`)
		}
		bw.Write(head.Bytes())
		for _, a := range records3 {
			if a.name != "dataset" {
				// A lazy member: its name goes out with its first record.
				started := false
				err = f.walkType(ctx, bw, p, &stats, a.recordType, func() {
					if !started {
						started = true
						bw.WriteString(`],"` + a.name + `":[`)
					}
				})
			} else {
				bw.WriteString(`,"dataset":[`)
				err = f.walkType(ctx, bw, p, &stats, a.recordType, func() {})
			}
			if err != nil {
				break
			}
		}
		if err == nil {
			_, err = bw.WriteString("]}\n")
		}
	default:
		return stats, fmt.Errorf("data.json: unknown DCAT-US version %q (want %q or %q)", p.Version, DCATUS11, DCATUS30)
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && stats.Skipped > 0 {
		f.logger().InfoContext(ctx, "feeds: data.json left out records it cannot write as DCAT-US 1.1",
			"path", p.Path, "skipped", stats.Skipped, "written", stats.Written, "first", strings.Join(stats.SkippedIDs, "; "))
	}
	return stats, err
}

// records3 are a DCAT-US 3.0 catalog's record arrays, in the order a 3.0 feed writes them, with
// the record type each holds (catalog.WalkEntries3 reads them back).
var records3 = []struct{ name, recordType string }{
	{"dataset", harvest.RecordTypeDataset}, {"service", harvest.RecordTypeDataService},
	{"record", harvest.RecordTypeCatalogRecord}, {"datasetSeries", harvest.RecordTypeDatasetSeries},
}

// walkType writes the 3.0 records of recordType, calling before ahead of the first.
func (f *DataJSON) walkType(ctx context.Context, bw *bufio.Writer, p DataJSONParams, stats *DataJSONStats, recordType string, before func()) error {
	n := 0
	return f.walk(ctx, bw, p, stats, func(d *store.LiveDataset) ([]byte, string) {
		if harvest.SchemaType(d.SchemaType) != harvest.SchemaDCATUS30 || store.DatasetRecordType(d.RecordType) != recordType {
			return nil, ""
		}
		if n == 0 {
			before()
		}
		n++
		return d.DCAT, ""
	})
}

// maxSkippedIDs is how many left-out records DataJSONStats.SkippedIDs names.
const maxSkippedIDs = 5

// walk pages the selection by keyset and writes each record record gives (nil with a reason:
// skipped and counted; nil without: not this feed's), comma-separated, one a line (oneLine).
func (f *DataJSON) walk(ctx context.Context, bw *bufio.Writer, p DataJSONParams, stats *DataJSONStats,
	record func(d *store.LiveDataset) ([]byte, string)) error {
	var buf bytes.Buffer
	first := true
	return keyset(ctx, f.Store, store.DatasetPageParams{OrganizationID: p.OrganizationID, Limit: f.pageSize},
		func(page []*store.LiveDataset) (bool, error) {
			for _, d := range page {
				b, why := record(d)
				if b == nil {
					if why != "" {
						stats.Skipped++
						if len(stats.SkippedIDs) < maxSkippedIDs {
							stats.SkippedIDs = append(stats.SkippedIDs, d.Identifier+": "+why)
						}
					}
					continue
				}
				b, err := oneLine(&buf, b)
				if err != nil {
					f.logger().ErrorContext(ctx, "feeds: a stored record is not a JSON object; left out of data.json",
						"dataset_id", d.ID, "identifier", d.Identifier, "err", err)
					continue
				}
				if !first {
					bw.WriteByte(',')
				}
				bw.WriteByte('\n') // a record a line: `head` shows the first ones
				first = false
				if _, err := bw.Write(b); err != nil {
					return false, err
				}
				stats.Written++
			}
			return ctx.Err() == nil, ctx.Err()
		})
}

// oneLine returns record on one line: as it is when it already is (an object with no line
// break: a line break in JSON can only be whitespace, as strings escape theirs; Postgres's jsonb
// text never has one), else made compact into buf (which also checks it is JSON). An error
// when it is not a JSON object.
func oneLine(buf *bytes.Buffer, record []byte) ([]byte, error) {
	trimmed := bytes.TrimSpace(record)
	if len(trimmed) > 1 && trimmed[0] == '{' && trimmed[len(trimmed)-1] == '}' &&
		bytes.IndexByte(trimmed, '\n') < 0 && bytes.IndexByte(trimmed, '\r') < 0 {
		return trimmed, nil
	}
	buf.Reset()
	if err := json.Compact(buf, record); err != nil {
		return nil, err
	}
	if buf.Len() == 0 || buf.Bytes()[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	return buf.Bytes(), nil
}

func (f *DataJSON) logger() *slog.Logger { return cmp.Or(f.Logger, slog.Default()) }

// quote is s as a JSON string.
func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// acceptsGzip reports whether r's Accept-Encoding accepts gzip (RFC 9110 §12.5.3: "gzip" or
// "x-gzip" or "*", not with q=0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "x-gzip" && name != "*" {
				continue
			}
			q := 1.0
			for _, prm := range strings.Split(params, ";") {
				k, val, _ := strings.Cut(strings.TrimSpace(prm), "=")
				if strings.EqualFold(strings.TrimSpace(k), "q") {
					if x, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = x
					}
				}
			}
			return q > 0
		}
	}
	return false
}
