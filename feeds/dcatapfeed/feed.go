package dcatapfeed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/store"
)

// DefaultPageSize is a page's size when the request names none (ckanext-dcat's default).
const DefaultPageSize = 100

// MaxPageSize is the largest page_size a request may ask for (store.MaxDatasetPage); a larger
// one is a 400.
const MaxPageSize = store.MaxDatasetPage

// Feed serves the live catalog as DCAT-AP 3.0 RDF: the catalog's pages (ServeCatalog) and each
// dataset's own document (ServeDataset). It reads the store only (store.DatasetPage, by
// keyset), so a page costs the same at any depth when reached by its hydra:next link.
type Feed struct {
	Store   store.Store
	Catalog feeds.Catalog // WithDefaults applied by New
}

// New returns the Feed of st with the catalog settings c.
func New(st store.Store, c feeds.Catalog) *Feed {
	return &Feed{Store: st, Catalog: c.WithDefaults()}
}

// Extensions maps the file extensions of the feed's documents to their syntax.
var Extensions = map[string]rdf.Format{".ttl": rdf.Turtle, ".rdf": rdf.RDFXML, ".jsonld": rdf.JSONLD, ".nt": rdf.NTriples}

// contentTypes are the Content-Type headers of the served syntaxes.
var contentTypes = map[rdf.Format]string{
	rdf.Turtle:   "text/turtle; charset=utf-8",
	rdf.RDFXML:   "application/rdf+xml; charset=utf-8",
	rdf.JSONLD:   "application/ld+json",
	rdf.NTriples: "application/n-triples",
}

// Negotiate picks the syntax of an Accept header (RFC 9110 §12.5.1: the highest q-value wins,
// ties going to the earlier listed; */* and text/* match Turtle, application/* RDF/XML): Turtle,
// RDF/XML, JSON-LD or N-Triples. No Accept, or one naming none of them, gives Turtle.
func Negotiate(accept string) rdf.Format {
	best, bestQ := rdf.Turtle, 0.0
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		var f rdf.Format
		switch mt {
		case "text/turtle", "application/x-turtle", "*/*", "text/*":
			f = rdf.Turtle
		case "application/rdf+xml", "application/xml", "text/xml", "application/*":
			f = rdf.RDFXML
		case "application/ld+json", "application/json":
			f = rdf.JSONLD
		case "application/n-triples", "text/plain":
			f = rdf.NTriples
		default:
			continue
		}
		if q > bestQ {
			best, bestQ = f, q
		}
	}
	return best
}

// BadRequest is a request the feed refuses (HTTP 400): its message says which parameter and why.
type BadRequest struct{ Msg string }

func (e *BadRequest) Error() string { return e.Msg }

// pageQuery is a catalog request's parameters.
type pageQuery struct {
	page, size    int
	after         string // the keyset cursor of a hydra:next link: the last dataset id of the page before
	total         int    // with after: the selection's size the first page counted; -1 when not given
	organization  string // an organization's slug or id, as given
	sourceID      string
	modifiedSince time.Time
	modifiedRaw   string
}

// parseQuery reads page (1-based), page_size (1..MaxPageSize), after, organization, source_id
// and modified_since (an RFC 3339 date-time or a date, UTC).
func parseQuery(q url.Values) (*pageQuery, error) {
	p := &pageQuery{page: 1, size: DefaultPageSize, after: q.Get("after"), total: -1, organization: strings.TrimSpace(q.Get("organization")),
		sourceID: strings.TrimSpace(q.Get("source_id"))}
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, &BadRequest{fmt.Sprintf("page %q is not a page number (1, 2, …)", clip(v))}
		}
		p.page = n
	}
	if v := q.Get("page_size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, &BadRequest{fmt.Sprintf("page_size %q is not a positive number", clip(v))}
		}
		if n > MaxPageSize {
			return nil, &BadRequest{fmt.Sprintf("page_size %d is over the maximum of %d datasets a page", n, MaxPageSize)}
		}
		p.size = n
	}
	if v := q.Get("total"); v != "" && p.after != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, &BadRequest{fmt.Sprintf("total %q is not a count", clip(v))}
		}
		p.total = n
	}
	if v := strings.TrimSpace(q.Get("modified_since")); v != "" {
		t, err := parseSince(v)
		if err != nil {
			return nil, &BadRequest{fmt.Sprintf("modified_since %q is not a date (2026-01-31) or an RFC 3339 date-time (2026-01-31T12:00:00Z)", clip(v))}
		}
		p.modifiedSince, p.modifiedRaw = t, v
	}
	return p, nil
}

