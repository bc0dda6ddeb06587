package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// Sources checks and writes harvest sources. The API's POST, PUT and DELETE of a source and
// the web UI's source pages call it (typed, in process), so that both check a source the same
// way and say the same: the source rule table (harvest.SourceFields.Check, through
// store.CheckSource), then what needs the store or the network.
type Sources struct {
	Store store.Store
	// AllowPrivate accepts source URLs on loopback, private and link-local addresses
	// (--allow-private-sources; fetch.Config.AllowPrivate).
	AllowPrivate bool
	// Index, when not nil, is the search index: a source moved to another organization has
	// its datasets' documents written again (search.Reindex), as they carry the organization
	// (the search's organization filter and facet). nil: no index to keep.
	Index search.Index
}

func (s *server) sources() Sources {
	return Sources{Store: s.store, AllowPrivate: s.fetch.AllowPrivate, Index: s.search}
}

// Save checks p and inserts it (old nil) or replaces old with it, and returns the source as
// stored. schemaType is the schema type as given ("" for the type's default); fields holds
// what the caller already found wrong (e.g. a form's malformed line), by field name. A good url
// or collection_parent_url is stored in its normal form (harvest.NormalizeURL: RFC 3986 §6; a
// portal source's url as its portal's base, a csw source's as its endpoint:
// harvest.NormalizeSourceURL). The error is a 422 naming every bad field, a 409 when another source has the URL (checkURLTaken), a 404 when
// old is gone, or a store error: ErrorOf reads each.
func (v Sources) Save(ctx context.Context, old *store.Source, p *store.SourceInsertParams, schemaType string,
	fields map[string]string) (*store.Source, error) {
	v.check(ctx, p, schemaType, old, fields)
	if err := fieldErrors(fields).err(); err != nil {
		return nil, err
	}
	return v.write(ctx, old, p)
}

// write inserts p (old nil) or replaces old with it, after checkURLTaken.
func (v Sources) write(ctx context.Context, old *store.Source, p *store.SourceInsertParams) (*store.Source, error) {
	except := ""
	if old != nil {
		except = old.ID
	}
	if err := v.checkURLTaken(ctx, p.URL, except); err != nil {
		return nil, err
	}
	if old != nil {
		src, err := v.Store.SourceUpdate(ctx, &store.SourceUpdateParams{ID: old.ID, SourceInsertParams: *p})
		if err != nil {
			return nil, describe(err, sourceNotFound(old.ID), urlTaken(p.URL))
		}
		return src, v.reindexMoved(ctx, old, src)
	}
	src, err := v.Store.SourceInsert(ctx, p)
	if errors.Is(err, store.ErrNotFound) { // the organization was deleted since check looked
		return nil, (fieldErrors{"organization_id": fmt.Sprintf("no organization has id %q", p.OrganizationID)}).err()
	}
	return src, describe(err, "", urlTaken(p.URL))
}

// reindexMoved writes the source's documents again when the update moved it to another
// organization (or out of one, or into one): SYNC rewrites only the documents of records that
// change, and the others would keep the old organization's name until a reindex. The harvest
// command does the same after a run that moved its source (--organization). It refreshes the
// index, so that a search right after the answer sees the move. An error is a 500 saying the
// source was saved and how to finish by hand.
func (v Sources) reindexMoved(ctx context.Context, old, src *store.Source) error {
	if v.Index == nil || old.OrganizationID == src.OrganizationID {
		return nil
	}
	_, err := search.Reindex(ctx, v.Store, v.Index, src.ID)
	if err == nil {
		err = v.Index.Refresh(ctx)
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
// their normal form.
func (v Sources) check(ctx context.Context, p *store.SourceInsertParams, schemaType string, old *store.Source,
	fields fieldErrors) {
	checkSettings(p, fields)
	store.CheckSource(p, schemaType, fields)
	keepSecret(p, old, fields)
	if _, bad := fields["url"]; !bad {
		p.URL, _ = harvest.NormalizeSourceURL(p.SourceType, p.URL) // store.CheckSource accepted it
	}
	if _, bad := fields["collection_parent_url"]; !bad && p.CollectionParentURL != "" {
		p.CollectionParentURL, _ = harvest.NormalizeURL(p.CollectionParentURL)
	}
	v.checkPublic(ctx, "url", p.URL, fields)
	v.checkPublic(ctx, "collection_parent_url", p.CollectionParentURL, fields)
	if p.OrganizationID != "" {
		if _, err := v.Store.OrganizationGet(ctx, p.OrganizationID); errors.Is(err, store.ErrNotFound) {
			fields.add("organization_id", "no organization has id %q", p.OrganizationID)
		}
	}
}

// checkURLTaken returns a 409 naming the source, other than the one with id except, whose URL
// names the same catalog as url (jobs.SourceByURL), or nil. The unique index on
// harvest_source.url stays the last word when two requests race.
func (v Sources) checkURLTaken(ctx context.Context, url, except string) error {
	src, err := jobs.SourceByURL(ctx, v.Store, url)
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
	return errorf(http.StatusConflict, "%s: harvest source %s", msg, src.ID)
}

// checkPublic records in fields a source URL whose host resolves to an address the fetches
// refuse (fetch.CheckSourceAddress), unless private sources are allowed: such a source would
// only fail when it runs. A field already found bad, or empty, is not looked at.
func (v Sources) checkPublic(ctx context.Context, field, raw string, fields fieldErrors) {
	if _, bad := fields[field]; bad || raw == "" || v.AllowPrivate {
		return
	}
	if err := fetch.CheckSourceAddress(ctx, raw); err != nil {
		fields.add(field, "%q is refused: %v. Sources on loopback, private and link-local addresses need a server "+
			"started with --allow-private-sources (HARVESTER_ALLOW_PRIVATE_SOURCES=1)", raw, err)
	}
}

// Delete deletes the source with id. The error is a 404, a 409 saying why (its live datasets,
// or its unfinished job), or a store error: ErrorOf reads each.
func (v Sources) Delete(ctx context.Context, id string) error {
	err := v.Store.SourceDelete(ctx, id)
	if errors.Is(err, store.ErrConflict) {
		msg := "the harvest source has an unfinished job: wait for it to end or cancel it"
		if n, err := v.Store.DatasetCount(ctx, id); err == nil && n > 0 {
			msg = fmt.Sprintf("the harvest source has %d live datasets: run a clear job first", n)
		} else if held, err := v.Store.DatasetCountHeld(ctx, id); err == nil && held > 0 {
			msg = fmt.Sprintf("the harvest source has %d datasets held as cross-source duplicates: run a clear job first", held)
		}
		return describe(err, "", msg)
	}
	return describe(err, sourceNotFound(id), "")
}

// ErrorOf says what an error of Sources or SaveOrganization means to a client: the HTTP status
// the API answers, its message, and the bad fields of a 422 (else nil). A status of 500 means
// the error is not the client's: its message says nothing of the cause.
func ErrorOf(err error) (status int, message string, fields map[string]string) {
	status, body := errorStatus(err)
	return status, body.Error, body.Fields
}
