package web

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/harvester-dev/harvester/sources"
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
	// Duplicates are the cross-source duplicates with a source of the organization on either side.
	Duplicates duplicateList
	// Quality is the organization's recorded metadata quality, with its trend.
	Quality *qualityPanel
}

func (s *server) organizationView(w http.ResponseWriter, r *http.Request) error {
	o, err := pathGet(r, "organization", s.store.OrganizationGet)
	if err != nil {
		return err
	}
	pg := pageOf(r, listPerPage)
	rows, total, err := s.store.SourceSummaryList(r.Context(), &store.SourceSummaryListParams{OrganizationID: o.ID,
		Now: s.now(), PageParams: pg.params()})
	if err != nil {
		return fmt.Errorf("list sources of organization %s: %w", o.ID, err)
	}
	pg.Total = total
	n, err := s.store.OrganizationDatasetCount(r.Context(), o.ID)
	if err != nil {
		return err
	}
	dups, err := s.duplicates(r.Context(), store.CrossSourceDuplicateListParams{OrganizationID: o.ID},
		"/organizations/"+o.ID+"/duplicates", "")
	if err != nil {
		return err
	}
	q, err := s.qualityPanelOf(r.Context(), store.QualityScopeOrganization, o.ID)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "organization.html", o.Name,
		organizationViewData{Org: o, Sources: rows, Datasets: n, Paging: pg, Duplicates: dups, Quality: q})
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
	o, err := pathGet(r, "organization", s.store.OrganizationGet)
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "organization_form.html", "Edit "+o.Name,
		organizationFormData{Org: o, Name: o.Name, Slug: o.Slug, Errors: formErrors{}})
}

func (s *server) organizationCreate(w http.ResponseWriter, r *http.Request) error {
	return s.organizationSave(w, r, nil)
}

func (s *server) organizationUpdate(w http.ResponseWriter, r *http.Request) error {
	o, err := pathGet(r, "organization", s.store.OrganizationGet)
	if err != nil {
		return err
	}
	return s.organizationSave(w, r, o)
}

// organizationSave saves the form (sources.Sources.SaveOrganization: the API's checks and messages); bad
// fields, or a slug another organization has, show the form again with the messages.
func (s *server) organizationSave(w http.ResponseWriter, r *http.Request, old *store.Organization) error {
	d := organizationFormData{Org: old, Name: r.PostFormValue("name"), Slug: strings.TrimSpace(r.PostFormValue("slug")),
		Errors: formErrors{}}
	id, title := "", "Add an organization"
	if old != nil {
		id, title = old.ID, "Edit "+old.Name
	}
	o, err := s.sources.SaveOrganization(r.Context(), id, d.Name, d.Slug)
	if err != nil {
		if err := d.Errors.from(err, "slug"); err != nil {
			return err
		}
		return s.render(w, r, http.StatusUnprocessableEntity, "organization_form.html", title, d)
	}
	http.Redirect(w, r, "/organizations/"+o.ID, http.StatusSeeOther)
	return nil
}

type organizationDeleteData struct {
	Org     *store.Organization
	Sources int
	Error   string
}

func (s *server) organizationDeleteConfirm(w http.ResponseWriter, r *http.Request) error {
	o, err := pathGet(r, "organization", s.store.OrganizationGet)
	if err != nil {
		return err
	}
	_, n, err := s.store.SourceList(r.Context(), &store.SourceListParams{OrganizationID: o.ID, PageParams: store.PageParams{Limit: 1}})
	if err != nil {
		return err
	}
	return s.render(w, r, http.StatusOK, "organization_delete.html", "Delete "+o.Name, organizationDeleteData{Org: o, Sources: n})
}

// organizationDelete deletes (sources.Sources.DeleteOrganization); its 409 (the organization still has sources)
// is shown on the confirmation page with what to do.
func (s *server) organizationDelete(w http.ResponseWriter, r *http.Request) error {
	o, err := pathGet(r, "organization", s.store.OrganizationGet)
	if err != nil {
		return err
	}
	if err := s.sources.DeleteOrganization(r.Context(), o.ID); err != nil {
		var se *sources.Error
		if !errors.As(err, &se) {
			return err
		}
		status, msg := se.Status(), se.Message
		_, n, _ := s.store.SourceList(r.Context(), &store.SourceListParams{OrganizationID: o.ID, PageParams: store.PageParams{Limit: 1}})
		return s.render(w, r, status, "organization_delete.html", "Delete "+o.Name,
			organizationDeleteData{Org: o, Sources: n, Error: msg})
	}
	http.Redirect(w, r, "/organizations", http.StatusSeeOther)
	return nil
}
