package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/feeds/ckan"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// ckanRowsMax is CKAN's ckan.search.rows_max: a larger rows is cut to it, as CKAN does.
const (
	ckanRowsMax     = 1000
	ckanRowsDefault = 10
)

// ckanSearch is one package_search request, read and checked.
type ckanSearch struct {
	q           string
	clauses     []ckan.Clause
	sort        string
	rows, start int
	facetFields []string
	facetLimit  int
	// modifiedSince is the latest metadata_modified:[<time> TO *] clause (taken out of
	// clauses); zero for none. Only the store answers it.
	modifiedSince time.Time
}

// ckanPackageSearch answers package_search. Without q, facets or a sort other than CKAN's
// default or "id asc", and with no fq clause but organization:/owner_org:, it pages the store
// by keyset (ckanPage: every live dataset, in id order, however deep); otherwise it asks the
// search index, whose window ends at search.MaxWindow hits (a deeper page is CKAN's 409
// "Search Error").
func (s *server) ckanPackageSearch(r *http.Request, p ckanParams) (any, error) {
	cs, err := readCKANSearch(p)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	if cs.keyset() {
		return s.ckanSearchStore(ctx, cs)
	}
	return s.ckanSearchIndex(ctx, cs)
}

// readCKANSearch reads package_search's parameters: q ("*:*" is none), fq (ckan.ParseFQ),
// rows (default 10, at most 1000), start, sort (ckan.ParseSort), facet.field (a JSON list of
// organization, tags, res_format, groups) and facet.limit (default 50; -1 for all).
func readCKANSearch(p ckanParams) (*ckanSearch, error) {
	bad := map[string][]string{}
	cs := &ckanSearch{q: strings.TrimSpace(p["q"]), rows: p.int("rows", ckanRowsDefault, bad), start: p.int("start", 0, bad)}
	if cs.q == "*:*" {
		cs.q = ""
	}
	cs.facetLimit = ckan.DefaultFacetLimit
	if v := strings.TrimSpace(p["facet.limit"]); v == "-1" {
		cs.facetLimit = search.MaxFacetSize
	} else {
		cs.facetLimit = min(p.int("facet.limit", ckan.DefaultFacetLimit, bad), search.MaxFacetSize)
	}
	if v := strings.TrimSpace(p["facet.field"]); v != "" {
		if err := json.Unmarshal([]byte(v), &cs.facetFields); err != nil {
			bad["facet.field"] = []string{"must be a JSON list of field names"}
		}
		for _, f := range cs.facetFields {
			if _, ok := ckan.FacetFields[f]; !ok {
				bad["facet.field"] = []string{fmt.Sprintf("%q is not a facet here (facets: organization, tags, res_format, groups)", f)}
			}
		}
	}
	if len(bad) > 0 {
		return nil, ckan.Validation(bad)
	}
	cs.rows = min(cs.rows, ckanRowsMax)
	var err error
	if cs.clauses, err = ckan.ParseFQ(p["fq"]); err != nil {
		return nil, err
	}
	if cs.clauses, cs.modifiedSince, err = modifiedSince(cs.clauses); err != nil {
		return nil, err
	}
	if cs.sort, err = ckan.ParseSort(p["sort"]); err != nil {
		return nil, err
	}
	if !cs.modifiedSince.IsZero() && !cs.keyset() {
		return nil, ckan.SearchQueryError("metadata_modified:[<time> TO *] is answered without q, facets, a sort " +
			"other than id asc, or fq clauses other than organization:")
	}
	if cs.sort == ckan.SortID && (cs.q != "" || len(cs.facetFields) > 0 || !onlyOrganizations(cs.clauses)) {
		return nil, ckan.SearchQueryError(`sort "id asc" pages the whole catalog: it takes no q, facets, or fq clause but organization:`)
	}
	return cs, nil
}

// ckanTimeFormats are the forms a metadata_modified range's time may take: RFC 3339 (what
// ckanext-harvest sends: isoformat() and "Z"), CKAN's own timestamp (UTC), a date.
var ckanTimeFormats = []string{time.RFC3339Nano, ckan.TimeFormat, "2006-01-02T15:04:05", "2006-01-02"}

// modifiedSince takes the metadata_modified clauses out of clauses and returns the latest of
// their times; a time in none of ckanTimeFormats (Solr's date math, NOW-1DAY) is a Search Query
// Error.
func modifiedSince(clauses []ckan.Clause) ([]ckan.Clause, time.Time, error) {
	var since time.Time
	var rest []ckan.Clause
	for _, c := range clauses {
		if c.Field != ckan.FieldModifiedSince {
			rest = append(rest, c)
			continue
		}
		var t time.Time
		var err error
		for _, f := range ckanTimeFormats {
			if t, err = time.Parse(f, c.Value); err == nil {
				break
			}
		}
		if err != nil {
			return nil, since, ckan.SearchQueryError(fmt.Sprintf("metadata_modified:[%s TO *]: not a time (want e.g. 2024-05-01T00:00:00Z)", c.Value))
		}
		if t.After(since) {
			since = t
		}
	}
	return rest, since, nil
}

