package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// linkSite answers the link checks: 404 for a path with "credit-card" in it while broken is
// set, 200 otherwise; it counts the requests of each path.
type linkSite struct {
	*httptest.Server
	broken atomic.Bool
	mu     sync.Mutex
	hits   map[string]int
	agents map[string]bool // the User-Agents of the requests
}

func newLinkSite(t *testing.T) *linkSite {
	s := &linkSite{hits: map[string]int{}, agents: map[string]bool{}}
	s.broken.Store(true)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.agents[r.UserAgent()] = true
		s.mu.Unlock()
		if s.broken.Load() && strings.Contains(r.URL.Path, "credit-card") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>data</html>"))
	}))
	t.Cleanup(s.Close)
	return s
}

// agencyWithLinks serves the CFPB corpus catalog (11 datasets, one accessURL each, 11
// distinct URLs, two of them with "credit-card" in their path) with every distribution URL
// moved onto site, keeping its path. agent gets the User-Agent of each request.
func agencyWithLinks(t *testing.T, site string, agent *atomic.Value) *httptest.Server {
	raw, err := os.ReadFile(corpustest.Path(t, "dcatus/agency-cfpb-2025-07.data.json"))
	require.NoError(t, err)
	var catalog map[string]any
	require.NoError(t, json.Unmarshal(raw, &catalog))
	for _, d := range catalog["dataset"].([]any) {
		for _, dist := range d.(map[string]any)["distribution"].([]any) {
			dm := dist.(map[string]any)
			for _, k := range []string{"accessURL", "downloadURL"} {
				if s, ok := dm[k].(string); ok {
					u, err := url.Parse(s)
					require.NoError(t, err)
					dm[k] = site + u.Path
				}
			}
		}
	}
	body, err := json.Marshal(catalog)
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agent.Store(r.UserAgent())
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHarvestCheckLinks: harvest --check-links checks (through CHECK) each distinct distribution
// URL of the source's live datasets once, stores the results, waits for the job's quality event
// and reports it; every request, the catalog's and the checks', sends --user-agent's contact; when the
// two broken URLs answer 200 on the next run, the mean score rises by exactly their
// accessUrlStatusCode points (2 × 50 / 11 datasets). On both backends.
func TestHarvestCheckLinks(t *testing.T) {
	const contact = "https://ops.example.org/harvester"
	t.Parallel()
	backends := map[string]func(t *testing.T) []string{
		"postgres": func(t *testing.T) []string {
			return []string{"--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t), "--data-dir", t.TempDir()}
		},
		"embedded": func(t *testing.T) []string {
			return []string{"--database-url", "", "--nats-url", "", "--data-dir", t.TempDir()}
		},
	}
	for name, servicesOf := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			services := servicesOf(t)
			site := newLinkSite(t)
			var agent atomic.Value
			agency := agencyWithLinks(t, site.URL, &agent)
			harvestJSON := func() jobReport {
				var out, errOut bytes.Buffer
				args := append([]string{"harvest", "--url", agency.URL + "/data.json", "--schema-type", federal,
					"--check-links", "--link-host-rate", "50", "--format", "json", "--user-agent", contact}, services...)
				code := run(context.Background(), args, &out, &errOut)
				require.Equal(t, exitOK, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
				var rep jobReport
				require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
				require.NotNil(t, rep.Quality, out.String())
				return rep
			}
			first := harvestJSON()
			require.Equal(t, 11, first.Added)
			q := first.Quality
			require.Equal(t, 11, q.Datasets)
			require.Equal(t, harvest.QualityLinks{URLs: 11, Checked: 11, OK: 9, Broken: 2}, q.Links)
			require.Equal(t, 405, q.Max)
			require.Greater(t, q.Score, 0.0)
			site.mu.Lock()
			require.Len(t, site.hits, 11)
			for path, n := range site.hits {
				want := 1 // HEAD
				if strings.Contains(path, "credit-card") {
					want = 2 // HEAD 404, then a one-byte GET
				}
				require.Equal(t, want, n, path)
			}
			// --user-agent: one User-Agent, naming the operator's contact, for fetching and checking alike.
			require.Equal(t, map[string]bool{fetch.UserAgent(contact): true}, site.agents)
			require.Equal(t, fetch.UserAgent(contact), agent.Load())
			require.Contains(t, fetch.UserAgent(contact), "(+"+contact+"; ")
			site.mu.Unlock()

			site.broken.Store(false)
			second := harvestJSON()
			require.Equal(t, 11, second.Unchanged)
			require.Equal(t, harvest.QualityLinks{URLs: 11, Checked: 11, OK: 11}, second.Quality.Links)
			require.InDelta(t, 2*50.0/11, second.Quality.Score-q.Score, 1e-9)

			// Each job's recorded quality is the one after its checks (recorded again with them).
			var st store.Store
			if services[1] != "" {
				st = dbtest.Open(t, services[1])
			} else {
				s, err := sqlite.Open(t.Context(), filepath.Join(services[5], "harvester.db"))
				require.NoError(t, err)
				t.Cleanup(s.Close)
				st = s
			}
			hist, err := st.QualityAggregateHistory(t.Context(), &store.QualityAggregateHistoryParams{
				Scope: store.QualityScopeSource, ScopeID: first.SourceID})
			require.NoError(t, err)
			require.Len(t, hist, 2)
			require.Equal(t, [2]string{first.JobID, second.JobID}, [2]string{hist[0].JobID, hist[1].JobID})
			require.Equal(t, [2]int{2, 0}, [2]int{hist[0].LinksBroken, hist[1].LinksBroken})
			require.InDelta(t, q.Score, hist[0].Mean, 1e-9)
			require.InDelta(t, second.Quality.Score, hist[1].Mean, 1e-9)
		})
	}
}

// TestHarvestLinkExcludeHosts: a host on --link-exclude-hosts is never requested; its URLs are
// stored as excluded and count as not checked.
func TestHarvestLinkExcludeHosts(t *testing.T) {
	t.Parallel()
	site := newLinkSite(t)
	var agent atomic.Value
	agency := agencyWithLinks(t, site.URL, &agent)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"harvest", "--url", agency.URL + "/data.json", "--schema-type", federal,
		"--check-links", "--link-exclude-hosts", "example.org, 127.0.0.1", "--format", "json",
		"--database-url", "", "--nats-url", "", "--data-dir", t.TempDir()}, &out, &errOut)
	require.Equal(t, exitOK, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	var rep jobReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	require.NotNil(t, rep.Quality, out.String())
	require.Equal(t, harvest.QualityLinks{URLs: 11, Unchecked: 11}, rep.Quality.Links)
	site.mu.Lock()
	defer site.mu.Unlock()
	require.Empty(t, site.hits, "an excluded host was requested")
}
