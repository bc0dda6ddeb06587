package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
)

type searchData struct {
	Configured   bool
	Q            string
	Organization string
	Keyword      string
	Result       *search.Result
	Paging       paging
	Error        string
}

// searchPage searches the index (Deps.Search) with facets by organization and keyword.
func (s *server) searchPage(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	d := searchData{Configured: s.search != nil, Q: q.Get("q"), Organization: q.Get("organization"),
		Keyword: q.Get("keyword"), Paging: pageOf(r, listPerPage)}
	if s.search != nil {
		query := search.Query{Text: d.Q, Organization: d.Organization, Keyword: d.Keyword, Page: d.Paging.Page,
			PerPage: d.Paging.PerPage}
		if _, err := query.Normalize(); err != nil {
			d.Error = err.Error()
		} else {
			res, err := s.search.Search(r.Context(), query)
			if err != nil {
				return fmt.Errorf("search: %w", err)
			}
			d.Result, d.Paging.Total = res, res.Total
		}
	}
	return s.render(w, r, http.StatusOK, "search.html", "Search datasets", d)
}

type validateData struct {
	SchemaType  string
	Method      string // "paste" or "url"
	JSON        string
	URL         string
	SchemaTypes []harvest.SchemaType
	Errors      formErrors
	Result      *api.ValidationResult
}

var validateSchemas = []harvest.SchemaType{harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal,
	harvest.SchemaDCATUS30}

func (s *server) validateForm(w http.ResponseWriter, r *http.Request) error {
	return s.render(w, r, http.StatusOK, "validate.html", "Validate a catalog", validateData{Method: "paste",
		SchemaType: string(harvest.SchemaDCATUS11Federal), SchemaTypes: validateSchemas, Errors: formErrors{}})
}

// validate checks the pasted document or URL with api.Validator (as POST /api/v1/validate
// does) and lists its verdict per record.
func (s *server) validate(w http.ResponseWriter, r *http.Request) error {
	d := validateData{SchemaType: r.PostFormValue("schema_type"), Method: cmpOr(r.PostFormValue("method"), "paste"),
		JSON: r.PostFormValue("json"), URL: strings.TrimSpace(r.PostFormValue("url")), SchemaTypes: validateSchemas,
		Errors: formErrors{}}
	in := &api.ValidateInput{SchemaType: d.SchemaType}
	if d.Method == "url" {
		if d.URL == "" {
			d.Errors["url"] = "required: the URL of a catalog"
		}
		in.URL = d.URL
	} else {
		if strings.TrimSpace(d.JSON) == "" {
			d.Errors["json"] = "required: paste a DCAT-US catalog or dataset"
		}
		in.JSON, _ = json.Marshal(d.JSON) // a JSON string of the text: the validator reads it as the document
	}
	if len(d.Errors) == 0 {
		if in.URL != "" {
			s.validator.ExtendWriteDeadline(w)
		}
		res, err := s.validator.Validate(r.Context(), in, map[string]string{})
		switch {
		case err != nil:
			if err := d.Errors.from(err, ""); err != nil {
				return err
			}
		case res.Error != "":
			d.Errors[""] = res.Error
		default:
			d.Result = res
		}
	}
	status := http.StatusOK
	if len(d.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	}
	return s.render(w, r, status, "validate.html", "Validate a catalog", d)
}
