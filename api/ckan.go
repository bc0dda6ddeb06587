package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/feeds/ckan"
	"github.com/harvester-dev/harvester/store"
)

// ckanHandler answers one action with its result, or a *ckan.Error.
type ckanHandler func(s *server, r *http.Request, p ckanParams) (any, error)

// ckanActions are the actions served. package_list streams its answer, so it is not here.
var ckanActions = map[string]ckanHandler{
	"package_search":    (*server).ckanPackageSearch,
	"package_show":      (*server).ckanPackageShow,
	"organization_list": (*server).ckanOrganizationList,
	"organization_show": (*server).ckanOrganizationShow,
	"status_show":       (*server).ckanStatusShow,
}

// ckanAction answers an action in CKAN's envelope {help, success, result}, or with CKAN's
// error shape and status (ckan.Error); an action this API does not serve is CKAN's 400 "Bad
// request - Action name not known". A GET answer carries an ETag of its body (304 when it
// matches).
func (s *server) ckanAction(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("action")
	env := ckan.Envelope{Help: s.cfg.Catalog.Base(r) + "/api/3/action/help_show?name=" + url.QueryEscape(name)}
	p, err := readCKANParams(r)
	var result any
	if err == nil {
		switch h, ok := ckanActions[name]; {
		case name == "package_list":
			err = s.ckanPackageList(w, r, p, env)
			if err == nil {
				return nil
			}
		case ok:
			result, err = h(s, r, p)
		default:
			err = ckan.BadRequest("Action name not known: " + name)
		}
	}
	if err != nil {
		return s.ckanError(w, r, env, err)
	}
	env.Success, env.Result = true, result
	body, err := json.Marshal(env)
	if err != nil {
		return s.ckanError(w, r, env, fmt.Errorf("marshal %s: %w", name, err))
	}
	if feeds.NotModified(w, r, feeds.ETag("ckan", string(body)), time.Time{}) {
		return nil
	}
	w.Header().Set("Content-Type", "application/json;charset=utf-8")
	_, _ = w.Write(append(body, '\n'))
	return nil
}

// ckanError answers err in CKAN's error shape; an error that is not a *ckan.Error is logged
// and answered as CKAN's 500 "Internal Server Error", saying nothing of its cause.
func (s *server) ckanError(w http.ResponseWriter, r *http.Request, env ckan.Envelope, err error) error {
	var ce *ckan.Error
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ce):
	case errors.As(err, &mbe):
		ce = &ckan.Error{Status: http.StatusRequestEntityTooLarge, Type: "Bad request",
			Message: fmt.Sprintf("Bad request - the request body is larger than %d bytes", mbe.Limit)}
	default:
		s.log.ErrorContext(r.Context(), "api: CKAN action failed", "path", r.URL.Path, "err", err)
		ce = &ckan.Error{Status: http.StatusInternalServerError, Type: "Internal Server Error", Message: "Internal Server Error"}
	}
	env.Success, env.Error = false, ce
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, ce.Status, env)
}

// ckanParams are an action's parameters as text: JSON numbers as their digits, booleans as
// true/false, arrays and objects as compact JSON (facet.field), null left out.
type ckanParams map[string]string

// readCKANParams reads the query string, then (POST) the body over it: a form when the
// Content-Type says so, else a JSON object, as CKAN's api view reads them. A body that is
// not a JSON object is CKAN's 400 "Bad request - JSON Error".
func readCKANParams(r *http.Request) (ckanParams, error) {
	p := ckanParams{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return p, nil
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data" {
		if err := r.ParseMultipartForm(1 << 20); err != nil && !errors.Is(err, http.ErrNotMultipart) {
			return nil, ckan.BadRequest("form: " + err.Error())
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
		return p, nil
	}
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return p, nil
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(data, &body); err != nil || body == nil {
		return nil, ckan.BadRequest("JSON Error: the request body must be a JSON object")
	}
	for k, raw := range body {
		var s string
		switch raw = bytes.TrimSpace(raw); {
		case string(raw) == "null":
			continue
		case json.Unmarshal(raw, &s) == nil:
			p[k] = s
		default:
			p[k] = string(raw)
		}
	}
	return p, nil
}

// int reads parameter name as a natural number, def when absent; CKAN's messages ("Invalid
// integer", "Must be a natural number") go to bad.
func (p ckanParams) int(name string, def int, bad map[string][]string) int {
	v, ok := p[name]
	if !ok || strings.TrimSpace(v) == "" {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	switch {
	case err != nil && errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(strings.TrimSpace(v), "-"):
		return int(^uint(0) >> 2) // larger than any catalog: a start past the end, rows capped
	case err != nil:
		bad[name] = []string{"Invalid integer"}
	case n < 0:
		bad[name] = []string{"Must be a natural number"}
	default:
		return int(min(n, int64(^uint(0)>>2)))
	}
	return def
}

// bool reads parameter name as CKAN's asbool does (true, yes, on, y, t, 1).
func (p ckanParams) bool(name string) bool {
	switch strings.ToLower(strings.TrimSpace(p[name])) {
	case "true", "yes", "on", "y", "t", "1":
		return true
	}
	return false
}

// ckanStatusShow answers status_show: the CKAN version CKAN clients check, the catalog's
// title, description and base URL.
func (s *server) ckanStatusShow(r *http.Request, _ ckanParams) (any, error) {
	c := s.cfg.Catalog
	return map[string]any{"ckan_version": ckan.Version, "site_title": c.Title, "site_description": c.Description,
		"site_url": c.Base(r), "error_emails_to": nil, "locale_default": "en", "extensions": []string{}}, nil
}

// ckanPackageShow answers package_show: the live dataset of id (its id or its name, the
// slug); a held duplicate or an unknown one is CKAN's 404.
func (s *server) ckanPackageShow(r *http.Request, p ckanParams) (any, error) {
	ref := strings.TrimSpace(p["id"])
	if ref == "" {
		ref = strings.TrimSpace(p["name_or_id"])
	}
	if ref == "" {
		return nil, ckan.Validation(map[string][]string{"id": {"Missing value"}})
	}
	ld, err := s.ckanDataset(r.Context(), ref)
	if err != nil {
		return nil, err
	}
	return ckan.FromDataset(ld), nil
}

// ckanDataset finds the live dataset of an id or a slug.
func (s *server) ckanDataset(ctx context.Context, ref string) (*store.LiveDataset, error) {
	ld, err := s.store.DatasetFind(ctx, &store.DatasetFindParams{ID: ref})
	if errors.Is(err, store.ErrNotFound) {
		ld, err = s.store.DatasetFind(ctx, &store.DatasetFindParams{Slug: ref})
	}
	if errors.Is(err, store.ErrNotFound) || err == nil && ld.DuplicateOf != "" {
		return nil, ckan.NotFound("Dataset")
	}
	if err != nil {
		return nil, fmt.Errorf("find dataset: %w", err)
	}
	return ld, nil
}
