// Package grafana_test checks deploy/grafana/harvester.json against what Harvester exports.
package grafana_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/scheduler"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// exported is every metric name a `harvester serve` process exports: what its pipeline's parts
// register (on Postgres, with every stage, the scheduler and the API), and the Go and process
// collectors cmd/harvester adds.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	reg := prometheus.NewRegistry()
	p, err := pipeline.New(context.Background(), pipeline.Config{DatabaseURL: dbtest.URL(t), DataDir: t.TempDir(),
		Registry: reg, Logger: slog.New(slog.DiscardHandler), Stages: pipeline.StageNames(),
		Scheduler: &scheduler.Config{}, API: &api.Config{}})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(t.Context())) // the router registers some metrics as it subscribes
	names := map[string]bool{}
	for _, n := range p.MetricNames() {
		names[n] = true
	}
	for _, c := range []prometheus.Collector{collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		descs := make(chan *prometheus.Desc)
		go func() { c.Describe(descs); close(descs) }()
		for d := range descs {
			if m := regexp.MustCompile(`fqName: "([^"]+)"`).FindStringSubmatch(d.String()); m != nil {
				names[m[1]] = true
			}
		}
	}
	return names
}

// promqlNoise are the parts of a PromQL expression that are not metric names: strings, label
// matchers, range and subquery selectors, grouping clauses, Grafana's $variables and numbers.
var promqlNoise = []*regexp.Regexp{
	regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'`),
	regexp.MustCompile(`\{[^}]*\}`),
	regexp.MustCompile(`\[[^\]]*\]`),
	regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`),
	regexp.MustCompile(`\$\w+`),
	regexp.MustCompile(`\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b`),
}

var (
	promqlIdent    = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*(\s*\()?`)
	promqlKeywords = []string{"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
		"group_left", "group_right", "inf", "nan"}
)

// metricNames returns the metric names a PromQL expression selects: its identifiers that are
// not functions or aggregations (followed by "("), keywords, label names or values.
func metricNames(expr string) []string {
	for _, re := range promqlNoise {
		expr = re.ReplaceAllString(expr, " ")
	}
	var names []string
	for _, m := range promqlIdent.FindAllStringSubmatch(expr, -1) {
		if m[1] != "" || slices.Contains(promqlKeywords, strings.ToLower(m[0])) {
			continue
		}
		names = append(names, m[0])
	}
	return names
}

func TestMetricNames(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"a_bucket"},
		metricNames(`histogram_quantile(0.95, sum by (stage, le) (rate(a_bucket{code=~"5xx|x"}[$__rate_interval])))`))
	require.Equal(t, []string{"a_total", "b"}, metricNames(`sum(rate(a_total[5m])) / on (x) group_left max(b) > 0.5`))
	require.Equal(t, []string{"c"}, metricNames(`time() - min(c)`))
}

// dashboard is the part of a Grafana dashboard this test reads.
type dashboard struct {
	Panels []struct {
		Title   string
		Type    string
		Targets []struct{ Expr string }
	}
	Templating struct {
		List []struct {
			Name  string
			Query json.RawMessage
		}
	}
}

// TestDashboardNamesExportedMetrics: every metric a panel (or a variable) of the dashboard
// queries is one Harvester exports, and every panel but the rows queries something.
func TestDashboardNamesExportedMetrics(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("harvester.json")
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(raw, &d))
	names := exported(t)
	require.True(t, names["harvester_stage_messages_received_total"], "the pipeline's metrics are listed: %v", names)
	check := func(where, expr string) {
		t.Helper()
		got := metricNames(expr)
		require.NotEmpty(t, got, "%s: %s names no metric", where, expr)
		for _, n := range got {
			base := n
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if b, ok := strings.CutSuffix(n, suffix); ok && names[b] {
					base = b
				}
			}
			require.True(t, names[base], "%s: %s queries %s, which Harvester does not export", where, expr, n)
		}
	}
	panels := 0
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		panels++
		require.NotEmpty(t, p.Targets, "panel %q has no query", p.Title)
		for _, tg := range p.Targets {
			check("panel "+p.Title, tg.Expr)
		}
	}
	require.GreaterOrEqual(t, panels, 20)
	for _, v := range d.Templating.List {
		var q struct{ Query string }
		if json.Unmarshal(v.Query, &q) == nil && strings.HasPrefix(q.Query, "label_values(") {
			metric, _, _ := strings.Cut(strings.TrimPrefix(q.Query, "label_values("), ",")
			check("variable "+v.Name, metric)
		}
	}
}
