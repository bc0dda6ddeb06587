package metrics_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/testenv"
	"github.com/harvester-dev/harvester/metrics"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// TestQualityCollector: each source's latest recorded quality is a series of
// harvester_quality_score and harvester_links_broken labelled by its id and name; a source with
// no record has none; the exposition passes promtool check metrics.
func TestQualityCollector(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	st := dbtest.Store(t)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(metrics.NewQualityCollector(st, discard, 0)))
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(""), "harvester_quality_score"))

	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "Agency data.json", URL: "https://example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	_, err = st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "never recorded", URL: "https://example.gov/other.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i, mean := range []float64{120, 174.5} {
		require.NoError(t, st.QualityAggregateSave(ctx, []*store.QualityAggregate{{Scope: store.QualityScopeSource,
			ScopeID: src.ID, JobID: uuid.NewString(), SourceID: src.ID, ComputedAt: t0.Add(time.Duration(i) * time.Hour),
			Datasets: 11, Mean: mean, Rating: "Sufficient", LinksURLs: 11, LinksBroken: 2 + i, Summary: json.RawMessage(`{}`)}}))
	}
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP harvester_links_broken Distinct distribution URLs of a source whose latest check found them broken, when its latest job ended.
# TYPE harvester_links_broken gauge
harvester_links_broken{source="Agency data.json",source_id="`+src.ID+`"} 3
# HELP harvester_quality_score Mean MQA score (0-405 points) of a source's live datasets when its latest job ended.
# TYPE harvester_quality_score gauge
harvester_quality_score{source="Agency data.json",source_id="`+src.ID+`"} 174.5
`)))

	promtool := testenv.Tool(t, "HARVESTER_PROMTOOL", "promtool",
		"no promtool: run scripts/prometheus.sh (Debian's prometheus package) or set HARVESTER_PROMTOOL")
	families, err := reg.Gather()
	require.NoError(t, err)
	var text bytes.Buffer
	enc := expfmt.NewEncoder(&text, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, f := range families {
		require.NoError(t, enc.Encode(f))
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = &text
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "promtool check metrics:\n%s\n%s", out, text.String())
}
