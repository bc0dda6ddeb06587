package web

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/store"
)

//go:embed templates static
var assets embed.FS

// pageData is what every template gets: the layout's fields and the page's own Data.
type pageData struct {
	Title    string
	SignedIn bool
	CSRF     string
	Path     string
	Data     any
}

var (
	tmplMu    sync.Mutex
	tmplCache = map[string]*template.Template{}
)

var funcs = template.FuncMap{
	"jobOutcome":  jobOutcome,
	"actionWords": actionWords,
	"fmtTime": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			if v.IsZero() {
				return "—"
			}
			return v.UTC().Format("2006-01-02 15:04:05 UTC")
		case *time.Time:
			if v == nil {
				return "—"
			}
			return v.UTC().Format("2006-01-02 15:04:05 UTC")
		}
		return "—"
	},
	"pct": func(p *float64) string {
		if p == nil {
			return "—"
		}
		return strconv.FormatFloat(*p, 'f', 1, 64) + "%"
	},
	"pctNum": func(p *float64) string {
		if p == nil {
			return "0"
		}
		return strconv.FormatFloat(*p, 'f', 1, 64)
	},
	"deref": func(p *int) string {
		if p == nil {
			return "—"
		}
		return strconv.Itoa(*p)
	},
	"query": func(base string, kv ...any) string { // query "/x" "k" v ... → /x?k=v, empty values left out
		q := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			if v := fmt.Sprint(kv[i+1]); v != "" && v != "0" {
				q.Set(fmt.Sprint(kv[i]), v)
			}
		}
		if len(q) == 0 {
			return base
		}
		return base + "?" + q.Encode()
	},
	"add": func(a, b int) int { return a + b },
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return m
	},
	"field":   func(fields map[string]string, name string) string { return fields[name] },
	"sub":     func(a, b int) int { return a - b },
	"percent": func(share float64) float64 { return 100 * share },
}

// tmpl returns the template set of one page: the layout, the pager, the cross-source
// duplicates table, the quality panel and the page's file.
func tmpl(name string) (*template.Template, error) {
	return parsePage(name, name, "templates/layout.html", "templates/pager.html",
		"templates/duplicates_table.html", "templates/quality_panel.html", "templates/"+name)
}

// parsePage returns the template set parsed from files (paths in assets), cached under key.
func parsePage(key, name string, files ...string) (*template.Template, error) {
	tmplMu.Lock()
	defer tmplMu.Unlock()
	if t, ok := tmplCache[key]; ok {
		return t, nil
	}
	t, err := template.New(name).Funcs(funcs).ParseFS(assets, files...)
	if err != nil {
		return nil, err
	}
	tmplCache[key] = t
	return t, nil
}

// render executes an operators' page in the layout (writePage).
func (s *server) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) error {
	t, err := tmpl(name)
	if err != nil {
		return fmt.Errorf("parse template %s: %w", name, err)
	}
	pd := pageData{Title: title, SignedIn: s.signedIn(r), CSRF: s.csrfToken(w, r), Path: r.URL.Path, Data: data}
	return writePage(w, r, status, t, "layout", pd, false)
}

// writePage executes the template layout of t with pd into a buffer first, so that a template
// error is a clean 500 (the error returned, "render NAME: …"), then writes it with status and
// the pages' security headers. With etag, a 200 gets an ETag of its bytes and a conditional
// GET naming it answers 304 Not Modified (feeds.NotModified).
func writePage(w http.ResponseWriter, r *http.Request, status int, t *template.Template, layout string, pd any, etag bool) error {
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, layout, pd); err != nil {
		return fmt.Errorf("render %s: %w", t.Name(), err)
	}
	if etag && status == http.StatusOK && feeds.NotModified(w, r, feeds.ETag(buf.String()), time.Time{}) {
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'")
	h.Set("Referrer-Policy", "same-origin")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}

// pageError is an error shown as an error page with its status.
type pageError struct {
	Status  int
	Message string
}

func (e *pageError) Error() string { return e.Message }

