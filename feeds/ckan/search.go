package ckan

// SearchResult is package_search's result.
type SearchResult struct {
	Count int `json:"count"`
	// Facets is the old shape of the facet counts: by facet field, value → count.
	Facets       map[string]map[string]int `json:"facets"`
	Results      []*Package                `json:"results"`
	Sort         string                    `json:"sort"`
	SearchFacets map[string]SearchFacet    `json:"search_facets"`
}

// SearchFacet is one facet field of search_facets: its values, most frequent first.
type SearchFacet struct {
	Items []FacetItem `json:"items"`
	Title string      `json:"title"`
}

// FacetItem is one value of a facet: name is what an fq clause takes, display_name what a
// page shows (an organization's title; the value itself for the others).
type FacetItem struct {
	Count       int    `json:"count"`
	DisplayName string `json:"display_name"`
	Name        string `json:"name"`
}

// FacetFields maps the facet.field values this API answers to the search index's facets.
var FacetFields = map[string]string{
	FieldOrganization: "organization",
	FieldTags:         "keyword",
	FieldResFormat:    "format",
	FieldGroups:       "theme",
}

// DefaultFacetLimit is facet.limit's default (CKAN's search.facets.default is 10 for pages;
// the API's facet.limit defaults to 50).
const DefaultFacetLimit = 50

// AddFacet sets facet field's items in r, in both shapes.
func (r *SearchResult) AddFacet(field string, items []FacetItem) {
	counts := map[string]int{}
	for _, it := range items {
		counts[it.Name] = it.Count
	}
	r.Facets[field] = counts
	r.SearchFacets[field] = SearchFacet{Items: items, Title: field}
}

// NewSearchResult is an empty result of sort.
func NewSearchResult(sort string) *SearchResult {
	return &SearchResult{Facets: map[string]map[string]int{}, Results: []*Package{}, Sort: sort,
		SearchFacets: map[string]SearchFacet{}}
}
