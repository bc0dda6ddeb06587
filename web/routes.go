package web

import (
	"io/fs"
	"net/http"

	"github.com/harvester-dev/harvester/feeds"
)

// page is a handler that answers a page; a returned error is shown as an error page.
type page func(w http.ResponseWriter, r *http.Request) error

// routes mounts every page. Each URL is stable and bookmarkable; web/README.md lists them
// with their forms and element ids.
func (s *server) routes() {
	static, _ := fs.Sub(assets, "static")
	s.pages.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))

	read := func(pattern string, h page) { s.pages.Handle(pattern, s.handle(h, readAccess)) }
	write := func(pattern string, h page) { s.pages.Handle(pattern, s.handle(h, writeAccess)) }
	open := func(pattern string, h page) { s.pages.Handle(pattern, s.handle(h, openAccess)) }
	public := func(pattern string, h page) { s.pages.Handle(pattern, s.handle(h, publicAccess)) }
	s.publicRoutes(public)

	read("GET /{$}", func(w http.ResponseWriter, r *http.Request) error {
		http.Redirect(w, r, "/harvest_sources", http.StatusSeeOther)
		return nil
	})
	open("GET /sign-in", s.signInForm)
	open("POST /sign-in", s.signIn) // checks its own CSRF token
	write("POST /sign-out", s.signOut)

	read("GET /organizations", s.organizationList)
	read("GET /organizations/new", s.organizationNew)
	write("POST /organizations", s.organizationCreate)
	read("GET /organizations/{id}", s.organizationView)
	read("GET /organizations/{id}/duplicates", s.organizationDuplicates)
	read("GET /organizations/{id}/edit", s.organizationEdit)
	write("POST /organizations/{id}/edit", s.organizationUpdate)
	read("GET /organizations/{id}/delete", s.organizationDeleteConfirm)
	write("POST /organizations/{id}/delete", s.organizationDelete)

	read("GET /harvest_sources", s.sourceList)
	read("GET /harvest_sources/new", s.sourceNew)
	write("POST /harvest_sources", s.sourceCreate)
	read("GET /harvest_sources/{id}", s.sourceView)
	read("GET /harvest_sources/{id}/counts", s.sourceCounts)
	read("GET /harvest_sources/{id}/duplicates", s.sourceDuplicates)
	read("GET /harvest_sources/{id}/quality", s.sourceQuality)
	read("GET /harvest_sources/{id}/edit", s.sourceEdit)
	write("POST /harvest_sources/{id}/edit", s.sourceUpdate)
	read("GET /harvest_sources/{id}/jobs/new", s.sourceJobConfirm)
	write("POST /harvest_sources/{id}/jobs", s.sourceJobCreate)
	read("GET /harvest_sources/{id}/delete", s.sourceDeleteConfirm)
	write("POST /harvest_sources/{id}/delete", s.sourceDelete)

	read("GET /harvest_jobs/{id}", s.jobView)
	read("GET /harvest_jobs/{id}/progress", s.jobProgress)
	read("GET /harvest_jobs/{id}/duplicates", s.jobDuplicates)
	read("GET /harvest_jobs/{id}/records", s.jobRecords)
	read("GET /harvest_jobs/{id}/record_errors", s.jobMessageRows)
	read("GET /harvest_jobs/{id}/record_errors.csv", s.jobErrorsCSV)
	read("GET /harvest_jobs/{id}/cancel", s.jobCancelConfirm)
	write("POST /harvest_jobs/{id}/cancel", s.jobCancel)
	read("GET /harvest_jobs/{id}/replay", s.jobReplayConfirm)
	write("POST /harvest_jobs/{id}/replay", s.jobReplay)

	read("GET /harvest_records/{id}", s.recordView)
	read("GET /datasets", s.datasetView)
	read("GET /search", s.searchPage)
	read("GET /validate", s.validateForm)
	write("POST /validate", s.validate)
	read("GET /dashboard", s.dashboard)
	read("GET /quality", s.catalogQuality)

	open("/", func(w http.ResponseWriter, r *http.Request) error { return notFound("no such page: %s", r.URL.Path) })
}

// access says who may see a page.
type access int

const (
	openAccess   access = iota // anyone: sign-in, the not-found page
	readAccess                 // anyone, unless Config.ProtectReads
	writeAccess                // a signed-in operator, with the form's CSRF token
	publicAccess               // the public catalog: anyone, unless Config.PrivateCatalog; CORS * and cacheable
)

// handle wraps a page: the session (and for a write the CSRF) checks, then the error page for
// a returned error or a panic.
func (s *server) handle(h page, a access) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "web: page panicked", "path", r.URL.Path, "panic", p)
				s.errorPage(w, r, errorf(http.StatusInternalServerError, "internal server error"))
			}
		}()
		canonicalPathID(r)
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		r = s.withSession(r)
		if a == publicAccess {
			feeds.Public(w)
		}
		if a == writeAccess || a == readAccess && s.cfg.ProtectReads || a == publicAccess && s.cfg.PrivateCatalog {
			if !s.signedIn(r) {
				http.Redirect(w, r, "/sign-in?next="+urlQueryEscape(r.URL.Path), http.StatusSeeOther)
				return
			}
		}
		if a == writeAccess {
			if err := s.checkCSRF(r); err != nil {
				s.errorPage(w, r, err)
				return
			}
		}
		if err := h(w, r); err != nil && a == publicAccess {
			s.publicErrorPage(w, r, err) // in the public layout: no operator link
		} else if err != nil {
			s.errorPage(w, r, err)
		}
	})
}

// maxFormBytes caps a form post (the validator's pasted catalog is the largest). 10 MiB.
const maxFormBytes = 10 << 20