// keyset says whether the store answers cs (see ckanPackageSearch).
func (cs *ckanSearch) keyset() bool {
	return cs.q == "" && len(cs.facetFields) == 0 && (cs.sort == ckan.SortRelevance || cs.sort == ckan.SortID) &&
		onlyOrganizations(cs.clauses)
}

func onlyOrganizations(clauses []ckan.Clause) bool {
	for _, c := range clauses {
		if c.Exclude || c.Field != ckan.FieldOrganization && c.Field != ckan.FieldOwnerOrg {
			return false
		}
	}
	return true
}

// ckanSearchStore answers cs from the store, by keyset.
func (s *server) ckanSearchStore(ctx context.Context, cs *ckanSearch) (any, error) {
	res := ckan.NewSearchResult(ckan.SortID)
	orgID := ""
	for _, c := range cs.clauses {
		o, err := s.ckanOrganizationFind(ctx, c.Value)
		if err != nil {
			return nil, err
		}
		if o == nil || c.Field == ckan.FieldOwnerOrg && o.ID != c.Value || orgID != "" && o.ID != orgID {
			return res, nil // no such organization, or two different ones: nothing matches
		}
		orgID = o.ID
	}
	sel := store.DatasetPageParams{OrganizationID: orgID, ModifiedSince: cs.modifiedSince}
	st, err := s.store.DatasetPageStats(ctx, &sel)
	if err != nil {
		return nil, fmt.Errorf("count datasets: %w", err)
	}
	res.Count = st.Count
	page, err := s.ckanPage(ctx, sel, st, cs.start, cs.rows)
	if err != nil {
		return nil, err
	}
	for _, ld := range page {
		res.Results = append(res.Results, ckan.FromDataset(ld))
	}
	return res, nil
}

// ckanSearchIndex answers cs from the search index: start and rows become one or two index
// pages of rows hits, cut to the window asked.
func (s *server) ckanSearchIndex(ctx context.Context, cs *ckanSearch) (any, error) {
	if s.search == nil {
		return nil, ckan.SearchError("no search index is configured on this server: only package_search without q, facets or fq clauses other than organization: is answered")
	}
	base, orgs, err := s.ckanIndexQuery(ctx, cs)
	if err != nil {
		return nil, err
	}
	res := ckan.NewSearchResult(cs.sort)
	if base == nil {
		return res, nil // a clause names an organization there is none of
	}
	per := max(cs.rows, 1)
	if cs.start+cs.rows > search.MaxWindow {
		return nil, ckan.SearchError(fmt.Sprintf("start + rows is over %d, the search index's window: narrow the query "+
			"(or, for the whole catalog, leave q and fq out: that pages the store)", search.MaxWindow))
	}
	if _, err := base.Normalize(); err != nil {
		return nil, ckan.SearchQueryError(err.Error()) // q too long, too many clauses
	}
	var hits []search.Hit
	for page := cs.start/per + 1; page <= (cs.start+per-1)/per+1; page++ {
		if page*per > search.MaxWindow {
			break // the window's edge: rows not aligned to start end it short
		}
		q := *base
		q.Page, q.PerPage = page, per
		r, err := s.search.Search(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		if page == cs.start/per+1 {
			res.Count = r.Total
			s.ckanFacets(res, cs, r, orgs)
		}
		from := (page - 1) * per
		for i, h := range r.Hits {
			if at := from + i; at >= cs.start && at < cs.start+cs.rows {
				hits = append(hits, h)
			}
		}
		if len(r.Hits) < per {
			break
		}
	}
	for _, h := range hits {
		ld, err := s.ckanDataset(ctx, h.ID)
		var ce *ckan.Error
		if errors.As(err, &ce) {
			continue // gone since the index saw it (the index catches up within seconds)
		}
		if err != nil {
			return nil, err
		}
		res.Results = append(res.Results, ckan.FromDataset(ld))
	}
	return res, nil
}

// ckanFacets sets the facets cs asks for from an index result; organization facet values
// (organization names in the index) are named by their slugs, as CKAN names them.
func (s *server) ckanFacets(res *ckan.SearchResult, cs *ckanSearch, r *search.Result, orgs map[string]*store.Organization) {
	for _, f := range cs.facetFields {
		items := []ckan.FacetItem{}
		for _, fc := range r.Facets[ckan.FacetFields[f]] {
			it := ckan.FacetItem{Count: fc.Count, DisplayName: fc.Value, Name: fc.Value}
			if o := orgs[strings.ToLower(fc.Value)]; f == ckan.FieldOrganization && o != nil {
				it.Name = o.Slug
			}
			items = append(items, it)
		}
		slices.SortStableFunc(items, func(a, b ckan.FacetItem) int { return b.Count - a.Count })
		res.AddFacet(f, items[:min(len(items), cs.facetLimit)])
	}
}
