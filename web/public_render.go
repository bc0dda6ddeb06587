package web

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/harvester-dev/harvester/feeds"
)

// publicPageData is what every public page's template gets: the public layout's fields and
// the page's own Data.
type publicPageData struct {
	Title        string // the page's title (its h1)
	CatalogTitle string // feeds.Catalog.Title, in the header
	Data         any
}

// publicTmpl returns the template set of one public page: the public layout and the page's
// file. Public pages share no template with the operators' pages, so none of their controls
// can show up on one.
func publicTmpl(name string) (*template.Template, error) {
	key := "public:" + name
	tmplMu.Lock()
	defer tmplMu.Unlock()
	if t, ok := tmplCache[key]; ok {
		return t, nil
	}
	t, err := template.New(name).Funcs(funcs).ParseFS(assets, "templates/public_layout.html", "templates/"+name)
	if err != nil {
		return nil, err
	}
	tmplCache[key] = t
	return t, nil
}

// renderPublic executes a public page in the public layout into a buffer first (a template
// error is a clean 500), with the operators' pages' security headers. A 200 gets an ETag of
// its bytes (a page depends on more than its dataset's last change: its source's and
// organization's names, the catalog's title, this version's templates), and a conditional GET
// naming it answers 304 Not Modified.
func (s *server) renderPublic(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) error {
	t, err := publicTmpl(name)
	if err != nil {
		return fmt.Errorf("parse template %s: %w", name, err)
	}
	var buf bytes.Buffer
	pd := publicPageData{Title: title, CatalogTitle: s.cfg.Catalog.Title, Data: data}
	if err := t.ExecuteTemplate(&buf, "public-layout", pd); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	if status == http.StatusOK && feeds.NotModified(w, r, feeds.ETag(buf.String()), time.Time{}) {
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

// publicErrorPage answers err as errorPage does, in the public layout.
func (s *server) publicErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	pe := s.pageErrorOf(r, err)
	if rerr := s.renderPublic(w, r, pe.Status, "public_error.html", http.StatusText(pe.Status), pe); rerr != nil {
		s.log.ErrorContext(r.Context(), "web: error page failed", "err", rerr)
		http.Error(w, pe.Message, pe.Status)
	}
}
