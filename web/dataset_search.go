package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/search"
)

// datasetSearchPerPage is the public search's page size.
const datasetSearchPerPage = 20

// facetLabels name the facets (search.FacetFields) on the public search page.
var facetLabels = map[string]string{search.FieldOrganization: "Organization", search.FieldKeyword: "Keyword",
	search.FieldFormat: "Format", search.FieldPublisher: "Publisher", search.FieldTheme: "Theme"}

// bboxInputs are the four inputs of the bounding box, in "W,S,E,N" order.
var bboxInputs = []string{"west", "south", "east", "north"}

type datasetSearchData struct {
	Configured bool
	Q          string
	BBox       []bboxInput // the four inputs as sent
	Sort       string
	Sorts      [][2]string // value, label
	Filters    []activeFilter
	Facets     []facetView
	Result     *search.Result
	Paging     paging
	PrevURL    string
	NextURL    string
	ClearURL   string
	Error      string
}

// activeFilter is a filter of the current search, with the link that removes it.
type activeFilter struct {
	Name, Label, Value string // Name is the query parameter
	Exclude            bool
	RemoveURL          string
}

// bboxInput is one of the bounding box's inputs.
type bboxInput struct{ Name, Label, Value string }

type facetView struct {
	Field, Label string
	Values       []facetValue
}

// facetValue is a facet's value with its count, and the link that adds it as a filter (keeping
// the others), or removes it when it is already one.
type facetValue struct {
	Value  string
	Count  int
	URL    string
	Active bool
}

// datasetSearch is the public search page, GET /dataset: a search box, the hits (title linking
// to /dataset/{slug}, snippet, organization, formats, last modified), facets with counts whose
// links add a filter and keep the others, a bounding box as four inputs, a sort and paging
// that keeps every parameter. It takes the parameters of GET /api/v1/search (the filters
// repeat, exclude_<field> excludes), with the box as west, south, east and north.
func (s *server) datasetSearch(w http.ResponseWriter, r *http.Request) error {
	params := r.URL.Query()
	params.Del("page")
	d := datasetSearchData{Configured: s.search != nil, Q: params.Get("q"), Sort: params.Get("sort"),
		Sorts:  [][2]string{{"relevance", "Relevance"}, {"modified", "Last modified"}, {"title", "Title"}},
		Paging: pageOf(r, datasetSearchPerPage)}
	q := search.Query{Text: d.Q, Sort: d.Sort, Page: d.Paging.Page, PerPage: d.Paging.PerPage}
	var errs []string
	for _, field := range search.FacetFields {
		for _, exclude := range []bool{false, true} {
			name := field
			if exclude {
				name = "exclude_" + field
			}
			for _, v := range params[name] {
				if strings.TrimSpace(v) == "" {
					continue
				}
				q.Filters = append(q.Filters, search.Filter{Field: field, Value: v, Exclude: exclude})
				d.Filters = append(d.Filters, activeFilter{Name: name, Label: facetLabels[field], Value: v, Exclude: exclude,
					RemoveURL: searchURL(params, name, v, false)})
			}
		}
	}
	var box []string
	for _, name := range bboxInputs {
		v := strings.TrimSpace(params.Get(name))
		d.BBox = append(d.BBox, bboxInput{Name: name, Label: strings.ToUpper(name[:1]) + name[1:], Value: v})
		if v != "" {
			box = append(box, v)
		}
	}
	switch len(box) {
	case 0:
	case 4:
		b, err := search.ParseBBox(strings.Join(box, ","))
		if err != nil {
			errs = append(errs, err.Error())
		}
		q.BBox = b
	default:
		errs = append(errs, "bbox: give all four of west, south, east and north, or none")
	}
	if len(errs) == 0 && s.search != nil {
		if _, err := q.Normalize(); err != nil {
			errs = append(errs, err.Error())
		}
	}
	d.ClearURL = "/dataset" + encodeQuery(url.Values{"q": {d.Q}})
	if len(errs) > 0 || s.search == nil {
		d.Error = strings.Join(errs, "; ")
		return s.render(w, r, http.StatusOK, "dataset_search.html", "Search the catalog", d)
	}
	res, err := s.search.Search(r.Context(), q)
	if errors.Is(err, search.ErrTooDeep) {
		d.Error = err.Error()
		return s.render(w, r, http.StatusOK, "dataset_search.html", "Search the catalog", d)
	}
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	d.Result, d.Paging.Total = res, res.Total
	for _, field := range search.FacetFields {
		fv := facetView{Field: field, Label: facetLabels[field]}
		for _, f := range res.Facets[field] {
			active := slices.Contains(params[field], f.Value)
			fv.Values = append(fv.Values, facetValue{Value: f.Value, Count: f.Count, Active: active,
				URL: searchURL(params, field, f.Value, !active)})
		}
		d.Facets = append(d.Facets, fv)
	}
	if d.Paging.HasPrev() {
		d.PrevURL = pageURL(params, d.Paging.Prev())
	}
	if d.Paging.HasNext() && d.Paging.Next()*d.Paging.PerPage <= search.MaxWindow {
		d.NextURL = pageURL(params, d.Paging.Next())
	}
	return s.render(w, r, http.StatusOK, "dataset_search.html", "Search the catalog", d)
}

// searchURL is /dataset with params, value added to name (add) or removed from it, page 1.
func searchURL(params url.Values, name, value string, add bool) string {
	p := url.Values{}
	for k, vs := range params {
		p[k] = slices.Clone(vs)
	}
	if add {
		p.Add(name, value)
	} else {
		p[name] = slices.DeleteFunc(p[name], func(v string) bool { return v == value })
	}
	return "/dataset" + encodeQuery(p)
}

// pageURL is /dataset with params on page n.
func pageURL(params url.Values, n int) string {
	p := url.Values{}
	for k, vs := range params {
		p[k] = vs
	}
	p.Set("page", fmt.Sprint(n))
	return "/dataset" + encodeQuery(p)
}

// encodeQuery is "?" and p's non-empty values encoded, or "".
func encodeQuery(p url.Values) string {
	out := url.Values{}
	for k, vs := range p {
		for _, v := range vs {
			if v != "" {
				out.Add(k, v)
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return "?" + out.Encode()
}
