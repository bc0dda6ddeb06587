package sources

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// EnsureParams names a source by its URL, with what to create it with when it is missing and
// what to change on it when it exists: the one-shot CLI's way (`harvester harvest`), through
// jobs.Control.Start.
type EnsureParams struct {
	// URL is the source's location: an http(s) URL or an absolute file path. It keys the source:
	// an http(s) URL is put in its normal form (NormalURL), and a source whose URL names the
	// same catalog (ByURL) is the one used, however its URL was stored.
	URL        string
	Name       string // the source's name when it is created; default URL
	SourceType harvest.SourceType
	SchemaType harvest.SchemaType
	// CollectionParentURL is the parent record of a waf-collection source.
	CollectionParentURL string
	// WAFTimeZone, when not empty, replaces the source's WAF time zone (an IANA zone name,
	// already checked with harvest.ParseWAFTimeZone).
	WAFTimeZone string
	// Accept, AuthHeader and Options, when given (not empty, not nil), replace the source's
	// (store.SourceEnsureParams); otherwise it keeps its own.
	Accept     string
	AuthHeader *store.AuthHeader
	Options    map[string]string
	// Organization names the organization the source belongs to: the one with exactly this
	// name, created when there is none (EnsureOrganization). Empty leaves the source's
	// organization as it is.
	Organization string
	// Precedence, when not nil, replaces the source's precedence (already checked with
	// harvest.CheckPrecedence); nil keeps it (0 for a new source).
	Precedence *int
}

// Ensure returns the source of p.URL, created from p when missing (store.Store.SourceEnsure;
// the name defaults to the URL), attached to p.Organization and given p.Precedence when those
// are set, its other fields kept. A source moved to another organization has its search
// documents written again (Index), as Save does. It returns the source as it now is, or a
// store or index error.
func (s Sources) Ensure(ctx context.Context, p EnsureParams) (*store.Source, error) {
	p.URL = NormalURL(p.SourceType, p.URL)
	p.CollectionParentURL = normalParentURL(p.CollectionParentURL)
	name := p.Name
	if name == "" {
		name = p.URL
	}
	switch existing, err := ByURL(ctx, s.Store, p.URL); {
	case err == nil:
		p.URL = existing.URL // SourceEnsure finds a source by its URL as stored
	case !errors.Is(err, store.ErrNotFound):
		return nil, fmt.Errorf("find harvest source: %w", err)
	}
	src, err := s.Store.SourceEnsure(ctx, &store.SourceEnsureParams{Name: name, URL: p.URL, SourceType: p.SourceType,
		SchemaType: p.SchemaType, CollectionParentURL: p.CollectionParentURL, WAFTimeZone: p.WAFTimeZone,
		Accept: p.Accept, AuthHeader: p.AuthHeader, Options: p.Options})
	if err != nil {
		return nil, fmt.Errorf("find or create harvest source: %w", err)
	}
	fields := ParamsOf(src) // its other fields (settings, precedence) kept
	if p.Organization != "" {
		org, err := s.EnsureOrganization(ctx, p.Organization)
		if err != nil {
			return nil, err
		}
		fields.OrganizationID = org.ID
	}
	if p.Precedence != nil {
		fields.Precedence = *p.Precedence
	}
	if fields.OrganizationID == src.OrganizationID && fields.Precedence == src.Precedence {
		return src, nil
	}
	updated, err := s.update(ctx, src, fields)
	if err != nil {
		return nil, fmt.Errorf("update harvest source %s (organization %q, precedence %d): %w", src.ID,
			p.Organization, fields.Precedence, err)
	}
	return updated, nil
}

// ParamsOf is every editable field of src as stored, for a store.Store.SourceUpdate that
// changes only some of them (SourceUpdate replaces them all: a field left out would be reset).
func ParamsOf(src *store.Source) store.SourceInsertParams {
	return store.SourceInsertParams{OrganizationID: src.OrganizationID, Name: src.Name, URL: src.URL,
		SourceType: src.SourceType, SchemaType: src.SchemaType, Frequency: src.Frequency,
		NotificationEmails: src.NotificationEmails, NotificationFrequency: src.NotificationFrequency,
		CollectionParentURL: src.CollectionParentURL, WAFTimeZone: src.WAFTimeZone, Accept: src.Accept,
		AuthHeader: src.AuthHeader, Options: src.Options, Precedence: src.Precedence}
}
