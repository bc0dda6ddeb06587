package web

import (
	"fmt"
	"net/http"
	"strings"

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
	Result      *validateResult
}

// validateResult is the API's answer to POST /api/v1/validate.
type validateResult struct {
	Valid     bool   `json:"valid"`
	Truncated bool   `json:"truncated"`
	Error     string `json:"error"`
	Records   []struct {
		Index      int    `json:"index"`
		Identifier string `json:"identifier"`
		Valid      bool   `json:"valid"`
		RecordType string `json:"record_type"`
		Path       string `json:"path"`
		Errors     []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"errors"`
		Warnings []struct {
			Path    string `json:"path"`
			Message string `json:"message"`
		} `json:"warnings"`
	} `json:"records"`
}

var validateSchemas = []harvest.SchemaType{harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal,
	harvest.SchemaDCATUS30}

func (s *server) validateForm(w http.ResponseWriter, r *http.Request) error {
	return s.render(w, r, http.StatusOK, "validate.html", "Validate a catalog", validateData{Method: "paste",
		SchemaType: string(harvest.SchemaDCATUS11Federal), SchemaTypes: validateSchemas, Errors: formErrors{}})
}

// validate sends the pasted document or URL to POST /api/v1/validate and lists its verdict
// per record.
func (s *server) validate(w http.ResponseWriter, r *http.Request) error {
	d := validateData{SchemaType: r.PostFormValue("schema_type"), Method: cmpOr(r.PostFormValue("method"), "paste"),
		JSON: r.PostFormValue("json"), URL: strings.TrimSpace(r.PostFormValue("url")), SchemaTypes: validateSchemas,
		Errors: formErrors{}}
	body := map[string]any{"schema_type": d.SchemaType}
	if d.Method == "url" {
		if d.URL == "" {
			d.Errors["url"] = "required: the URL of a catalog"
		}
		body["url"] = d.URL
	} else {
		if strings.TrimSpace(d.JSON) == "" {
			d.Errors["json"] = "required: paste a DCAT-US catalog or dataset"
		}
		body["json"] = d.JSON // a JSON string of the text: the API reads it as the document
	}
	status := http.StatusOK
	if len(d.Errors) == 0 {
		a, err := s.callAPI(r, http.MethodPost, "/api/v1/validate", body)
		if err != nil {
			return err
		}
		var res validateResult
		switch {
		case a.Status == http.StatusOK:
			if err := jsonDecode(a.Body, &res); err != nil {
				return err
			}
			d.Result = &res
		case len(a.Fields) > 0:
			d.Errors.merge(a.Fields)
		default:
			d.Errors[""] = a.Error
			_ = jsonDecode(a.Body, &res)
		}
	}
	if len(d.Errors) > 0 {
		status = http.StatusUnprocessableEntity
	}
	return s.render(w, r, status, "validate.html", "Validate a catalog", d)
}
