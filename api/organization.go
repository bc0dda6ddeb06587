package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// organizationJSON is an organization as the API shows it.
type organizationJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"created_at"`
}

func organizationOf(o *store.Organization) organizationJSON {
	return organizationJSON{ID: o.ID, Name: o.Name, Slug: o.Slug, CreatedAt: o.CreatedAt.UTC()}
}

// organizationInput is the body of POST and PUT.
type organizationInput struct {
	Name string `json:"name"`
	Slug string `json:"slug"`
}

// decodeOrganization reads and checks the body of POST and PUT, naming every bad field.
func decodeOrganization(r *http.Request) (*organizationInput, error) {
	data, err := readBody(r)
	if err != nil {
		return nil, err
	}
	var in organizationInput
	fields := fieldErrors{}
	if err := decodeObject(data, &in, fields); err != nil {
		return nil, err
	}
	in.Name = strings.TrimSpace(in.Name) // the document's name pattern: a character that is not unicode.IsSpace
	store.CheckOrganization(in.Name, in.Slug, fields)
	return &in, fields.err()
}

func slugTaken(slug string) string {
	return fmt.Sprintf("an organization with slug %q already exists", slug)
}

func orgNotFound(id string) string { return fmt.Sprintf("organization %q not found", id) }

func (s *server) organizationList(w http.ResponseWriter, r *http.Request) error {
	fields := fieldErrors{}
	pg := parsePaging(readQuery(r, fields, pagingParams...), fields)
	if err := fields.err(); err != nil {
		return err
	}
	p := pg.params()
	orgs, total, err := s.store.OrganizationList(r.Context(), &p)
	if err != nil {
		return fmt.Errorf("list organizations: %w", err)
	}
	items := make([]organizationJSON, 0, len(orgs))
	for _, o := range orgs {
		items = append(items, organizationOf(o))
	}
	return writeJSON(w, http.StatusOK, newList(items, total, pg))
}

func (s *server) organizationCreate(w http.ResponseWriter, r *http.Request) error {
	in, err := decodeOrganization(r)
	if err != nil {
		return err
	}
	o, err := SaveOrganization(r.Context(), s.store, "", in.Name, in.Slug)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/v1/organizations/"+o.ID)
	return writeJSON(w, http.StatusCreated, organizationOf(o))
}

// SaveOrganization checks an organization's name (trimmed) and slug (store.CheckOrganization)
// and inserts it (id "") or updates the one with id; the API's POST and PUT and the web UI's
// form call it. The error is a 422 naming the bad fields, a 409 when another organization has
// the slug, a 404 when id names none, or a store error: ErrorOf reads each.
func SaveOrganization(ctx context.Context, st store.Store, id, name, slug string) (*store.Organization, error) {
	name = strings.TrimSpace(name)
	fields := fieldErrors{}
	store.CheckOrganization(name, slug, fields) // again for the web form; the API's decodeOrganization did
	if err := fields.err(); err != nil {
		return nil, err
	}
	if id == "" {
		o, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: name, Slug: slug})
		return o, describe(err, "", slugTaken(slug))
	}
	o, err := st.OrganizationUpdate(ctx, &store.OrganizationUpdateParams{ID: id, Name: name, Slug: slug})
	return o, describe(err, orgNotFound(id), slugTaken(slug))
}

// DeleteOrganization deletes the organization with id; the API's DELETE and the web UI call
// it. The error is a 404, a 409 when it still has sources, or a store error: ErrorOf reads each.
func DeleteOrganization(ctx context.Context, st store.Store, id string) error {
	return describe(st.OrganizationDelete(ctx, id), orgNotFound(id),
		"the organization still has harvest sources: delete or move them first")
}

func (s *server) organizationGet(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	o, err := s.store.OrganizationGet(r.Context(), id)
	if err != nil {
		return describe(err, orgNotFound(id), "")
	}
	return writeJSON(w, http.StatusOK, organizationOf(o))
}

func (s *server) organizationUpdate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	in, err := decodeOrganization(r)
	if err != nil {
		return err
	}
	o, err := SaveOrganization(r.Context(), s.store, id, in.Name, in.Slug)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, organizationOf(o))
}

func (s *server) organizationDelete(w http.ResponseWriter, r *http.Request) error {
	if err := DeleteOrganization(r.Context(), s.store, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
