package web

import (
	"fmt"
	"html/template"
	"net/http"
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
	return parsePage("public:"+name, name, "templates/public_layout.html", "templates/"+name)
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
	pd := publicPageData{Title: title, CatalogTitle: s.cfg.Catalog.Title, Data: data}
	return writePage(w, r, status, t, "public-layout", pd, true)
}

// publicErrorPage answers err as errorPage does, in the public layout.
func (s *server) publicErrorPage(w http.ResponseWriter, r *http.Request, err error) {
	pe := s.pageErrorOf(r, err)
	if rerr := s.renderPublic(w, r, pe.Status, "public_error.html", http.StatusText(pe.Status), pe); rerr != nil {
		s.log.ErrorContext(r.Context(), "web: error page failed", "err", rerr)
		http.Error(w, pe.Message, pe.Status)
	}
}
