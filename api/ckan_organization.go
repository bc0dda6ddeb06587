package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/harvester-dev/harvester/feeds/ckan"
	"github.com/harvester-dev/harvester/store"
)

// CKAN's caps on organization_list (ckan.group_and_organization_list_max and
// ..._all_fields_max): a larger limit is cut to them.
const (
	ckanOrgListMax          = 1000
	ckanOrgListAllFieldsMax = 25
)

// ckanOrganizationList answers organization_list: the organizations' names (slugs) by title,
// or, with all_fields, their dicts with package_count; limit (at most 1000 names, 25 dicts,
// as CKAN caps them) and offset page them.
func (s *server) ckanOrganizationList(r *http.Request, p ckanParams) (any, error) {
	bad := map[string][]string{}
	all := p.bool("all_fields")
	max := ckanOrgListMax
	if all {
		max = ckanOrgListAllFieldsMax
	}
	limit, offset := p.int("limit", max, bad), p.int("offset", 0, bad)
	if len(bad) > 0 {
		return nil, ckan.Validation(bad)
	}
	limit = min(limit, max)
	if limit == 0 {
		return []any{}, nil
	}
	orgs, _, err := s.store.OrganizationList(r.Context(), &store.PageParams{Limit: limit, Offset: offset})
	if err != nil {
		return nil, fmt.Errorf("list organizations: %w", err)
	}
	if !all {
		names := make([]string, 0, len(orgs))
		for _, o := range orgs {
			names = append(names, o.Slug)
		}
		return names, nil
	}
	out := make([]*ckan.Organization, 0, len(orgs))
	for _, o := range orgs {
		co, err := s.ckanOrganizationDict(r.Context(), o)
		if err != nil {
			return nil, err
		}
		out = append(out, co)
	}
	return out, nil
}

// ckanOrganizationShow answers organization_show: the organization named by id (its id, its
// name = slug, or its title), with package_count; CKAN's 404 when there is none. Its
// datasets are not included (include_datasets is read as false): package_search with
// fq=organization:<name> pages them.
func (s *server) ckanOrganizationShow(r *http.Request, p ckanParams) (any, error) {
	ref := strings.TrimSpace(p["id"])
	if ref == "" {
		return nil, ckan.Validation(map[string][]string{"id": {"Missing value"}})
	}
	o, err := s.ckanOrganizationFind(r.Context(), ref)
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, ckan.NotFound("Organization was not found.")
	}
	return s.ckanOrganizationDict(r.Context(), o)
}

// ckanOrganizationDict is o as CKAN shows it, with its live datasets' count.
func (s *server) ckanOrganizationDict(ctx context.Context, o *store.Organization) (*ckan.Organization, error) {
	st, err := s.store.DatasetPageStats(ctx, &store.DatasetPageParams{OrganizationID: o.ID})
	if err != nil {
		return nil, fmt.Errorf("count datasets of organization %s: %w", o.ID, err)
	}
	return ckan.FromOrganization(o, st.Count), nil
}

// ckanOrganizationFind returns the organization whose id or slug is ref, else whose name is
// ref (case ignored); nil when there is none. It reads the organizations a page at a time
// (they are few: one per publisher).
func (s *server) ckanOrganizationFind(ctx context.Context, ref string) (*store.Organization, error) {
	var byName *store.Organization
	for offset := 0; ; offset += store.DefaultLimit {
		orgs, _, err := s.store.OrganizationList(ctx, &store.PageParams{Limit: store.DefaultLimit, Offset: offset})
		if err != nil {
			return nil, fmt.Errorf("list organizations: %w", err)
		}
		for _, o := range orgs {
			if o.ID == ref || o.Slug == ref {
				return o, nil
			}
			if byName == nil && strings.EqualFold(o.Name, ref) {
				byName = o
			}
		}
		if len(orgs) < store.DefaultLimit {
			return byName, nil
		}
	}
}

// ckanOrganizationsByName returns every organization by its lower-case name.
func (s *server) ckanOrganizationsByName(ctx context.Context) (map[string]*store.Organization, error) {
	out := map[string]*store.Organization{}
	for offset := 0; ; offset += store.DefaultLimit {
		orgs, _, err := s.store.OrganizationList(ctx, &store.PageParams{Limit: store.DefaultLimit, Offset: offset})
		if err != nil {
			return nil, fmt.Errorf("list organizations: %w", err)
		}
		for _, o := range orgs {
			out[strings.ToLower(o.Name)] = o
		}
		if len(orgs) < store.DefaultLimit {
			return out, nil
		}
	}
}

// ckanOrgOf is the organization an organization: or owner_org: clause names (organization:
// its slug, id or name; owner_org: its id), or nil.
func ckanOrgOf(byName map[string]*store.Organization, c ckan.Clause) *store.Organization {
	for _, o := range byName {
		if o.ID == c.Value || c.Field == ckan.FieldOrganization && o.Slug == c.Value {
			return o
		}
	}
	if c.Field == ckan.FieldOrganization {
		return byName[strings.ToLower(c.Value)]
	}
	return nil
}
