package api

import (
	"context"

	"github.com/harvester-dev/harvester/feeds/ckan"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// ckanFilterFields maps fq fields to the search index's filter fields.
var ckanFilterFields = map[string]string{
	ckan.FieldTags:      search.FieldKeyword,
	ckan.FieldResFormat: search.FieldFormat,
	ckan.FieldGroups:    search.FieldTheme,
}

// ckanSorts maps package_search's sorts to the index's.
var ckanSorts = map[string]string{
	ckan.SortRelevance: search.SortRelevance,
	ckan.SortModified:  search.SortModified,
	ckan.SortTitle:     search.SortTitle,
}

// ckanIndexQuery is the search query of cs (without its page), and the organizations by
// lower-case name (to name organization facets by slug). Each fq clause is a filter on its
// field (organization and owner_org on the organization's name, tags on keyword, res_format
// on format, groups on theme), excluded with "-". A nil query: a clause keeps an organization
// there is none of, so nothing matches.
func (s *server) ckanIndexQuery(ctx context.Context, cs *ckanSearch) (*search.Query, map[string]*store.Organization, error) {
	orgs, err := s.ckanOrganizationsByName(ctx)
	if err != nil {
		return nil, nil, err
	}
	q := &search.Query{Text: cs.q, FacetSize: cs.facetLimit, Sort: ckanSorts[cs.sort]}
	for _, c := range cs.clauses {
		f := search.Filter{Field: ckanFilterFields[c.Field], Value: c.Value, Exclude: c.Exclude}
		if c.Field == ckan.FieldOrganization || c.Field == ckan.FieldOwnerOrg {
			o := ckanOrgOf(orgs, c)
			switch {
			case o == nil && !c.Exclude:
				return nil, orgs, nil
			case o == nil:
				continue // excluding an organization there is none of excludes nothing
			}
			f.Field, f.Value = search.FieldOrganization, o.Name
		}
		q.Filters = append(q.Filters, f)
	}
	return q, orgs, nil
}
