package api

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/search"
)

// searchFilterParams are the repeatable filter parameters of GET /api/v1/search, each a
// search.Filter field; "exclude_<field>" excludes the value.
var searchFilterParams = []string{search.FieldOrganization, search.FieldKeyword, search.FieldFormat,
	search.FieldPublisher, search.FieldTheme}

// searchParams are the parameters GET /api/v1/search takes.
func searchParams() []string {
	names := append([]string{"q", "source_id", "bbox", "sort"}, pagingParams...)
	for _, f := range searchFilterParams {
		names = append(names, f, "exclude_"+f)
	}
	return names
}

// searchList answers GET /api/v1/search, a public read, from the configured search index: one
// page of hits with the total and the facets (search.Result). Filters repeat (each must hold);
// bbox is "W,S,E,N"; sort is relevance, modified or title; per_page is at most
// search.MaxPerPage. 503 when no index is configured; 422 for bad parameters, including a page
// past search.MaxWindow and a q too long (search.ErrTooLong).
func (s *server) searchList(w http.ResponseWriter, r *http.Request) error {
	fields := fieldErrors{}
	vals, single := readSearchQuery(r, fields)
	q := search.Query{Text: single["q"], SourceID: filterID(single, "source_id"), Sort: single["sort"]}
	for _, f := range searchFilterParams {
		for _, v := range vals[f] {
			q.Filters = append(q.Filters, search.Filter{Field: f, Value: v})
		}
		for _, v := range vals["exclude_"+f] {
			q.Filters = append(q.Filters, search.Filter{Field: f, Value: v, Exclude: true})
		}
	}
	if v, ok := single["bbox"]; ok {
		b, err := search.ParseBBox(v)
		if err != nil {
			fields.add("bbox", "%v", err)
		}
		q.BBox = b
	}
	if v := single["sort"]; v != "" && !slices.Contains(search.Sorts, v) {
		fields.add("sort", "want one of %s", strings.Join(search.Sorts, ", "))
	}
	q.Page = intParam(single, "page", 1, 1, maxPage, fields)
	q.PerPage = intParam(single, "per_page", search.DefaultPerPage, 1, search.MaxPerPage, fields)
	if err := fields.err(); err != nil {
		return err
	}
	if s.search == nil {
		return errorf(http.StatusServiceUnavailable, "no search index is configured on this server")
	}
	switch _, err := q.Normalize(); {
	case errors.Is(err, search.ErrTooDeep):
		return (fieldErrors{"page": err.Error()}).err()
	case errors.Is(err, search.ErrTooLong):
		return (fieldErrors{"q": err.Error()}).err()
	case err != nil:
		return (fieldErrors{"query": err.Error()}).err()
	}
	res, err := s.search.Search(r.Context(), q)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return writeJSON(w, http.StatusOK, res)
}

// readSearchQuery reads the search's query string as readQuery does (each bad parameter named
// in fields), except that the filter parameters (and their exclude_ forms) may repeat: it
// returns their values, and the other parameters by name.
func readSearchQuery(r *http.Request, fields fieldErrors) (url.Values, query) {
	repeatable := func(name string) bool {
		return slices.Contains(searchFilterParams, strings.TrimPrefix(name, "exclude_"))
	}
	return readQueryRepeating(r, fields, repeatable, searchParams()...)
}
