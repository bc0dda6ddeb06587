package jobs

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

// maxOrgSlugLen is the longest organization slug (the API's limit, Data.gov's varchar(100)).
const maxOrgSlugLen = 100

var orgSlugDisallowed = regexp.MustCompile(`[^a-z0-9]+`)

// orgSlug makes an organization slug from its name, in the API's alphabet ([a-z0-9-]): accents
// dropped (NFKD, then ASCII only), every other run of characters one dash, at most 100 bytes;
// "organization" when nothing is left.
func orgSlug(name string) string {
	s := strings.Map(func(r rune) rune {
		if r > 127 {
			return -1
		}
		return r
	}, norm.NFKD.String(name))
	s = strings.Trim(orgSlugDisallowed.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > maxOrgSlugLen {
		s = strings.TrimRight(s[:maxOrgSlugLen], "-")
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
func EnsureOrganization(ctx context.Context, st store.Store, name string) (*store.Organization, error) {
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("organization name is empty")
	}
	for attempt := 1; ; attempt++ {
		org, err := organizationNamed(ctx, st, name)
		if err != nil || org != nil {
			return org, err
		}
		slug := orgSlug(name)
		if attempt > 1 {
			suffix := "-" + strconv.Itoa(attempt)
			slug = strings.TrimRight(slug[:min(len(slug), maxOrgSlugLen-len(suffix))], "-") + suffix
		}
		org, err = st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: name, Slug: slug})
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
func organizationNamed(ctx context.Context, st store.Store, name string) (*store.Organization, error) {
	page := store.PageParams{Limit: 500}
	for {
		orgs, total, err := st.OrganizationList(ctx, &page)
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

// attachOrganization makes src belong to the organization named name (created when missing),
// keeping its other fields, and returns the source as it now is.
func attachOrganization(ctx context.Context, st store.Store, src *store.Source, name string) (*store.Source, error) {
	org, err := EnsureOrganization(ctx, st, name)
	if err != nil {
		return nil, err
	}
	if src.OrganizationID == org.ID {
		return src, nil
	}
	p := sourceParamsOf(src) // its other fields (settings, precedence) kept
	p.OrganizationID = org.ID
	updated, err := st.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: p})
	if err != nil {
		return nil, fmt.Errorf("attach the source to organization %q: %w", name, err)
	}
	return updated, nil
}
