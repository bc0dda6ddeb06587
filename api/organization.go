package api

import (
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
	o, err := s.sources().SaveOrganization(r.Context(), "", in.Name, in.Slug)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/v1/organizations/"+o.ID)
	return writeJSON(w, http.StatusCreated, organizationOf(o))
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
	o, err := s.sources().SaveOrganization(r.Context(), id, in.Name, in.Slug)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, organizationOf(o))
}

func (s *server) organizationDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.sources().DeleteOrganization(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
