package extract_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// A harvest job whose document has not changed since the source's last complete harvest gets a
// 304 for its conditional GET: nothing is read again, nothing is deleted, every live dataset
// counts as unchanged. force_harvest and validate jobs, and the job after a failed one, download
// the document whole.
func TestHarvestConditionalGET(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx, srv := context.Background(), h.Corpus
	run := func(jobType harvest.JobType) pipelinetest.Report {
		return h.Harvest(t, pipelinetest.Source{URL: srv.URL(), SchemaType: pipelinetest.Federal, JobType: jobType})
	}
	liveDatasets := func(sourceID string) int {
		n, err := h.Store.DatasetCount(ctx, sourceID)
		require.NoError(t, err)
		return n
	}
	counts := func(r pipelinetest.Report) [6]int {
		return [6]int{r.Total, r.Added, r.Updated, r.Deleted, r.Unchanged, r.Errored}
	}

	srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	first := run("")
	pipelinetest.MustComplete(t, first)
	require.Equal(t, [6]int{339, 339, 0, 0, 0, 0}, counts(first))
	require.False(t, first.NotModified)
	require.False(t, srv.LastConditional(t), "no earlier harvest: a plain GET")

	again := run("")
	pipelinetest.MustComplete(t, again)
	require.True(t, srv.LastConditional(t))
	require.True(t, again.NotModified)
	require.Equal(t, [6]int{339, 0, 0, 0, 339, 0}, counts(again), "every live dataset unchanged")
	require.Equal(t, 339, liveDatasets(first.SourceID), "nothing deleted")

	val := run(harvest.JobValidate)
	pipelinetest.MustComplete(t, val)
	require.False(t, srv.LastConditional(t), "validate downloads the document")
	require.Equal(t, 339, val.Validated)

	third := run("")
	pipelinetest.MustComplete(t, third)
	require.True(t, third.NotModified, "a validate job in between does not count; a 304 job passes its validators on")

	forced := run(harvest.JobForceHarvest)
	pipelinetest.MustComplete(t, forced)
	require.False(t, srv.LastConditional(t), "force_harvest downloads the document")
	require.Equal(t, 339, forced.Updated)

	srv.Fail(http.StatusNotFound)
	failed := run("")
	require.Equal(t, "error", failed.Status)
	require.Contains(t, failed.JobErrors[0], "HTTP 404")
	srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	afterFail := run("")
	pipelinetest.MustComplete(t, afterFail)
	require.False(t, srv.LastConditional(t), "after a failed job no validators are sent")
	require.False(t, afterFail.NotModified)
	require.Equal(t, [6]int{339, 0, 0, 0, 339, 0}, counts(afterFail), "read and compared record by record")

	srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"))
	changed := run("")
	pipelinetest.MustComplete(t, changed)
	require.True(t, srv.LastConditional(t))
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
	h := pipelinetest.New(t)
	h.Config.MaxDeleteShare = 1
	ctx := context.Background()
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "*", "INVALID-*"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(files), 17)
	for _, path := range files {
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		schema := pipelinetest.Federal
		if strings.HasPrefix(name, "iso19115/") {
			schema = harvest.SchemaISO19115_2
		}
		h.Corpus.Serve(path)
		rep := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: schema})
		switch rep.Status {
		case "error":
			require.NotEmpty(t, rep.JobErrors, name)
			for _, e := range rep.JobErrors {
				require.Greater(t, len(e), len("ExtractError: "), name)
			}
		case "complete":
			require.Positive(t, rep.Errored, "%s: no record error", name)
			errs, _, err := h.Store.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: rep.JobID})
			require.NoError(t, err)
			require.NotEmpty(t, errs, name)
			for _, e := range errs {
				require.NotEmpty(t, e.Message, name)
			}
		default:
			t.Fatalf("%s: job %s", name, rep.Status)
		}
		if strings.HasPrefix(name, "dcatap/") {
			require.Equal(t, "error", rep.Status, name)
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
	h := pipelinetest.New(t)
	srv := newOutageWAF(t, 6, 2, 20*time.Second)
	// The defaults: pipelinetest.New shortens the retry budget for the other tests.
	h.Config.Fetch.RetryBudget = 0
	rep := h.Harvest(t, pipelinetest.Source{URL: srv.URL + "/waf/", SourceType: harvest.SourceWAF,
		SchemaType: harvest.SchemaISO19115_2})
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, [6]int{6, 6, 0, 0, 0, 0}, [6]int{rep.Total, rep.Added, rep.Updated, rep.Deleted, rep.Unchanged, rep.Errored})
	srv.mu.Lock()
	defer srv.mu.Unlock()
	require.Greater(t, srv.refused, 1, "the outage happened, and was retried")
	require.Equal(t, 6, srv.downloads, "each file downloaded once")
}

// A redirect loop fails the job with an error that names the cap.
func TestHarvestRedirectLoop(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	h.Config.Fetch.MaxRedirects = 3
	rep := h.Harvest(t, pipelinetest.Source{URL: srv.URL + "/data.json", SchemaType: pipelinetest.Federal})
	require.Equal(t, "error", rep.Status)
	require.Len(t, rep.JobErrors, 1)
	require.Contains(t, rep.JobErrors[0], "too many redirects: more than 3 redirects (the cap)")
}

// An ISO XML document source gets the same conditional GET.
func TestHarvestConditionalGETXML(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	srv := h.Corpus
	srv.Serve(corpustest.Path(t, "iso19115/datagov-valid-iso2-gmi.xml"))
	run := func() pipelinetest.Report {
		rep := h.Harvest(t, pipelinetest.Source{URL: srv.URL(), SchemaType: harvest.SchemaISO19115_2})
		pipelinetest.MustComplete(t, rep)
		return rep
	}
	first := run()
	require.Equal(t, 1, first.Added)
	require.False(t, srv.LastConditional(t))
	again := run()
	require.True(t, srv.LastConditional(t))
	require.True(t, again.NotModified)
	require.Equal(t, [3]int{1, 1, 0}, [3]int{again.Total, again.Unchanged, again.Deleted})
}

// An HTML page sent with status 200 where an ISO XML document was expected fails the job, and
// the job error says so with the page's title.
func TestHarvestHTMLPageForXML(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	h.Corpus.Serve(corpustest.Path(t, "waf/apache-noaa-garfo.html"))
	rep := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: harvest.SchemaISO19115_2})
	require.Equal(t, "error", rep.Status)
	require.Len(t, rep.JobErrors, 1)
	require.Contains(t, rep.JobErrors[0], `the server sent an HTML page (HTTP 200, title "Index of`)
	require.Contains(t, rep.JobErrors[0], "where an XML document was expected")
}
