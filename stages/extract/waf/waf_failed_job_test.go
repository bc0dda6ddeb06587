package waf_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// brokenWAF is an agency's WAF whose sub-folder may be missing: /pre/ is the corpus's Apache
// listing of record-1.xml and subfolder/; subfolder/ lists record-2.xml, or answers 404 while
// missing is set; /gone/ answers 404; /cfg/parent.xml is a waf-collection's parent record. It
// counts the downloads of each file.
type brokenWAF struct {
	*httptest.Server
	mu        sync.Mutex
	missing   bool
	downloads map[string]int
}

func newBrokenWAF(t *testing.T) *brokenWAF {
	t.Helper()
	w := &brokenWAF{missing: true, downloads: map[string]int{}}
	files := map[string]string{
		"/pre/record-1.xml":           "iso19115/datagov-valid-iso2-gmi.xml",
		"/pre/subfolder/record-2.xml": "iso19115/datagov-valid-iso1-gmd.xml",
		"/cfg/parent.xml":             "iso19115/census-series-collection-tl-2013-county-gmi.xml",
	}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		missing := w.missing
		if _, ok := files[r.URL.Path]; ok {
			w.downloads[r.URL.Path]++
		}
		w.mu.Unlock()
		switch p := r.URL.Path; {
		case p == "/pre/":
			http.ServeFile(rw, r, corpustest.Path(t, "waf/apache-folder-with-subfolder.html"))
		case p == "/pre/subfolder/" && !missing:
			fmt.Fprint(rw, `<html><body><pre><a href="../">Parent Directory</a>
<a href="record-2.xml">record-2.xml</a>          2024-05-01 10:00  12K
</pre></body></html>`)
		case files[p] != "":
			rw.Header().Set("Content-Type", "application/xml")
			http.ServeFile(rw, r, corpustest.Path(t, files[p]))
		default:
			http.NotFound(rw, r)
		}
	}))
	t.Cleanup(w.Close)
	return w
}

func (w *brokenWAF) setMissing(missing bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.missing = missing
}

func (w *brokenWAF) downloaded(path string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.downloads[path]
}

// failedJob is what must be the same on every run of a failed job.
type failedJob struct {
	Status    string
	Counts    harvest.Counts
	JobErrors []string
	Datasets  int // the source's live datasets after the job
}

// TestHarvestWAFFailedListingSameCounts: a WAF listing that cannot be read whole fails its job
// with the same status, counts and job error on every run, on Postgres and on the embedded
// default (SQLite): the whole listing is read before any file is downloaded (as Data.gov's
// traverse_waf does), so a failed one sends no record, writes no dataset and deletes none. The
// cases: a sub-folder linked from the listing answers 404 (the issue's "counts of 0 or 1 from
// run to run"), the listing page itself answers 404, and a waf-collection whose sub-folder
// answers 404 (its parent record is not sent either). Each runs failedRuns times.
func TestHarvestWAFFailedListingSameCounts(t *testing.T) {
	t.Parallel()
	const failedRuns = 10
	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			h := pipelinetest.New(t)
			var st store.Store = h.Store
			if backend == "sqlite" {
				h.Config.DatabaseURL, h.Config.NATSURL = "", ""
				lite, err := sqlite.Open(t.Context(), filepath.Join(h.Config.DataDir, "harvester.db"))
				require.NoError(t, err)
				t.Cleanup(lite.Close)
				require.NoError(t, lite.Migrate(t.Context()))
				st = lite
			}
			waf := newBrokenWAF(t)
			run := func(src pipelinetest.Source) failedJob {
				t.Helper()
				rep := h.Harvest(t, src)
				ds, err := st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: rep.SourceID})
				require.NoError(t, err)
				return failedJob{Status: rep.Status, Counts: rep.Counts, JobErrors: rep.JobErrors, Datasets: len(ds)}
			}
			notFound := func(listing string) failedJob {
				return failedJob{Status: "error", JobErrors: []string{fmt.Sprintf(
					"ExtractError: list WAF %s/pre/: WAF listing: GET %s: HTTP 404 Not Found", waf.URL, listing)}}
			}
			wafSrc := pipelinetest.Source{URL: waf.URL + "/pre/", SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_2}
			cases := []struct {
				name string
				src  pipelinetest.Source
				want failedJob
			}{
				{"a sub-folder answers 404", wafSrc, notFound(waf.URL + "/pre/subfolder/")},
				{"the listing answers 404", pipelinetest.Source{URL: waf.URL + "/gone/", SourceType: harvest.SourceWAF,
					SchemaType: harvest.SchemaISO19115_2}, failedJob{Status: "error", JobErrors: []string{fmt.Sprintf(
					"ExtractError: list WAF %s/gone/: WAF listing: GET %s/gone/: HTTP 404 Not Found", waf.URL, waf.URL)}}},
				{"a waf-collection's sub-folder answers 404", pipelinetest.Source{URL: waf.URL + "/pre", SourceType: harvest.SourceWAFCollection,
					CollectionParentURL: waf.URL + "/cfg/parent.xml", SchemaType: harvest.SchemaISO19115_2},
					failedJob{Status: "error", JobErrors: []string{fmt.Sprintf(
						"ExtractError: list WAF %s/pre: WAF listing: GET %s/pre/subfolder/: HTTP 404 Not Found", waf.URL, waf.URL)}}},
			}
			for _, c := range cases {
				got := make([]failedJob, failedRuns)
				for i := range got {
					got[i] = run(c.src)
				}
				for i := range got {
					require.Equal(t, c.want, got[i], "%s: run %d of %d: %+v", c.name, i+1, failedRuns, got)
				}
			}
			require.Zero(t, waf.downloaded("/pre/record-1.xml"), "no file of a listing that failed is downloaded")

			// Once the folder is back, the job harvests both files; when it is missing again, the
			// failed job deletes nothing.
			waf.setMissing(false)
			rep := h.Harvest(t, wafSrc)
			pipelinetest.MustComplete(t, rep)
			require.Equal(t, [2]int{2, 2}, [2]int{rep.Total, rep.Added}, "%+v", rep)
			waf.setMissing(true)
			want := notFound(waf.URL + "/pre/subfolder/")
			want.Datasets = 2
			require.Equal(t, want, run(wafSrc), "a failed listing deletes nothing")
		})
	}
}
