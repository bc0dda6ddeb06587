package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/store"
)

// etagServer serves one corpus file with a fixed ETag (a new version gets a new one), answers
// If-None-Match with 304, and records whether each request was conditional.
type etagServer struct {
	*httptest.Server
	mu          sync.Mutex
	file, etag  string
	status      int    // when not 0, every request gets it
	conditional []bool // per request
}

func newETagServer(t *testing.T) *etagServer {
	s := &etagServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		file, etag, status := s.file, s.etag, s.status
		s.conditional = append(s.conditional, r.Header.Get("If-None-Match") != "")
		s.mu.Unlock()
		if status != 0 {
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
		w.Header().Set("ETag", etag)
		http.ServeContent(w, r, "", time.Time{}, f) // answers If-None-Match itself
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *etagServer) serve(t *testing.T, corpusFile, etag string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.file, s.etag, s.status = corpustest.Path(t, corpusFile), etag, 0
}

func (s *etagServer) fail(status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.status = status
}

// lastConditional reports whether the last request carried If-None-Match, and forgets them.
func (s *etagServer) lastConditional(t *testing.T) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	require.NotEmpty(t, s.conditional, "the server got a request")
	c := s.conditional[len(s.conditional)-1]
	s.conditional = nil
	return c
}

// A harvest job whose document has not changed since the source's last complete harvest gets a
// 304 for its conditional GET: nothing is read again, nothing is deleted, every live dataset
// counts as unchanged. force_harvest and validate jobs, and the job after a failed one, download
// the document whole.
func TestHarvestConditionalGET(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	srv := newETagServer(t)
	harvest := func(extra ...string) (jobReport, int) {
		return b.harvest(t, append([]string{"--url", srv.URL + "/data.json", "--schema-type", federal}, extra...)...)
	}
	liveDatasets := func(sourceID string) int {
		n, err := b.st.DatasetCount(ctx, sourceID)
		require.NoError(t, err)
		return n
	}
	counts := func(r jobReport) [6]int {
		return [6]int{r.Total, r.Added, r.Updated, r.Deleted, r.Unchanged, r.Errored}
	}

	srv.serve(t, "dcatus/agency-gsa-2025-01.data.json", `"v1"`)
	first, code := harvest()
	require.Equal(t, exitOK, code)
	require.Equal(t, [6]int{339, 339, 0, 0, 0, 0}, counts(first))
	require.False(t, first.NotModified)
	require.False(t, srv.lastConditional(t), "no earlier harvest: a plain GET")

	again, code := harvest()
	require.Equal(t, exitOK, code)
	require.Equal(t, "complete", again.Status)
	require.True(t, srv.lastConditional(t))
	require.True(t, again.NotModified)
	require.Equal(t, [6]int{339, 0, 0, 0, 339, 0}, counts(again), "every live dataset unchanged")
	require.Equal(t, 339, liveDatasets(first.SourceID), "nothing deleted")
	var text bytes.Buffer
	job, err := b.st.JobGet(ctx, again.JobID)
	require.NoError(t, err)
	require.NoError(t, printReport(ctx, &text, b.st, job, srv.URL, "text"))
	require.Contains(t, text.String(), "not modified: the source answered 304")

	val, code := harvest("--job-type", "validate")
	require.Equal(t, exitOK, code)
	require.False(t, srv.lastConditional(t), "validate downloads the document")
	require.Equal(t, 339, val.Validated)

	third, code := harvest()
	require.Equal(t, exitOK, code)
	require.True(t, third.NotModified, "a validate job in between does not count; a 304 job passes its validators on")

	forced, code := harvest("--job-type", "force_harvest")
	require.Equal(t, exitOK, code)
	require.False(t, srv.lastConditional(t), "force_harvest downloads the document")
	require.Equal(t, 339, forced.Updated)

	srv.fail(http.StatusNotFound)
	failed, code := harvest()
	require.Equal(t, exitJobError, code)
	require.Contains(t, failed.JobErrors[0], "HTTP 404")
	srv.serve(t, "dcatus/agency-gsa-2025-01.data.json", `"v1"`)
	afterFail, code := harvest()
	require.Equal(t, exitOK, code)
	require.False(t, srv.lastConditional(t), "after a failed job no validators are sent")
	require.False(t, afterFail.NotModified)
	require.Equal(t, [6]int{339, 0, 0, 0, 339, 0}, counts(afterFail), "read and compared record by record")

	srv.serve(t, "dcatus/agency-gsa-2025-07.data.json", `"v2"`)
	changed, code := harvest()
	require.Equal(t, exitOK, code)
	require.True(t, srv.lastConditional(t))
	require.False(t, changed.NotModified, "a new version is downloaded")
	require.Equal(t, [6]int{343, 4, 99, 0, 240, 0}, counts(changed))
}