func errorf(status int, format string, args ...any) *pageError {
	return &pageError{Status: status, Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *pageError {
	return errorf(http.StatusNotFound, format, args...)
}

// errorPage answers err: its status and message for a pageError, 404 for store.ErrNotFound,
// and a 500 that says nothing of its cause (logged) for anything else.
func (s *server) errorPage(w http.ResponseWriter, r *http.Request, err error) {
	pe := s.pageErrorOf(r, err)
	title := http.StatusText(pe.Status)
	if rerr := s.render(w, r, pe.Status, "error.html", title, pe); rerr != nil {
		s.log.ErrorContext(r.Context(), "web: error page failed", "err", rerr)
		http.Error(w, pe.Message, pe.Status)
	}
}

// pageErrorOf is the pageError that answers err (errorPage's rules); the cause of a 500 is
// logged.
func (s *server) pageErrorOf(r *http.Request, err error) *pageError {
	var pe *pageError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &pe):
	case errors.Is(err, store.ErrNotFound):
		pe = notFound("not found")
	case errors.As(err, &mbe):
		pe = errorf(http.StatusRequestEntityTooLarge, "the form is larger than %d bytes", mbe.Limit)
	default:
		s.log.ErrorContext(r.Context(), "web: page failed", "method", r.Method, "path", r.URL.Path, "err", err)
		pe = errorf(http.StatusInternalServerError, "internal server error")
	}
	return pe
}

// canonicalPathID makes a UUID {id} canonical (lower case, hyphens), as the API does.
func canonicalPathID(r *http.Request) {
	if raw := r.PathValue("id"); raw != "" {
		if id, err := uuid.Parse(raw); err == nil {
			r.SetPathValue("id", id.String())
		}
	}
}

// formErrors are a form's messages by field name, plus "" for the form as a whole.
type formErrors map[string]string

func (f formErrors) merge(m map[string]string) formErrors {
	maps.Copy(f, m)
	return f
}

// from records in f what a write's error (package sources, api.Validator: api.ErrorOf reads
// both) says: each bad field's message, a conflict's message at conflictField, or anything else
// the client caused at "" (the form as a whole). A 404 and an error that is not the client's
// are returned.
func (f formErrors) from(err error, conflictField string) error {
	status, msg, fields := api.ErrorOf(err)
	switch {
	case status == http.StatusNotFound:
		return notFound("%s", msg)
	case status >= 500:
		return err
	case status == http.StatusConflict:
		f[conflictField] = msg
	case len(fields) > 0:
		f.merge(fields)
	default:
		f[""] = msg
	}
	return nil
}

// paging of a page's list: ?page= (1-based) and a fixed page size.
type paging struct {
	Page, PerPage, Total int
}

func pageOf(r *http.Request, perPage int) paging {
	p, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || p < 1 || p > 1_000_000 {
		p = 1
	}
	return paging{Page: p, PerPage: perPage}
}

func (p paging) params() store.PageParams {
	return store.PageParams{Limit: p.PerPage, Offset: (p.Page - 1) * p.PerPage}
}

func (p paging) HasPrev() bool { return p.Page > 1 }
func (p paging) HasNext() bool { return p.Page*p.PerPage < p.Total }
func (p paging) Prev() int     { return p.Page - 1 }
func (p paging) Next() int     { return p.Page + 1 }

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }

// pathGet reads what the request's {id} names with get (a store XxxGet); a store.ErrNotFound
// is a 404 page saying `<what> "<id>" not found`, any other error is get's.
func pathGet[T any](r *http.Request, what string, get func(context.Context, string) (T, error)) (T, error) {
	id := r.PathValue("id")
	v, err := get(r.Context(), id)
	if isNotFound(err) {
		return v, notFound("%s %q not found", what, id)
	}
	return v, err
}

// writePoll answers v as JSON that is not cached, for a page's script that polls it; an error
// is json.Marshal's, before anything is written.
func writePoll(w http.ResponseWriter, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(data)
	return nil
}
