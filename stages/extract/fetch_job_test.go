package extract_test

import (
	"bytes"
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

// datedWAF is a WAF of one Apache <pre> listing whose files, bodies and listing dates a test
// edits; it counts each file's downloads.
type datedWAF struct {
	*httptest.Server
	mu        sync.Mutex
	files     map[string]*datedFile // by name
	downloads map[string]int
	// listingDate formats a file's date as the listing shows it; when nil, the listing shows
	// the minute of its first request, for every file (listedAt).
	listingDate func(*datedFile) string
	listedAt    time.Time
}

type datedFile struct {
	body     []byte
	modified time.Time // the file's mtime, shown through listingDate
}

func newDatedWAF(t *testing.T, listingDate func(*datedFile) string) *datedWAF {
	t.Helper()
	w := &datedWAF{files: map[string]*datedFile{}, downloads: map[string]int{}, listingDate: listingDate}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if r.URL.Path == "/waf/" {
			if w.listedAt.IsZero() {
				w.listedAt = time.Now().UTC()
			}
			var page bytes.Buffer
			page.WriteString("<html><body><h1>Index of /waf</h1><pre><a href=\"/\">Parent Directory</a>\n")
			for name, f := range w.files {
				date := w.listedAt.Format("2006-01-02 15:04")
				if w.listingDate != nil {
					date = w.listingDate(f)
				}
				fmt.Fprintf(&page, "<a href=%q>%s</a>    %s  %dK\n", name, name, date, len(f.body)>>10)
			}
			page.WriteString("</pre></body></html>")
			_, _ = rw.Write(page.Bytes())
			return
		}
		f, ok := w.files[r.URL.Path[len("/waf/"):]]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		w.downloads[r.URL.Path[len("/waf/"):]]++
		rw.Header().Set("Content-Type", "application/xml")
		_, _ = rw.Write(f.body)
	}))
	t.Cleanup(w.Close)
	return w
}

// set replaces a file's body and mtime.
func (w *datedWAF) set(name string, body []byte, modified time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files[name] = &datedFile{body: body, modified: modified}
}

// downloaded returns how often each file was downloaded since the last call.
func (w *datedWAF) downloaded() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.downloads
	w.downloads = map[string]int{}
	return d
}

// wafSource is the ISO 19115-2 WAF source of w's listing, in WAF time zone zone ("": the
// source's, UTC by default).
func wafSource(w *datedWAF, zone string) pipelinetest.Source {
	return pipelinetest.Source{URL: w.URL + "/waf/", SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_2,
		WAFTimeZone: zone}
}

// isoVersions are two versions of one valid ISO 19115-2 record: the corpus file, and the same
// file with its title edited.
func isoVersions(t *testing.T) (v1, v2 []byte) {
	t.Helper()
	v1, err := os.ReadFile(corpustest.Path(t, "iso19115/datagov-valid-iso2-gmi.xml"))
	require.NoError(t, err)
	i := bytes.Index(v1, []byte("<gco:CharacterString>"))
	require.Positive(t, i)
	v2 = bytes.Clone(v1)
	v2 = append(v2[:i+len("<gco:CharacterString>")], append([]byte("Edited "), v1[i+len("<gco:CharacterString>"):]...)...)
	return v1, v2
}

// An edit made in the same minute as a harvest, after it downloaded the file, shows the same
// listing date as before (listings show minutes): the next harvest downloads the file anyway
// and records the update. A file dated well before the last harvest is still skipped.
func TestHarvestWAFEditInHarvestMinute(t *testing.T) {
	t.Parallel()
	v1, v2 := isoVersions(t)
	w := newDatedWAF(t, nil) // the file shows the minute of the first listing, the first harvest's minute
	w.set("edited.xml", v1, time.Time{})
	h := pipelinetest.New(t)
	harvest := func() pipelinetest.Report {
		t.Helper()
		rep := h.Harvest(t, wafSource(w, ""))
		require.Equal(t, "complete", rep.Status, "%+v", rep)
		return rep
	}

	first := harvest()
	require.Equal(t, 1, first.Added, "%+v", first)
	require.Equal(t, map[string]int{"edited.xml": 1}, w.downloaded())

	// Edited after the harvest read it, within the minute the listing shows.
	w.set("edited.xml", v2, time.Time{})
	second := harvest()
	require.Equal(t, map[string]int{"edited.xml": 1}, w.downloaded(),
		"a file whose listing date is the previous harvest's minute is downloaded again")
	require.Equal(t, 1, second.Updated, "the edit is harvested: %+v", second)
}

// Files dated well before the last harvest are skipped, whatever minute the listing shows.
func TestHarvestWAFOldFileSkipped(t *testing.T) {
	t.Parallel()
	v1, _ := isoVersions(t)
	old := time.Now().Add(-2 * time.Hour)
	w := newDatedWAF(t, func(f *datedFile) string { return f.modified.UTC().Format("2006-01-02 15:04") })
	w.set("old.xml", v1, old)
	h := pipelinetest.New(t)
	require.Equal(t, 1, h.Harvest(t, wafSource(w, "")).Added)
	require.Equal(t, map[string]int{"old.xml": 1}, w.downloaded())
	rep := h.Harvest(t, wafSource(w, ""))
	require.Equal(t, 1, rep.Unchanged)
	require.Empty(t, w.downloaded(), "a file dated two hours before the last harvest is not downloaded")
}

// A listing showing the web server's local time without saying so is read in the source's
// WAF time zone; a zone the listing names wins over it. Ahead of UTC, an unchanged file is
// skipped (read as UTC its date would lie in the future); behind UTC, an edit after the last
// harvest is downloaded (read as UTC its date would lie hours before that harvest).
func TestHarvestWAFServerLocalTime(t *testing.T) {
	t.Parallel()
	v1, v2 := isoVersions(t)
	cases := []struct {
		name, zone string
		wafZone    string // the source's WAF time zone, or none
		layout     string // of the listing's dates
	}{
		{"ahead of UTC", "Asia/Tokyo", "Asia/Tokyo", "2006-01-02 15:04"},
		{"behind UTC", "America/New_York", "America/New_York", "2006-01-02 15:04"},
		{"behind UTC, IIS", "America/Los_Angeles", "America/Los_Angeles", "1/2/2006  3:04 PM"},
		{"the listing names its zone", "America/Chicago", "", "02-Jan-2006 15:04 -0700"},
		{"the listing's zone beats the source's", "Asia/Kolkata", "America/New_York",
			"2006-01-02 15:04 -07:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loc, err := time.LoadLocation(c.zone)
			require.NoError(t, err)
			w := newDatedWAF(t, func(f *datedFile) string { return f.modified.In(loc).Format(c.layout) })
			w.set("a.xml", v1, time.Now().Add(-2*time.Hour))
			h := pipelinetest.New(t)
			harvest := func() pipelinetest.Report {
				t.Helper()
				rep := h.Harvest(t, wafSource(w, c.wafZone))
				require.Equal(t, "complete", rep.Status, "%+v", rep)
				return rep
			}
			require.Equal(t, 1, harvest().Added)
			require.Equal(t, map[string]int{"a.xml": 1}, w.downloaded())

			rep := harvest()
			require.Equal(t, 1, rep.Unchanged)
			require.Empty(t, w.downloaded(), "unchanged since two hours before the last harvest: skipped")

			w.set("a.xml", v2, time.Now())
			rep = harvest()
			require.Equal(t, map[string]int{"a.xml": 1}, w.downloaded(), "edited after the last harvest: downloaded")
			require.Equal(t, 1, rep.Updated, "%+v", rep)
		})
	}
}