// The server that returns an empty catalog after a complete harvest (DESIGN rule 1) is in
// TestHarvestRefusesToDeleteMostOfASource (guard_test.go): the job fails with a DeleteGuard
// error that names the share, and deletes nothing.

// Every INVALID file of the corpus ends as a job error or as error rows, each with a reason,
// never a panic. Here the RDF (dcatap) INVALID files are served as DCAT-US documents, and must
// fail with a parse error; as rdf sources they are TestRDFSyntaxErrorsFailTheJob's.
func TestHarvestInvalidCorpusFiles(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "*", "INVALID-*"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 17)
	for _, path := range files {
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		schema := federal
		if strings.HasPrefix(name, "iso19115/") {
			schema = "iso19115_2"
		}
		b.srv.Serve(path)
		rep, code := b.harvestURL(t, schema, "--max-delete-share", "1")
		switch code {
		case exitJobError:
			require.Equal(t, "error", rep.Status, name)
			require.NotEmpty(t, rep.JobErrors, name)
			for _, e := range rep.JobErrors {
				require.Greater(t, len(e), len("ExtractError: "), name)
			}
		case exitOK:
			require.Positive(t, rep.Errored, "%s: no record error", name)
			errs, _, err := b.st.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: rep.JobID})
			require.NoError(t, err)
			require.NotEmpty(t, errs, name)
			for _, e := range errs {
				require.NotEmpty(t, e.Message, name)
			}
		default:
			t.Fatalf("%s: exit %d", name, code)
		}
		if strings.HasPrefix(name, "dcatap/") {
			require.Equal(t, exitJobError, code, name)
			require.Contains(t, rep.JobErrors[0], "ParseError", name)
		}
	}
}

// outageWAF is an agency WAF of ISO files that goes down (503 with an HTML error page, on
// every path) for outage of real time, starting at the request after the first `before` file
// downloads.
type outageWAF struct {
	*httptest.Server
	mu        sync.Mutex
	downloads int
	down      time.Time // when the outage began; zero before
	refused   int       // 503s sent
}

func newOutageWAF(t *testing.T, files, before int, outage time.Duration) *outageWAF {
	s := &outageWAF{}
	iso, err := os.ReadFile(corpustest.Path(t, "iso19115/datagov-valid-iso2-gmi.xml"))
	require.NoError(t, err)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.downloads >= before && s.down.IsZero() {
			s.down = time.Now()
		}
		if !s.down.IsZero() && time.Since(s.down) < outage {
			s.refused++
			s.mu.Unlock()
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, "<html><head><title>Service Unavailable</title></head></html>")
			return
		}
		if strings.HasSuffix(r.URL.Path, ".xml") {
			s.downloads++
		}
		s.mu.Unlock()
		if r.URL.Path == "/waf/" {
			fmt.Fprint(w, "<html><body><pre>")
			for i := range files {
				fmt.Fprintf(w, "<a href=\"record-%d.xml\">record-%d.xml</a>\n", i, i)
			}
			fmt.Fprint(w, "</pre></body></html>")
			return
		}
		w.Header().Set("Content-Type", "application/xml")
		_, _ = w.Write(iso)
	}))
	t.Cleanup(s.Close)
	return s
}

