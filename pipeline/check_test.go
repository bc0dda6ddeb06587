package pipeline_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/scheduler"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

// heldSite answers link checks: "/held" only once release is closed, 404 for a path with
// "credit-card" in it, 200 otherwise; it counts the requests of each path.
type heldSite struct {
	*httptest.Server
	release chan struct{}
	mu      sync.Mutex
	hits    map[string]int
	held    bool // "/held" has been answered
}

func newHeldSite(t *testing.T) *heldSite {
	s := &heldSite{release: make(chan struct{}), hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		switch {
		case r.URL.Path == "/held":
			<-s.release
			s.mu.Lock()
			s.held = true
			s.mu.Unlock()
		case strings.Contains(r.URL.Path, "credit-card"):
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/csv")
	}))
	t.Cleanup(func() {
		s.free()
		s.Close()
	})
	return s
}

func (s *heldSite) free() {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-s.release:
	default:
		close(s.release)
	}
}

func (s *heldSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *heldSite) answered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.held
}

// sharedCatalog serves the CFPB corpus catalog (11 datasets, one accessURL each, two with
// "credit-card" in their path) with its URLs moved onto site, the second dataset's onto
// site/held, and the first dataset copied copies times under other identifiers and titles, all
// sharing its accessURL. It returns the catalog's URL, its distinct distribution URLs and the
// path of the shared one.
func sharedCatalog(t *testing.T, site string, copies int) (string, []string, string) {
	raw, err := os.ReadFile(corpustest.Path(t, "dcatus/agency-cfpb-2025-07.data.json"))
	require.NoError(t, err)
	var catalog map[string]any
	require.NoError(t, json.Unmarshal(raw, &catalog))
	datasets := catalog["dataset"].([]any)
	urls := map[string]bool{}
	for i, d := range datasets {
		for _, dist := range d.(map[string]any)["distribution"].([]any) {
			dm := dist.(map[string]any)
			for _, k := range []string{"accessURL", "downloadURL"} {
				if s, ok := dm[k].(string); ok {
					u, err := url.Parse(s)
					require.NoError(t, err)
					dm[k] = site + u.Path
					if i == 1 {
						dm[k] = site + "/held"
					}
					urls[dm[k].(string)] = true
				}
			}
		}
	}
	first, err := json.Marshal(datasets[0])
	require.NoError(t, err)
	shared, err := url.Parse(datasets[0].(map[string]any)["distribution"].([]any)[0].(map[string]any)["accessURL"].(string))
	require.NoError(t, err)
	for i := range copies {
		var d map[string]any
		require.NoError(t, json.Unmarshal(first, &d))
		d["identifier"] = fmt.Sprintf("%v-copy-%d", d["identifier"], i)
		d["title"] = fmt.Sprintf("%v (copy %d)", d["title"], i)
		datasets = append(datasets, d)
	}
	catalog["dataset"] = datasets
	out := make([]string, 0, len(urls))
	for u := range urls {
		out = append(out, u)
	}
	return serveCatalog(t, catalog), out, shared.Path
}

// serveCatalog serves catalog as JSON until the test ends and returns its URL.
func serveCatalog(t *testing.T, catalog map[string]any) string {
	t.Helper()
	body, err := json.Marshal(catalog)
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/data.json"
}

// harvestWithoutCheck harvests catalogURL with link checks on through a pipeline of every stage
// but CHECK, so that SYNC's LinkChecks wait on HARVEST_CHECK for whoever runs CHECK; the job
// must complete.
func harvestWithoutCheck(t *testing.T, h *pipelinetest.Harness, links *pipeline.LinkCheckConfig, catalogURL string) pipelinetest.Report {
	t.Helper()
	cfg := h.Config
	cfg.LinkChecks = links
	cfg.Stages = slices.DeleteFunc(slices.Clone(cfg.Stages), func(s string) bool { return s == pipeline.StageCheck })
	rep := (&pipelinetest.Harness{DatabaseURL: h.DatabaseURL, NATSURL: h.NATSURL, Store: h.Store, Config: cfg,
		ReportWait: time.Minute}).Harvest(t, pipelinetest.Source{URL: catalogURL, SchemaType: pipelinetest.Federal})
	require.Equal(t, "complete", rep.Status)
	return rep
}