func parseSince(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, errors.New("not a date")
}

func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// selection is the store's filter of a request: its organization resolved to an id.
func (f *Feed) selection(ctx context.Context, q *pageQuery) (*store.DatasetPageParams, error) {
	sel := &store.DatasetPageParams{SourceID: q.sourceID, ModifiedSince: q.modifiedSince}
	if q.organization != "" {
		id, err := f.organizationID(ctx, q.organization)
		if err != nil {
			return nil, err
		}
		sel.OrganizationID = id
	}
	return sel, nil
}

// organizationID finds the organization whose slug (or id) is v; none is a 404.
func (f *Feed) organizationID(ctx context.Context, v string) (string, error) {
	if o, err := f.Store.OrganizationGet(ctx, v); err == nil {
		return o.ID, nil
	}
	for offset := 0; ; offset += 100 {
		orgs, total, err := f.Store.OrganizationList(ctx, &store.PageParams{Offset: offset, Limit: 100})
		if err != nil {
			return "", err
		}
		for _, o := range orgs {
			if o.Slug == v {
				return o.ID, nil
			}
		}
		if len(orgs) == 0 || offset+100 >= total {
			return "", &NotFound{fmt.Sprintf("no organization %q in this catalog", clip(v))}
		}
	}
}

// NotFound is a request for an organization the catalog does not have (HTTP 404).
type NotFound struct{ Msg string }

func (e *NotFound) Error() string { return e.Msg }

// ServeCatalog answers one page of the catalog (GET /catalog, /catalog.ttl|.rdf|.jsonld|.nt):
// format is the syntax the path names, "" to negotiate it from Accept (Negotiate; the answer
// then varies by Accept).
//
// The page is a dcat:Catalog ({base}/catalog) with the catalog's settings, its datasets (the
// live datasets the query selects, in dataset id order) with a dcat:CatalogRecord each, and a
// hydra:PartialCollectionView as ckanext-dcat writes it: hydra:first, hydra:last,
// hydra:previous and hydra:next page links and hydra:totalItems (the selection's size, also on
// the hydra:Collection that is the catalog, which lists the page's datasets as hydra:member).
// Query parameters: page (from 1), page_size (default DefaultPageSize, at most MaxPageSize),
// modified_since, organization (a slug or id) and source_id. hydra:next carries the keyset
// cursor after=<last dataset id> and total=<the selection's size>, so a walk by hydra:next reads
// each later page in one index range scan and counts nothing (the page's totalItems is the
// first page's count, and its ETag and Last-Modified come from its rows); a page named by
// number alone counts the selection and skips the pages before it (a walk over their ids). A page
// beyond the last is a catalog with no datasets. An invalid parameter is a *BadRequest, an
// unknown organization a *NotFound (nothing written: the caller answers 400 or 404); ETag and
// Last-Modified come from the selection's store.DatasetPageStats, and a matching conditional
// request is answered 304.
func (f *Feed) ServeCatalog(w http.ResponseWriter, r *http.Request, format rdf.Format) error {
	negotiated := format == ""
	if negotiated {
		format = Negotiate(r.Header.Get("Accept"))
		w.Header().Add("Vary", "Accept")
	}
	q, err := parseQuery(r.URL.Query())
	if err != nil {
		return err
	}
	ctx := r.Context()
	sel, err := f.selection(ctx, q)
	if err != nil {
		return err
	}
	var stats *store.DatasetPageStats
	var rows []*store.LiveDataset
	var etag string
	if q.after != "" && q.total >= 0 {
		// A page reached by hydra:next: the count comes with the cursor, so no page past the
		// first counts the whole selection again; the validators come from the page's rows.
		if rows, err = f.rows(ctx, q, sel, q.total); err != nil {
			return err
		}
		stats = &store.DatasetPageStats{Count: q.total}
		parts := []string{"dcat-ap " + string(format), r.URL.Path + "?" + r.URL.Query().Encode()}
		for _, ds := range rows {
			parts = append(parts, ds.ID, ds.RecordID, ds.LastHarvestedDate.UTC().Format(time.RFC3339Nano))
			if ds.LastHarvestedDate.After(stats.LastModified) {
				stats.LastModified = ds.LastHarvestedDate
			}
		}
		etag = feeds.ETag(parts...)
	} else {
		if stats, err = f.Store.DatasetPageStats(ctx, sel); err != nil {
			return err
		}
		etag = feeds.StatsETag("dcat-ap "+string(format), r.URL.Path+"?"+r.URL.Query().Encode(), stats)
	}
	etag, modified, err := f.withChecks(ctx, etag, stats.LastModified)
	if err != nil {
		return err
	}
	if feeds.NotModified(w, r, etag, modified) {
		return nil
	}
	if rows == nil {
		if rows, err = f.rows(ctx, q, sel, stats.Count); err != nil {
			return err
		}
	}
	w.Header().Set("Content-Type", contentTypes[format])
	if r.Method == http.MethodHead {
		return nil
	}
	return f.writePage(w, r, format, q, stats, rows)
}