// An agency server that answers 503 for 20 seconds in the middle of a WAF job's downloads is
// retried through with the default retry policy: the job completes with exact counts.
func TestHarvestWAFThroughOutage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := newOutageWAF(t, 6, 2, 20*time.Second)
	// The defaults, spelled out: TestMain shortens the retry budget for the other tests.
	def := fetch.Config{}.WithDefaults()
	rep, code := b.harvest(t, "--url", srv.URL+"/waf/", "--source-type", "waf", "--schema-type", "iso19115_2",
		"--fetch-attempts", strconv.Itoa(def.Attempts), "--fetch-retry-budget", def.RetryBudget.String())
	require.Equal(t, exitOK, code, "job errors: %v", rep.JobErrors)
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, [6]int{6, 6, 0, 0, 0, 0}, [6]int{rep.Total, rep.Added, rep.Updated, rep.Deleted, rep.Unchanged, rep.Errored})
	srv.mu.Lock()
	defer srv.mu.Unlock()
	require.Greater(t, srv.refused, 1, "the outage happened, and was retried")
	require.Equal(t, 6, srv.downloads, "each file downloaded once")
}

// A redirect loop fails the job with an error that names the cap.
func TestHarvestRedirectLoop(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	rep, code := b.harvest(t, "--url", srv.URL+"/data.json", "--schema-type", federal, "--fetch-max-redirects", "3")
	require.Equal(t, exitJobError, code)
	require.Len(t, rep.JobErrors, 1)
	require.Contains(t, rep.JobErrors[0], "too many redirects: more than 3 redirects (the cap)")
}

// The fetch flags reach the fetch client; their environment variables set the defaults; 0
// keeps the built-in default; a negative value is a usage error.
func TestFetchFlags(t *testing.T) {
	t.Setenv("HARVESTER_FETCH_MAX_PER_HOST", "3")
	t.Setenv("HARVESTER_FETCH_TIMEOUT", "90s")
	parse := func(args ...string) (*serviceFlags, error) {
		var f serviceFlags
		cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
		f.register(cmd)
		cmd.SetArgs(args)
		if err := cmd.Execute(); err != nil {
			return nil, err
		}
		return &f, f.checkFetch()
	}
	f, err := parse("--fetch-max-bytes", "1024", "--fetch-attempts", "2", "--fetch-retry-budget", "5s",
		"--fetch-max-redirects", "4")
	require.NoError(t, err)
	c := f.fetchConfig()
	require.Equal(t, 3, c.MaxPerHost)
	require.Equal(t, 90*time.Second, c.Timeout)
	require.Equal(t, int64(1024), c.MaxBytes)
	require.Equal(t, 2, c.Attempts)
	require.Equal(t, 5*time.Second, c.RetryBudget)
	require.Equal(t, 4, c.MaxRedirects)
	require.Equal(t, 10*time.Second, c.MaxBackoff, "a default")
	require.Same(t, c.Client, f.fetchConfig().Client, "one client (and per-host limit) per process")

	_, err = parse("--fetch-max-per-host", "-1")
	require.ErrorContains(t, err, "--fetch-max-per-host: must not be negative")
}

// An ISO XML document source gets the same conditional GET.
func TestHarvestConditionalGETXML(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := newETagServer(t)
	srv.serve(t, "iso19115/datagov-valid-iso2-gmi.xml", `"x1"`)
	harvest := func() jobReport {
		rep, code := b.harvest(t, "--url", srv.URL+"/record.xml", "--schema-type", "iso19115_2")
		require.Equal(t, exitOK, code, "job errors: %v", rep.JobErrors)
		return rep
	}
	first := harvest()
	require.Equal(t, 1, first.Added)
	require.False(t, srv.lastConditional(t))
	again := harvest()
	require.True(t, srv.lastConditional(t))
	require.True(t, again.NotModified)
	require.Equal(t, [3]int{1, 1, 0}, [3]int{again.Total, again.Unchanged, again.Deleted})
}

// An HTML page sent with status 200 where an ISO XML document was expected fails the job, and
// the job error says so with the page's title.
func TestHarvestHTMLPageForXML(t *testing.T) {
	t.Parallel()
	b := setup(t)
	srv := newETagServer(t)
	srv.serve(t, "waf/apache-noaa-garfo.html", `"h1"`)
	rep, code := b.harvest(t, "--url", srv.URL+"/record.xml", "--schema-type", "iso19115_2")
	require.Equal(t, exitJobError, code)
	require.Len(t, rep.JobErrors, 1)
	require.Contains(t, rep.JobErrors[0], `the server sent an HTML page (HTTP 200, title "Index of`)
	require.Contains(t, rep.JobErrors[0], "where an XML document was expected")
}
