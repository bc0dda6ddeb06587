package sources

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	"github.com/harvester-dev/harvester/store"
)

// SaveOrganization checks an organization's name (trimmed) and slug (store.CheckOrganization)
// and inserts it (id "") or updates the one with id. The error is an *Error (Invalid naming the
// bad fields, Conflict when another organization has the slug, NotFound when id names none) or
// a store error.
func (s Sources) SaveOrganization(ctx context.Context, id, name, slug string) (*store.Organization, error) {
	name = strings.TrimSpace(name)
	fields := Fields{}
	store.CheckOrganization(name, slug, fields)
	if err := fields.Err(); err != nil {
		return nil, err
	}
	if id == "" {
		o, err := s.Store.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: name, Slug: slug})
		return o, describe(err, "", slugTaken(slug))
	}
	o, err := s.Store.OrganizationUpdate(ctx, &store.OrganizationUpdateParams{ID: id, Name: name, Slug: slug})
	return o, describe(err, orgNotFound(id), slugTaken(slug))
}

// DeleteOrganization deletes the organization with id. The error is an *Error (NotFound;
// Conflict when it still has sources) or a store error.
func (s Sources) DeleteOrganization(ctx context.Context, id string) error {
	return describe(s.Store.OrganizationDelete(ctx, id), orgNotFound(id),
		"the organization still has harvest sources: delete or move them first")
}

var orgSlugDisallowed = regexp.MustCompile(`[^a-z0-9]+`)

// orgSlug makes an organization slug from its name, in the API's alphabet ([a-z0-9-]): accents
// dropped (NFKD, then ASCII only), every other run of characters one dash, at most
// store.MaxOrgSlugLen bytes; "organization" when nothing is left.
func orgSlug(name string) string {
	s := strings.Map(func(r rune) rune {
		if r > 127 {
			return -1
		}
		return r
	}, norm.NFKD.String(name))
	s = strings.Trim(orgSlugDisallowed.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > store.MaxOrgSlugLen {
		s = strings.TrimRight(s[:store.MaxOrgSlugLen], "-")
	}
	if s == "" {
		return "organization"
	}
	return s
}

// EnsureOrganization returns the organization named exactly name, creating it when there is
// none, with a slug made from the name ("-2", "-3", … appended while another organization has
// it). Names are compared as they are: "DHS" and "dhs" are two organizations. It fails for an
// empty name and with the store's error.
func (s Sources) EnsureOrganization(ctx context.Context, name string) (*store.Organization, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("organization name is empty")
	}
	for attempt := 1; ; attempt++ {
		org, err := s.organizationNamed(ctx, name)
		if err != nil || org != nil {
			return org, err
		}
		slug := orgSlug(name)
		if attempt > 1 {
			suffix := "-" + strconv.Itoa(attempt)
			slug = strings.TrimRight(slug[:min(len(slug), store.MaxOrgSlugLen-len(suffix))], "-") + suffix
		}
		org, err = s.Store.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: name, Slug: slug})
		switch {
		case err == nil:
			return org, nil
		case !errors.Is(err, store.ErrConflict) || attempt == 20:
			return nil, fmt.Errorf("create organization %q: %w", name, err)
		}
		// The slug is taken: by another organization, or by this one created meanwhile. Look again.
	}
}

// organizationNamed returns the organization named exactly name, or nil.
func (s Sources) organizationNamed(ctx context.Context, name string) (*store.Organization, error) {
	page := store.PageParams{Limit: 500}
	for {
		orgs, total, err := s.Store.OrganizationList(ctx, &page)
		if err != nil {
			return nil, fmt.Errorf("list organizations: %w", err)
		}
		for _, o := range orgs {
			if o.Name == name {
				return o, nil
			}
		}
		page.Offset += len(orgs)
		if len(orgs) == 0 || page.Offset >= total {
			return nil, nil
		}
	}
}