// rows reads the page's live datasets: after the cursor, or by skipping the pages before.
func (f *Feed) rows(ctx context.Context, q *pageQuery, sel *store.DatasetPageParams, count int) ([]*store.LiveDataset, error) {
	skip := int64(q.page-1) * int64(q.size)
	if q.after == "" && skip >= int64(count) {
		return nil, nil // beyond the last page
	}
	p := *sel
	p.After = q.after
	for q.after == "" && skip > 0 { // walk to the page's start by keyset
		p.Limit = int(min(skip, int64(store.MaxDatasetPage)))
		skipped, err := f.Store.DatasetPage(ctx, &p)
		if err != nil {
			return nil, err
		}
		if len(skipped) == 0 {
			return nil, nil
		}
		p.After = skipped[len(skipped)-1].ID
		skip -= int64(len(skipped))
	}
	p.Limit = q.size
	return f.Store.DatasetPage(ctx, &p)
}

// writePage writes the catalog page, group by group (the catalog and view, then each dataset
// with its record).
func (f *Feed) writePage(w io.Writer, r *http.Request, format rdf.Format, q *pageQuery, stats *store.DatasetPageStats,
	rows []*store.LiveDataset) error {
	enc, err := rdf.NewEncoder(w, format, Prefixes)
	if err != nil {
		return err
	}
	base := f.Catalog.Base(r)
	catalog := rdf.IRI(base + "/catalog")
	scores, err := f.scores(r.Context(), rows)
	if err != nil {
		return err
	}
	b := &builder{}
	f.catalogNode(b, catalog, base)
	f.view(b, r, catalog, q, stats.Count, rows)
	if err := enc.Encode(b.ts); err != nil {
		return err
	}
	for _, ds := range rows {
		b.ts = b.ts[:0]
		s, err := f.item(r.Context(), b, r, ds)
		if err != nil {
			return err
		}
		b.measure(s, ds, scores)
		b.add(catalog, hydraMember, s)
		switch itemClass(b.ts, s) {
		case dcatCatalogRecord: // a DCAT-US 3.0 catalog record, as harvested
			b.add(catalog, dcatRecordP, s)
		case dcatDataService:
			b.add(catalog, dcatServiceP, s)
			b.add(catalog, dcatRecordP, f.recordIRI(r, ds))
		default:
			b.add(catalog, dcatDatasetP, s)
			b.add(catalog, dcatRecordP, f.recordIRI(r, ds))
		}
		if err := enc.Encode(b.ts); err != nil {
			return err
		}
	}
	return enc.Close()
}

// itemClass is the DCAT class ts give s: DataService or CatalogRecord when it has one of them,
// else Dataset.
func itemClass(ts []rdf.Triple, s rdf.Term) rdf.Term {
	for _, t := range ts {
		if t.S == s && t.P == rdfType && (t.O == dcatDataService || t.O == dcatCatalogRecord) {
			return t.O
		}
	}
	return dcatDataset
}

// catalogNode adds the catalog's own description: the settings (title, description, publisher,
// licence) and its homepage (the same on every page: its last change is the Last-Modified
// header, which a page of a walk would otherwise contradict when the catalog changes), and the axiom dcat:Dataset rdfs:subClassOf
// dcat:Resource that DCAT-AP's foaf:primaryTopic check needs in the data graph.
func (f *Feed) catalogNode(b *builder, catalog rdf.Term, base string) {
	c := f.Catalog
	b.add(catalog, rdfType, dcatCatalog)
	b.add(catalog, rdfType, hydraCollection)
	b.text(catalog, dctTitle, c.Title)
	desc := c.Description
	if strings.TrimSpace(desc) == "" {
		desc = "The datasets harvested by " + c.Title + "."
	}
	b.text(catalog, dctDescription, desc)
	pub := rdf.IRI(base + "/catalog#publisher")
	b.add(catalog, dctPublisher, pub)
	b.add(pub, rdfType, foafAgent)
	name := c.Publisher
	if strings.TrimSpace(name) == "" {
		name = c.Title
	}
	b.text(pub, foafName, name)
	if iri, ok := iriOf(c.License); ok {
		b.add(catalog, dctLicense, rdf.IRI(iri))
		b.add(rdf.IRI(iri), rdfType, dctLicenseDocument)
	}
	home := rdf.IRI(base + "/")
	b.add(catalog, foafHomepage, home)
	b.add(home, rdfType, foafDocument)
	for _, class := range []rdf.Term{dcatDataset, dcatDatasetSeries, dcatDataService} {
		b.add(class, rdfsSubClassOf, dcatResource)
	}
}

