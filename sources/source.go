package sources

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// Sources checks and writes harvest sources and organizations. It is a small value: build one
// where it is needed, e.g. Sources{Store: st, Index: idx}.
type Sources struct {
	// Store is required.
	Store store.Store
	// AllowPrivate accepts source URLs on loopback, private and link-local addresses
	// (--allow-private-sources; fetch.Config.AllowPrivate).
	AllowPrivate bool
	// Index, when not nil, is the search index: a source moved to another organization has
	// its datasets' documents written again (search.Reindex), as they carry the organization
	// (the search's organization filter and facet). nil: no index to keep.
	Index search.Index
}

// Save checks p and inserts it (old nil) or replaces old with it, and returns the source as
// stored. schemaType is the schema type as given ("" for the type's default); fields holds
// what the caller already found wrong (e.g. a malformed JSON member or form line), by field
// name, and gets what Save finds. A good url or collection_parent_url is stored in its normal
// form (Normalize). A source moved to another organization has its search documents written
// again (Index). The error is an *Error: Invalid naming every bad field, Conflict when another
// source has the URL (the same catalog: ByURL), NotFound when old is gone; or a store or index
// error.
func (s Sources) Save(ctx context.Context, old *store.Source, p *store.SourceInsertParams, schemaType string,
	fields Fields) (*store.Source, error) {
	if fields == nil {
		fields = Fields{}
	}
	s.check(ctx, p, schemaType, old, fields)
	if err := fields.Err(); err != nil {
		return nil, err
	}
	return s.write(ctx, old, p)
}

// write inserts p (old nil) or replaces old with it, after checkURLTaken.
func (s Sources) write(ctx context.Context, old *store.Source, p *store.SourceInsertParams) (*store.Source, error) {
	except := ""
	if old != nil {
		except = old.ID
	}
	if err := s.checkURLTaken(ctx, p.URL, except); err != nil {
		return nil, err
	}
	if old != nil {
		return s.update(ctx, old, *p)
	}
	src, err := s.Store.SourceInsert(ctx, p)
	if errors.Is(err, store.ErrNotFound) { // the organization was deleted since check looked
		return nil, Fields{"organization_id": fmt.Sprintf("no organization has id %q", p.OrganizationID)}.Err()
	}
	return src, describe(err, "", urlTaken(p.URL))
}

// update replaces old's fields with p and writes its search documents again when that moved it
// to another organization (reindexMoved).
func (s Sources) update(ctx context.Context, old *store.Source, p store.SourceInsertParams) (*store.Source, error) {
	src, err := s.Store.SourceUpdate(ctx, &store.SourceUpdateParams{ID: old.ID, SourceInsertParams: p})
	if err != nil {
		return nil, describe(err, SourceNotFound(old.ID), urlTaken(p.URL))
	}
	return src, s.reindexMoved(ctx, old, src)
}

// reindexMoved writes the source's documents again when the update moved it to another
// organization (or out of one, or into one): SYNC rewrites only the documents of records that
// change, and the others would keep the old organization's name until a reindex. It refreshes
// the index, so that a search right after sees the move. Its error says the source was saved
// and how to finish by hand.
func (s Sources) reindexMoved(ctx context.Context, old, src *store.Source) error {
	if s.Index == nil || old.OrganizationID == src.OrganizationID {
		return nil
	}
	_, err := search.Reindex(ctx, s.Store, s.Index, src.ID)
	if err == nil {
		err = s.Index.Refresh(ctx)
	}
	if err != nil {
		return fmt.Errorf("harvest source %s was saved, but writing its datasets' search documents under its new "+
			"organization failed (run harvester reindex --source %s): %w", src.ID, src.ID, err)
	}
	return nil
}

// check records in fields what is wrong with p: its accept and auth header (checkSettings),
// the rule table's and store's rules (store.CheckSource, which parses schemaType into p), a
// SecretMask auth header value with nothing stored to keep (keepSecret), URLs the fetches
// would refuse (checkPublic) and an organization that does not exist. Good URLs are put in
// their normal form (Normalize).
func (s Sources) check(ctx context.Context, p *store.SourceInsertParams, schemaType string, old *store.Source,
	fields Fields) {
	checkSettings(p, fields)
	store.CheckSource(p, schemaType, fields)
	keepSecret(p, old, fields)
	if _, bad := fields["url"]; !bad {
		p.URL = NormalURL(p.SourceType, p.URL)
	}
	if _, bad := fields["collection_parent_url"]; !bad {
		p.CollectionParentURL = normalParentURL(p.CollectionParentURL)
	}
	s.checkPublic(ctx, "url", p.URL, fields)
	s.checkPublic(ctx, "collection_parent_url", p.CollectionParentURL, fields)
	if p.OrganizationID != "" {
		if _, err := s.Store.OrganizationGet(ctx, p.OrganizationID); errors.Is(err, store.ErrNotFound) {
			fields.Add("organization_id", "no organization has id %q", p.OrganizationID)
		}
	}
}

// checkURLTaken returns a Conflict naming the source, other than the one with id except, whose
// URL names the same catalog as url (ByURL), or nil. The unique index on harvest_source.url
// stays the last word when two writes race.
func (s Sources) checkURLTaken(ctx context.Context, url, except string) error {
	src, err := ByURL(ctx, s.Store, url)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return nil
	case err != nil:
		return err
	case src.ID == except:
		return nil
	}
	msg := urlTaken(src.URL)
	if src.URL != url {
		msg = fmt.Sprintf("a harvest source with url %q (the same catalog as %q) already exists", src.URL, url)
	}
	return &Error{Kind: Conflict, Message: fmt.Sprintf("%s: harvest source %s", msg, src.ID)}
}

// checkPublic records in fields a source URL whose host resolves to an address the fetches
// refuse (fetch.CheckSourceAddress), unless private sources are allowed: such a source would
// only fail when it runs. A field already found bad, or empty, is not looked at.
func (s Sources) checkPublic(ctx context.Context, field, raw string, fields Fields) {
	if _, bad := fields[field]; bad || raw == "" || s.AllowPrivate {
		return
	}
	if err := fetch.CheckSourceAddress(ctx, raw); err != nil {
		fields.Add(field, "%q is refused: %v. Sources on loopback, private and link-local addresses need a server "+
			"started with --allow-private-sources (HARVESTER_ALLOW_PRIVATE_SOURCES=1)", raw, err)
	}
}

// Delete deletes the source with id. The error is an *Error (NotFound; Conflict saying why:
// its live datasets, its datasets held as duplicates, or its unfinished job) or a store error.
func (s Sources) Delete(ctx context.Context, id string) error {
	err := s.Store.SourceDelete(ctx, id)
	if errors.Is(err, store.ErrConflict) {
		msg := "the harvest source has an unfinished job: wait for it to end or cancel it"
		if n, err := s.Store.DatasetCount(ctx, id); err == nil && n > 0 {
			msg = fmt.Sprintf("the harvest source has %d live datasets: run a clear job first", n)
		} else if held, err := s.Store.DatasetCountHeld(ctx, id); err == nil && held > 0 {
			msg = fmt.Sprintf("the harvest source has %d datasets held as cross-source duplicates: run a clear job first", held)
		}
		return describe(err, "", msg)
	}
	return describe(err, SourceNotFound(id), "")
}
