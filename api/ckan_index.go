package api

import (
	"context"
	"fmt"
	"strings"

	"github.com/harvester-dev/harvester/feeds/ckan"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// ckanIndexQuery is the search query of cs (without its page), and the organizations by
// lower-case name (to name organization facets by slug). A nil query: a clause names an
// organization there is none of, so nothing matches.
func (s *server) ckanIndexQuery(ctx context.Context, cs *ckanSearch) (*search.Query, map[string]*store.Organization, error) {
	orgs, err := s.ckanOrganizationsByName(ctx)
	if err != nil {
		return nil, nil, err
	}
	q := &search.Query{Text: cs.q, FacetSize: cs.facetLimit}
	for _, c := range cs.clauses {
		if c.Exclude {
			return nil, nil, ckan.SearchQueryError(fmt.Sprintf("-%s: is not supported yet", c.Field))
		}
		switch c.Field {
		case ckan.FieldOrganization, ckan.FieldOwnerOrg:
			o := ckanOrgOf(orgs, c)
			if o == nil || q.Organization != "" && q.Organization != o.Name {
				return nil, orgs, nil
			}
			q.Organization = o.Name
		case ckan.FieldTags:
			if q.Keyword != "" && !strings.EqualFold(q.Keyword, c.Value) {
				return nil, nil, ckan.SearchQueryError("two tags: clauses are not supported yet")
			}
			q.Keyword = c.Value
		default:
			return nil, nil, ckan.SearchQueryError(fmt.Sprintf("%s: is not supported yet", c.Field))
		}
	}
	if cs.sort == ckan.SortModified || cs.sort == ckan.SortTitle && cs.q != "" {
		return nil, nil, ckan.SearchQueryError(fmt.Sprintf("sort %q is not supported yet", cs.sort))
	}
	return q, orgs, nil
}