// view adds the hydra:PartialCollectionView of the page.
func (f *Feed) view(b *builder, r *http.Request, catalog rdf.Term, q *pageQuery, count int, rows []*store.LiveDataset) {
	base := f.Catalog.Base(r) + r.URL.Path
	link := func(page int, after string, total int) rdf.Term {
		v := url.Values{}
		v.Set("page", strconv.Itoa(page))
		if q.size != DefaultPageSize {
			v.Set("page_size", strconv.Itoa(q.size))
		}
		if q.modifiedRaw != "" {
			v.Set("modified_since", q.modifiedRaw)
		}
		if q.organization != "" {
			v.Set("organization", q.organization)
		}
		if q.sourceID != "" {
			v.Set("source_id", q.sourceID)
		}
		if after != "" {
			v.Set("after", after)
			if total >= 0 {
				v.Set("total", strconv.Itoa(total))
			}
		}
		return rdf.IRI(base + "?" + v.Encode())
	}
	last := max(1, int(math.Ceil(float64(count)/float64(q.size))))
	here := link(q.page, q.after, q.total)
	total := rdf.Literal(strconv.Itoa(count), xsdInteger, "")
	b.add(catalog, hydraViewP, here)
	b.add(catalog, hydraTotalItems, total)
	b.add(here, rdfType, hydraView)
	b.add(here, hydraTotalItems, total)
	b.add(here, hydraItemsOnPage, rdf.Literal(strconv.Itoa(q.size), xsdInteger, ""))
	b.add(here, hydraFirst, link(1, "", -1))
	b.add(here, hydraLast, link(last, "", -1))
	if q.page > 1 {
		b.add(here, hydraPrevious, link(min(q.page-1, last), "", -1))
	}
	if q.page < last && len(rows) == q.size {
		b.add(here, hydraNext, link(q.page+1, rows[len(rows)-1].ID, count))
	}
}

// recordIRI is the IRI of a dataset's dcat:CatalogRecord: its page's, with #record.
func (f *Feed) recordIRI(r *http.Request, ds *store.LiveDataset) rdf.Term {
	return rdf.IRI(f.Catalog.DatasetURL(r, ds.Slug) + "#record")
}

// item adds one live dataset and its catalog record to b and returns the dataset's IRI. A
// DCAT-US 3.0 CatalogRecord row is a dcat:CatalogRecord itself (mapCatalogRecord), with no
// record of its own.
func (f *Feed) item(ctx context.Context, b *builder, r *http.Request, ds *store.LiveDataset) (rdf.Term, error) {
	if ds.RecordType == harvest.RecordTypeCatalogRecord {
		// A DCAT-US 3.0 catalog's own record of a dataset: served as the record it is.
		s := rdf.IRI(f.Catalog.DatasetIRI(r, ds.Identifier, ds.Slug))
		return s, b.mapCatalogRecord(s, ds.Identifier, ds.DCAT)
	}
	s, err := f.describe(ctx, b, r, ds)
	if err != nil {
		return rdf.Term{}, err
	}
	rec := f.recordIRI(r, ds)
	b.add(rec, rdfType, dcatCatalogRecord)
	b.add(rec, foafPrimaryTopic, s)
	first := ds.FirstHarvested
	if first.IsZero() {
		first = ds.LastHarvestedDate
	}
	if !first.IsZero() {
		b.add(rec, dctIssued, rdf.Literal(first.UTC().Format(time.RFC3339), xsdDateTime, ""))
	}
	b.add(rec, dctModified, rdf.Literal(ds.LastHarvestedDate.UTC().Format(time.RFC3339), xsdDateTime, ""))
	if src, ok := iriOf(ds.SourceURL); ok {
		b.add(rec, provDerivedFrom, rdf.IRI(src))
		b.text(rdf.IRI(src), rdfsLabel, ds.SourceName)
	}
	return s, nil
}

