// Package corpustest lets tests read the shared corpus of real harvest-source files
// (../shared/corpus beside the repository; never copied into it) and serve them the way an
// agency web server would.
package corpustest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Dir returns the corpus directory, found as shared/corpus beside some parent of the working
// directory. The test fails when there is none.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		c := filepath.Join(dir, "..", "shared", "corpus")
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return filepath.Clean(c)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no shared/corpus beside the repository: the tests need ../shared/corpus")
		}
		dir = parent
	}
}

// Path returns the path of a corpus file, e.g. Path(t, "dcatus/agency-gsa-2025-01.data.json").
func Path(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Dir(t), name)
	_, err := os.Stat(p)
	require.NoError(t, err, "corpus file")
	return p
}

// Server is an agency web server with one document at URL() that a test can swap. Like a real
// server it answers conditional GETs: each Serve publishes a new version of the document, with
// its own ETag and a Last-Modified one second after the previous version's (corpus files' own
// modification times say nothing about which one a test serves last).
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	file    string
	status  int
	version int
	// conditional records, per request since the last Conditional call, whether it carried
	// If-None-Match.
	conditional []bool
}

// versionEpoch is the Last-Modified time of the first version of a served document.
var versionEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// NewServer starts a server; it is closed when the test ends.
func NewServer(t testing.TB) *Server {
	s := &Server{status: http.StatusOK}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// URL is where the document is served.
func (s *Server) URL() string { return s.Server.URL + "/data.json" }

// Serve makes the server answer with the file at path.
func (s *Server) Serve(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.file, s.status = path, http.StatusOK
	s.version++
}

// Fail makes the server answer every request with status.
func (s *Server) Fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// LastConditional reports whether the last request carried If-None-Match (a conditional GET),
// and forgets the requests made so far. The test fails when there was none.
func (s *Server) LastConditional(t testing.TB) bool {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.conditional, "the server got a request")
	c := s.conditional[len(s.conditional)-1]
	s.conditional = nil
	return c
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	file, status, version := s.file, s.status, s.version
	s.conditional = append(s.conditional, r.Header.Get("If-None-Match") != "")
	s.mu.Unlock()
	if r.URL.Path != "/data.json" {
		http.NotFound(w, r)
		return
	}
	if status != http.StatusOK {
		http.Error(w, http.StatusText(status), status)
		return
	}
	f, err := os.Open(file)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", fmt.Sprintf(`"v%d"`, version))
	http.ServeContent(w, r, file, versionEpoch.Add(time.Duration(version)*time.Second), f)
}