// TestCheckStage: a harvest through NATS JetStream with CHECK on, on both stores. SYNC sends the
// URLs of the datasets it added to CHECK; the job's report comes while a link check is still
// waiting for its server (no job waits for CHECK); once that server answers, the source's
// quality event comes on harvest.v1.quality, the checks of every URL are stored, the event is
// kept in the store, and the URL that 301 datasets share was requested once.
func TestCheckStage(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			h := pipelinetest.New(t)
			cfg := h.Config
			if backend == "sqlite" { // the embedded default: SQLite and a NATS server in DataDir
				cfg.DatabaseURL, cfg.NATSURL = "", ""
			}
			// The held check must outlast the job however slow the machine: no timeout of its own.
			cfg.LinkChecks = &pipeline.LinkCheckConfig{Recheck: check.DefaultRecheck,
				Checker: check.Config{HostRate: 200, HostConcurrency: 4, Timeout: 30 * time.Minute}}
			site := newHeldSite(t)
			const copies = 300
			catalogURL, urls, shared := sharedCatalog(t, site.URL, copies)

			ctx := context.Background()
			cfg.Fetch = cfg.Fetch.WithDefaults()
			pl, err := pipeline.New(ctx, cfg)
			require.NoError(t, err)
			require.NoError(t, pl.Start(ctx))
			t.Cleanup(pl.Close)
			reports, stopReports, err := pl.Bus().Reports()
			require.NoError(t, err)
			defer stopReports()
			qualities, stopQualities, err := pl.Bus().QualityReports()
			require.NoError(t, err)
			defer stopQualities()

			job, err := jobs.New(pl.Store(), pl.Bus()).Start(ctx, jobs.Params{URL: catalogURL,
				SourceType: harvest.SourceDocument, SchemaType: pipelinetest.Federal, JobType: harvest.JobHarvest})
			require.NoError(t, err)
			rep := jobs.AwaitReport(ctx, reports, job.ID, 10*time.Minute) // a safety net only
			require.NotNil(t, rep, "no report event")
			require.Equal(t, harvest.JobComplete, rep.Status)
			require.Equal(t, 11+copies, rep.Added)
			require.False(t, site.answered(), "the job's report waited for a link check")
			select {
			case q := <-qualities:
				t.Fatalf("a quality event before the held link was answered: %+v", q)
			default:
			}

			site.free()
			q := awaitQuality(t, qualities, job.ID)
			require.Equal(t, rep.SourceID, q.SourceID)
			require.Equal(t, 11+copies, q.Datasets)
			require.Equal(t, harvest.QualityLinks{URLs: len(urls), Checked: len(urls), OK: len(urls) - 2, Broken: 2}, q.Links)
			require.Equal(t, quality.MaxPoints, q.Max)
			require.Equal(t, string(quality.RatingOf(q.Score)), q.Rating)

			stored, err := pl.Store().LinkResultGet(ctx, urls)
			require.NoError(t, err)
			require.Len(t, stored, len(urls), "a check stored for every URL")
			require.Equal(t, 1, site.count(shared), "the URL shared by %d datasets requested once", copies+1)
			require.True(t, stored[site.URL+"/held"].OK)

			kept, err := pl.Store().QualityReportGet(ctx, job.ID)
			require.NoError(t, err)
			var keptEvent harvest.QualityReport
			require.NoError(t, json.Unmarshal(kept.Report, &keptEvent))
			require.Equal(t, *q, keptEvent)
			// the source's quality history holds the job's row again, with the checks' results
			// (the job's end recorded it while the held link was still unchecked)
			hist, err := pl.Store().QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{
				Scope: store.QualityScopeSource, ScopeID: rep.SourceID, Summaries: true})
			require.NoError(t, err)
			require.NotEmpty(t, hist)
			last := hist[len(hist)-1]
			require.Equal(t, job.ID, last.JobID)
			var summary assess.Source
			require.NoError(t, json.Unmarshal(last.Summary, &summary))
			require.Equal(t, assess.Links{URLs: len(urls), Checked: len(urls), OK: len(urls) - 2, Broken: 2}, summary.Links,
				"the history holds what the checks found")
		})
	}
}