// describe adds a live dataset's description to b and returns its IRI: the harvested graph of
// a record that came in as DCAT-AP (an rdf source's record, its source_raw N-Quads) when it is
// stored and parses, else the DCAT-US → DCAT-AP mapping of the stored record.
func (f *Feed) describe(ctx context.Context, b *builder, r *http.Request, ds *store.LiveDataset) (rdf.Term, error) {
	if ds.SourceType == string(harvest.SourceRDF) && ds.RecordID != "" {
		if s, ok, err := f.harvestedGraph(ctx, b, ds); err != nil || ok {
			return s, err
		}
	}
	s := rdf.IRI(f.Catalog.DatasetIRI(r, ds.Identifier, ds.Slug))
	return s, b.mapDCATUS(s, classOf(ds.RecordType), ds.Identifier, ds.DCAT)
}

// harvestedGraph adds the stored graph of an rdf source's dataset: ok is false when the record
// is gone or its body does not parse (the mapping serves it then). Its blank nodes (skolemized
// by EXTRACT, so there are none in a stored graph) would be relabelled into b's. A graph
// without a dct:identifier of the dataset gets one: the identifier (its IRI).
func (f *Feed) harvestedGraph(ctx context.Context, b *builder, ds *store.LiveDataset) (rdf.Term, bool, error) {
	rec, err := f.Store.RecordGet(ctx, ds.RecordID)
	if errors.Is(err, store.ErrNotFound) {
		return rdf.Term{}, false, nil
	}
	if err != nil {
		return rdf.Term{}, false, err
	}
	s := rdf.IRI(ds.Identifier)
	start := len(b.ts)
	labels := map[string]rdf.Term{}
	relabel := func(t rdf.Term) rdf.Term {
		if !t.IsBlank() {
			return t
		}
		n, ok := labels[t.Value]
		if !ok {
			b.blank++
			n = rdf.Blank("n" + strconv.Itoa(b.blank))
			labels[t.Value] = n
		}
		return n
	}
	hasSubject, hasIdentifier := false, false
	err = rdf.ParseRecord(bytes.NewReader([]byte(rec.SourceRaw)), func(t rdf.Triple) error {
		t.S, t.O = relabel(t.S), relabel(t.O)
		hasSubject = hasSubject || t.S == s
		hasIdentifier = hasIdentifier || (t.S == s && t.P == dctIdentifier)
		b.ts = append(b.ts, t)
		return nil
	})
	if err != nil || !hasSubject {
		b.ts = b.ts[:start]
		return rdf.Term{}, false, nil
	}
	if !hasIdentifier {
		b.add(s, dctIdentifier, rdf.Literal(ds.Identifier, "", ""))
	}
	return s, true, nil
}

// ServeDataset answers one live dataset's document (/dataset/{slug}.ttl|.rdf|.jsonld|.nt): the
// dataset as the catalog pages describe it, with its dcat:CatalogRecord, in format. ETag and
// Last-Modified come from the dataset's last change.
func (f *Feed) ServeDataset(w http.ResponseWriter, r *http.Request, ds *store.LiveDataset, format rdf.Format) error {
	etag, modified, err := f.withChecks(r.Context(),
		feeds.ETag("dcat-ap dataset", string(format), ds.ID, ds.RecordID, ds.LastHarvestedDate.UTC().Format(time.RFC3339Nano)),
		ds.LastHarvestedDate)
	if err != nil {
		return err
	}
	if feeds.NotModified(w, r, etag, modified) {
		return nil
	}
	scores, err := f.scores(r.Context(), []*store.LiveDataset{ds})
	if err != nil {
		return err
	}
	b := &builder{}
	s, err := f.item(r.Context(), b, r, ds)
	if err != nil {
		return err
	}
	b.measure(s, ds, scores)
	for _, class := range []rdf.Term{dcatDataset, dcatDatasetSeries, dcatDataService} {
		b.add(class, rdfsSubClassOf, dcatResource)
	}
	w.Header().Set("Content-Type", contentTypes[format])
	if r.Method == http.MethodHead {
		return nil
	}
	enc, err := rdf.NewEncoder(w, format, Prefixes)
	if err != nil {
		return err
	}
	if err := enc.Encode(b.ts); err != nil {
		return err
	}
	return enc.Close()
}
