package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// prometheusBinary is Debian's Prometheus server (scripts/prometheus.sh installs it):
// HARVESTER_PROMETHEUS, else prometheus on PATH. Without it the test fails in CI (CI=true)
// and is skipped elsewhere.
func prometheusBinary(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("HARVESTER_PROMETHEUS")
	if bin == "" {
		bin, _ = exec.LookPath("prometheus")
	}
	if bin == "" {
		msg := "no prometheus binary: run scripts/prometheus.sh (Debian's prometheus package) or set HARVESTER_PROMETHEUS"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// promServer is a Prometheus server run by a test.
type promServer struct {
	t    *testing.T
	base string
}

// startPrometheus runs a Prometheus server on loopback that scrapes target's /metrics every
// 500 ms, until the test ends, and returns once it answers.
func startPrometheus(t *testing.T, target string) *promServer {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 500ms
  scrape_timeout: 400ms
scrape_configs:
  - job_name: harvester
    static_configs:
      - targets: [%q]
`, target)
	cfgPath := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(cfg), 0o600))
	addr := freeAddr(t)
	cmd := exec.Command(prometheusBinary(t), "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	logf, err := os.Create(filepath.Join(dir, "prometheus.log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			out, _ := os.ReadFile(logf.Name())
			t.Logf("prometheus log:\n%s", out)
		}
	})
	p := &promServer{t: t, base: "http://" + addr}
	awaitOK(t, p.base+"/-/ready", "prometheus became ready")
	return p
}

// query runs an instant PromQL query and returns each series' value by the value of label
// ("" for a query whose single series has no such label).
func (p *promServer) query(q, label string) map[string]float64 {
	p.t.Helper()
	resp, err := http.Get(p.base + "/api/v1/query?query=" + url.QueryEscape(q))
	require.NoError(p.t, err)
	defer resp.Body.Close()
	var body struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  [2]any
			}
		}
	}
	require.NoError(p.t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(p.t, "success", body.Status, "query %s: %s", q, body.Error)
	out := map[string]float64{}
	for _, r := range body.Data.Result {
		v, err := strconv.ParseFloat(r.Value[1].(string), 64)
		require.NoError(p.t, err)
		out[r.Metric[label]] = v
	}
	return out
}

// TestPrometheusScrapesServe: a real Prometheus server scrapes `harvester serve` during a
// harvest, and what it stored of the per-stage message counts matches the job's counts.
func TestPrometheusScrapesServe(t *testing.T) {
	t.Setenv("HARVESTER_API_KEY", "s3cret")
	agency := corpustest.NewServer(t)
	catalog := corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json")
	agency.Serve(catalog)
	addr := freeAddr(t)
	c := startServe(t, addr, "--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t), "--scheduler-interval", "50ms")
	prom := startPrometheus(t, addr)
	require.Eventually(t, func() bool {
		return prom.query(`up{job="harvester"}`, "")[""] == 1
	}, 5*time.Minute, 100*time.Millisecond, "prometheus scrapes harvester")

	var org, src struct{ ID string }
	c.call("POST", "/api/v1/organizations", map[string]string{"name": "GSA", "slug": "gsa"}, http.StatusCreated, &org)
	c.call("POST", "/api/v1/harvest_sources", map[string]any{"name": "GSA data.json", "url": agency.URL(),
		"organization_id": org.ID, "schema_type": "dcatus1.1: federal", "frequency": "manual"}, http.StatusCreated, &src)
	var job apiJob
	c.call("POST", "/api/v1/harvest_sources/"+src.ID+"/jobs", map[string]string{"job_type": "harvest"}, http.StatusAccepted, &job)
	job = c.waitJob(job.ID)
	require.Equal(t, "complete", job.Status)
	require.Equal(t, 339, job.Total)

	require.Zero(t, job.Errored, "every record reaches SYNC")

	// What each stage received, by the job's counts: one job message, the listing's expected
	// count, no record through COMPARE (a data.json listing decides its records itself), the
	// created and updated ones through VALIDATE (DCAT-US skips TRANSFORM), every change through
	// SYNC, and through the aggregator the expected count and, when SYNC's batch that reached it
	// came after it, that batch's one outcome (SYNC settles its records itself): 1 or 2.
	want := map[string]float64{
		"extract": 1, "listing": 1, "trigger": 0,
		"compare":   0,
		"transform": 0,
		"validate":  float64(job.Added + job.Updated),
		"sync":      float64(job.Added + job.Updated + job.Deleted),
		"report":    1, // or 2: taken from what the aggregator received, which must be what was published
	}
	stages := func() map[string]float64 {
		return prom.query(`sum by (stage) (harvester_stage_messages_received_total{job="harvester"})`, "stage")
	}
	published := func() map[string]float64 {
		return prom.query(`sum by (subject) (harvester_messages_published_total)`, "subject")
	}
	// matches says whether one scrape's counts are the job's; got["report"] (1 or 2) is what was
	// published to the aggregator, and every record is counted once, by whichever stage settled
	// it (each batch counts after its statement, so a later scrape than the messages').
	matches := func() bool {
		got, pub := stages(), published()
		if r := got["report"]; (r == 1 || r == 2) && pub["harvest.v1.settled"] == r {
			want["report"] = r
		}
		return maps.Equal(want, got) && pub["harvest.v1.sync"] == want["sync"] &&
			prom.query(`sum(harvester_records_settled_total{job="harvester"})`, "")[""] == float64(job.Total)
	}
	// Waited for, not timed: Prometheus stores what a scrape after the job's last outcome saw.
	require.Eventually(t, matches, 5*time.Minute, 100*time.Millisecond, "prometheus has the per-stage counts of the job")
	// The aggregator counts a delivery as it starts: the job finishes while its last one runs.
	require.Eventually(t, func() bool {
		return prom.query(`harvester_jobs_finished_total{status="complete"}`, "")[""] == 1
	}, 5*time.Minute, 100*time.Millisecond, "prometheus saw the job finish")
	require.Eventually(t, func() bool {
		lag := prom.query(`max by (stage) (harvester_stage_consumer_pending_messages + harvester_stage_consumer_ack_pending_messages)`, "stage")
		return len(lag) == len(want) && maps.Equal(lag, map[string]float64{"extract": 0, "listing": 0, "trigger": 0, "compare": 0,
			"transform": 0, "validate": 0, "sync": 0, "report": 0})
	}, 5*time.Minute, 100*time.Millisecond, "every consumer drained")
	require.True(t, matches(), "and nothing more came: none counted twice, none published twice (%v, %v)", stages(), published())
	require.Equal(t, 1.0, prom.query(`min(harvester_dependency_up)`, "")[""], "database and NATS answer")
	fi, err := os.Stat(catalog)
	require.NoError(t, err)
	require.Equal(t, 1.0, prom.query(`sum(harvester_fetch_attempts_total{code="2xx"})`, "")[""], "one GET of the catalog")
	require.Equal(t, float64(fi.Size()), prom.query(`harvester_fetch_body_bytes_total`, "")[""])
	checkDashboard(t, prom)
	require.Eventually(t, func() bool {
		return prom.query(`harvester_sources_latest_job{status="complete"}`, "")[""] == 1
	}, 5*time.Minute, 100*time.Millisecond, "the source's latest job is complete")
}

// checkDashboard runs every query of deploy/grafana/harvester.json against prom, with Grafana's
// variables filled in: each must be valid PromQL and, but for the figures of jobs in progress
// (there are none now), come to return a series.
func checkDashboard(t *testing.T, prom *promServer) {
	t.Helper()
	raw, err := os.ReadFile("../../deploy/grafana/harvester.json")
	require.NoError(t, err)
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	require.NoError(t, json.Unmarshal(raw, &d))
	vars := strings.NewReplacer("$__rate_interval", "1m", "$job", "harvester")
	queries := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			queries++
			expr := vars.Replace(tg.Expr)
			got := prom.query(expr, "") // valid PromQL, or the query fails the test
			if strings.Contains(tg.Expr, "harvester_jobs_in_progress_") && strings.Contains(tg.Expr, "timestamp") {
				continue
			}
			// A rate or increase needs two samples of a series: a counter born at the job's end
			// may have one yet.
			require.Eventually(t, func() bool { got = prom.query(expr, ""); return len(got) > 0 },
				5*time.Minute, 100*time.Millisecond, "panel %q: %s returns nothing", p.Title, tg.Expr)
		}
	}
	require.Positive(t, queries)
}