// awaitQuality returns the quality event of job jobID, failing the test when none comes within
// a generous limit (it exists only to stop a hung test).
func awaitQuality(t *testing.T, qualities <-chan *harvest.QualityReport, jobID string) *harvest.QualityReport {
	t.Helper()
	limit := time.After(10 * time.Minute)
	for {
		select {
		case q := <-qualities:
			if q.JobID == jobID {
				return q
			}
		case <-limit:
			t.Fatalf("no quality event for job %s", jobID)
		}
	}
}

// TestCheckWorker: CHECK scales on its own. A process that runs every stage but CHECK harvests
// with link checks on: its job completes, and SYNC leaves one LinkCheck per added dataset on
// CHECK's stream (HARVEST_CHECK) for whoever runs CHECK; a worker that runs CHECK alone
// (`harvester worker --stages check`), started after the job ended, checks and stores them, each
// distinct URL once.
func TestCheckWorker(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	site := newHeldSite(t)
	site.free()
	const copies = 50
	catalogURL, urls, shared := sharedCatalog(t, site.URL, copies)
	links := &pipeline.LinkCheckConfig{Recheck: check.DefaultRecheck, Checker: check.Config{HostRate: 200}}
	ctx := context.Background()

	rep := harvestWithoutCheck(t, h, links, catalogURL)
	require.Equal(t, 11+copies, rep.Added)

	nc, err := nats.Connect(h.NATSURL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	stream, err := js.Stream(ctx, router.StreamCheck)
	require.NoError(t, err)
	info, err := stream.Info(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 11+copies, info.State.Msgs, "one LinkCheck per added dataset with URLs")
	got, err := h.Store.LinkResultGet(ctx, urls)
	require.NoError(t, err)
	require.Empty(t, got, "checked without CHECK")

	worker := h.Config
	worker.LinkChecks = links
	worker.Stages = []string{pipeline.StageCheck}
	pl, err := pipeline.New(ctx, worker)
	require.NoError(t, err)
	require.NoError(t, pl.Start(ctx))
	t.Cleanup(pl.Close)
	require.Eventually(t, func() bool {
		got, err := h.Store.LinkResultGet(ctx, urls)
		require.NoError(t, err)
		return len(got) == len(urls)
	}, 10*time.Minute, 20*time.Millisecond, "the worker stores a check of every URL")
	require.Equal(t, 1, site.count(shared), "the URL shared by %d datasets requested once", copies+1)
}

// TestCheckRecheck: the scheduler's leader queues the URLs of live datasets last checked longer
// ago than the recheck interval, and only those, and drops the stored checks of URLs no live
// dataset uses. A source whose link_checks is off gets no check at all.
func TestCheckRecheck(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	site := newHeldSite(t)
	site.free()
	catalogURL, urls, _ := sharedCatalog(t, site.URL, 0)
	links := &pipeline.LinkCheckConfig{Recheck: check.DefaultRecheck, Checker: check.Config{HostRate: 200}}
	ctx := context.Background()
	cfg := h.Config
	cfg.LinkChecks = links
	first, err := pipeline.New(ctx, cfg)
	require.NoError(t, err)
	require.NoError(t, first.Start(ctx))
	qualities, stop, err := first.Bus().QualityReports()
	require.NoError(t, err)
	job, err := jobs.New(first.Store(), first.Bus()).Start(ctx, jobs.Params{URL: catalogURL, SourceType: harvest.SourceDocument,
		SchemaType: pipelinetest.Federal, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	awaitQuality(t, qualities, job.ID) // the report is settled: no check of it is left to make
	stop()
	awaitCheckDrained(t, h.NATSURL, 11)
	first.Close()
	got, err := h.Store.LinkResultGet(ctx, urls)
	require.NoError(t, err)
	require.Len(t, got, len(urls))

	// Two checks gone stale, one fresh enough; and the check of a URL no dataset uses.
	stale := []string{urls[0], urls[1]}
	rows, err := h.Store.LinkResultGet(ctx, urls[:3])
	require.NoError(t, err)
	rows[urls[0]].CheckedAt = time.Now().Add(-check.DefaultRecheck - time.Hour).UTC()
	rows[urls[1]].CheckedAt = time.Now().Add(-30 * 24 * time.Hour).UTC()
	rows[urls[2]].CheckedAt = time.Now().Add(-check.DefaultRecheck + time.Hour).UTC()
	unused := &store.LinkResult{URL: "https://gone.example.org/file.csv", Status: 200, OK: true, ContentLength: -1,
		CheckedAt: time.Now().UTC()}
	require.NoError(t, h.Store.LinkResultUpsert(ctx, []*store.LinkResult{rows[urls[0]], rows[urls[1]], rows[urls[2]], unused}))
	before := map[string]int{}
	for _, u := range urls {
		before[u] = site.count(strings.TrimPrefix(u, site.URL))
	}

	leader := h.Config
	leader.LinkChecks = links
	leader.Scheduler = &scheduler.Config{Interval: 50 * time.Millisecond}
	pl, err := pipeline.New(ctx, leader)
	require.NoError(t, err)
	require.NoError(t, pl.Start(ctx))
	t.Cleanup(pl.Close)
	require.Eventually(t, func() bool {
		got, err := h.Store.LinkResultGet(ctx, stale)
		require.NoError(t, err)
		return len(got) == 2 && time.Since(got[stale[0]].CheckedAt) < time.Hour && time.Since(got[stale[1]].CheckedAt) < time.Hour
	}, 10*time.Minute, 20*time.Millisecond, "the stale checks are made again")
	require.Eventually(t, func() bool {
		got, err := h.Store.LinkResultGet(ctx, []string{unused.URL})
		require.NoError(t, err)
		return len(got) == 0
	}, 10*time.Minute, 20*time.Millisecond, "the check of a URL no dataset uses is dropped")
	for _, u := range urls {
		got := site.count(strings.TrimPrefix(u, site.URL))
		if slices.Contains(stale, u) { // checked again: one request or more (HEAD, then GET)
			require.Greater(t, got, before[u], u)
			continue
		}
		require.Equal(t, before[u], got, "%s: its check is fresh, or no dataset uses it", u)
	}
}

// TestCheckSourceOptOut: a source whose link_checks setting is off has none of its URLs
// checked and no quality event, though SYNC sent CHECK its URLs.
func TestCheckSourceOptOut(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	site := newHeldSite(t)
	site.free()
	catalogURL, urls, _ := sharedCatalog(t, site.URL, 0)
	cfg := h.Config
	cfg.LinkChecks = &pipeline.LinkCheckConfig{Recheck: check.DefaultRecheck, Checker: check.Config{HostRate: 200}}
	ctx := context.Background()
	pl, err := pipeline.New(ctx, cfg)
	require.NoError(t, err)
	require.NoError(t, pl.Start(ctx))
	t.Cleanup(pl.Close)
	reports, stop, err := pl.Bus().Reports()
	require.NoError(t, err)
	defer stop()
	qualities, stopQualities, err := pl.Bus().QualityReports()
	require.NoError(t, err)
	defer stopQualities()
	job, err := jobs.New(pl.Store(), pl.Bus()).Start(ctx, jobs.Params{URL: catalogURL, SourceType: harvest.SourceDocument,
		SchemaType: pipelinetest.Federal, JobType: harvest.JobHarvest,
		Options: map[string]string{harvest.SettingLinkChecks: "off"}})
	require.NoError(t, err)
	rep := jobs.AwaitReport(ctx, reports, job.ID, 10*time.Minute)
	require.NotNil(t, rep)
	require.Equal(t, 11, rep.Added)

	awaitCheckDrained(t, h.NATSURL, 11)
	got, err := h.Store.LinkResultGet(ctx, urls)
	require.NoError(t, err)
	require.Empty(t, got)
	for _, u := range urls {
		require.Zero(t, site.count(strings.TrimPrefix(u, site.URL)), u)
	}
	select {
	case q := <-qualities:
		t.Fatalf("a quality event of a source that does not check its links: %+v", q)
	default:
	}
}

// awaitCheckDrained waits until CHECK's consumer on the NATS server at natsURL has been given
// at least delivered messages and has none pending or unacknowledged.
func awaitCheckDrained(t *testing.T, natsURL string, delivered uint64) {
	t.Helper()
	nc, err := nats.Connect(natsURL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		c, err := js.Consumer(t.Context(), router.StreamCheck, "harvest-check")
		require.NoError(t, err)
		info, err := c.Info(t.Context())
		require.NoError(t, err)
		return info.Delivered.Consumer >= delivered && info.NumPending == 0 && info.NumAckPending == 0
	}, 10*time.Minute, 20*time.Millisecond, "CHECK handles every message")
}
