package compare_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/stages/extract/portal/portaltest"
)

// TestUnchangedRecordsSettleInCompare: a portal's unchanged records (a CKAN's, re-harvested)
// are settled by COMPARE in its own batches: the aggregator hears of the expected count and of
// at most one batch that reached it, not of each record, and the counts and the outcome
// metric are those of the aggregator. On the production setup and on the embedded default.
func TestUnchangedRecordsSettleInCompare(t *testing.T) {
	t.Parallel()
	ckan := portaltest.NewCKAN(t, portaltest.CorpusPackages(t))
	for name, embedded := range map[string]bool{"postgres": false, "embedded": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := pipelinetest.New(t)
			if embedded {
				h.Config.DatabaseURL, h.Config.NATSURL = "", ""
			}
			src := pipelinetest.Source{URL: ckan.URL(), SourceType: harvest.SourceCKAN, SchemaType: harvest.SchemaDCATUS11NonFederal}
			first := h.Harvest(t, src)
			pipelinetest.MustComplete(t, first)
			require.Positive(t, first.Added)

			reg := prometheus.NewRegistry()
			h.Config.Registry = reg
			second := h.Harvest(t, src)
			pipelinetest.MustComplete(t, second)
			require.Equal(t, first.Added, second.Unchanged)
			require.Equal(t, first.Errored, second.Errored)
			require.Equal(t, float64(second.Unchanged), counter(t, reg, "harvester_records_settled_total", "outcome", "unchanged"))
			require.LessOrEqual(t, counter(t, reg, "harvester_stage_messages_received_total", "stage", "report"),
				float64(second.Errored+2), "the expected count, one batch that reached it, and the errored records")
		})
	}
}

// counter is the counter name{label=value} in reg (0 when absent).
func counter(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if f.GetName() == name && l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
