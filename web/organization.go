package web

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/harvester-dev/harvester/store"
)

const listPerPage = 20

type organizationListData struct {
	Items  []*store.Organization
	Paging paging
}

func (s *server) organizationList(w http.ResponseWriter, r *http.Request) error {
	pg := pageOf(r, listPerPage)
	p := pg.params()
	orgs, total, err := s.store.OrganizationList(r.Context(), &p)
	if err != nil {
		return fmt.Errorf("list organizations: %w", err)
	}
	pg.Total = total
	return s.render(w, r, http.StatusOK, "organizations.html", "Organizations", organizationListData{Items: orgs, Paging: pg})
}

type organizationViewData struct {
	Org      *store.Organization
	Sources  []*store.SourceSummary
	Datasets int
	Paging   paging
}

func (s *server) organizationView(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	o, err := s.store.OrganizationGet(r.Context(), id)
	if err != nil {
		return orgErr(err, id)
	}
	pg := pageOf(r, listPerPage)
	rows, total, err := s.store.SourceSummaryList(r.Context(), &store.SourceSummaryListParams{OrganizationID: id,
		Now: s.now(), PageParams: pg.params()})
	if err != nil {
		return fmt.Errorf("list sources of organization %s: %w", id, err)
	}
	pg.Total = total
	n, err := s.store.OrganizationDatasetCount(r.Context(), id)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "organization.html", o.Name,
		organizationViewData{Org: o, Sources: rows, Datasets: n, Paging: pg})
}

func orgErr(err error, id string) error {
	if isNotFound(err) {
		return notFound("organization %q not found", id)
	}
	return err
}

type organizationFormData struct {
	Org    *store.Organization // nil: a new one
	Name   string
	Slug   string
	Errors formErrors
}

func (s *server) organizationNew(w http.ResponseWriter, r *http.Request) error {
	return s.render(w, r, http.StatusOK, "organization_form.html", "Add an organization", organizationFormData{Errors: formErrors{}})
}

func (s *server) organizationEdit(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	o, err := s.store.OrganizationGet(r.Context(), id)
	if err != nil {
		return orgErr(err, id)
	}
	return s.render(w, r, http.StatusOK, "organization_form.html", "Edit "+o.Name,
		organizationFormData{Org: o, Name: o.Name, Slug: o.Slug, Errors: formErrors{}})
}

func (s *server) organizationCreate(w http.ResponseWriter, r *http.Request) error {
	return s.organizationSave(w, r, nil)
}

func (s *server) organizationUpdate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	o, err := s.store.OrganizationGet(r.Context(), id)
	if err != nil {
		return orgErr(err, id)
	}
	return s.organizationSave(w, r, o)
}

// organizationSave sends the form to POST or PUT /api/v1/organizations; a 422 or 409 shows the
// form again with the API's messages.
func (s *server) organizationSave(w http.ResponseWriter, r *http.Request, old *store.Organization) error {
	d := organizationFormData{Org: old, Name: r.PostFormValue("name"), Slug: strings.TrimSpace(r.PostFormValue("slug")),
		Errors: formErrors{}}
	body := map[string]string{"name": d.Name, "slug": d.Slug}
	method, path, title := http.MethodPost, "/api/v1/organizations", "Add an organization"
	if old != nil {
		method, path, title = http.MethodPut, "/api/v1/organizations/"+old.ID, "Edit "+old.Name
	}
	a, err := s.callAPI(r, method, path, body)
	if err != nil {
		return err
	}
	switch {
	case a.Status == http.StatusNotFound:
		return notFound("%s", a.Error)
	case a.Status == http.StatusConflict:
		d.Errors["slug"] = a.Error
	case a.Status >= 400:
		d.Errors.merge(a.Fields)
		if len(a.Fields) == 0 {
			d.Errors[""] = a.Error
		}
	}
	if len(d.Errors) > 0 {
		return s.render(w, r, http.StatusUnprocessableEntity, "organization_form.html", title, d)
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := jsonDecode(a.Body, &created); err != nil {
		return err
	}
	http.Redirect(w, r, "/organizations/"+created.ID, http.StatusSeeOther)
	return nil
}

type organizationDeleteData struct {
	Org     *store.Organization
	Sources int
	Error   string
}

func (s *server) organizationDeleteConfirm(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	o, err := s.store.OrganizationGet(r.Context(), id)
	if err != nil {
		return orgErr(err, id)
	}
	_, n, err := s.store.SourceList(r.Context(), &store.SourceListParams{OrganizationID: id, PageParams: store.PageParams{Limit: 1}})
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "organization_delete.html", "Delete "+o.Name, organizationDeleteData{Org: o, Sources: n})
}

// organizationDelete deletes through the API; its 409 (the organization still has sources)
// is shown on the confirmation page with what to do.
func (s *server) organizationDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	o, err := s.store.OrganizationGet(r.Context(), id)
	if err != nil {
		return orgErr(err, id)
	}
	a, err := s.callAPI(r, http.MethodDelete, "/api/v1/organizations/"+id, nil)
	if err != nil {
		return err
	}
	if a.Status >= 400 {
		_, n, _ := s.store.SourceList(r.Context(), &store.SourceListParams{OrganizationID: id, PageParams: store.PageParams{Limit: 1}})
		return s.render(w, r, a.Status, "organization_delete.html", "Delete "+o.Name,
			organizationDeleteData{Org: o, Sources: n, Error: a.Error})
	}
	http.Redirect(w, r, "/organizations", http.StatusSeeOther)
	return nil
}
