package search_test

import (
	"testing"
	"time"

	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
)

// TestBatcherMetrics: bulk requests count by result, their ops by ok, retried or failed.
func TestBatcherMetrics(t *testing.T) {
	f := newFlaky(t)
	f.failRequests.Store(1)
	reg := prometheus.NewRegistry()
	m, err := search.NewMetrics(reg)
	require.NoError(t, err)
	b := search.NewBatcher(f, search.BatcherConfig{Attempts: 2, Backoff: time.Millisecond, Metrics: m})
	defer b.Close()
	require.NoError(t, b.Put(t.Context(), search.Document{ID: "d1"})) // fails once, then ok
	require.Error(t, b.Put(t.Context(), search.Document{ID: "reject"}))

	want := `
# HELP harvester_search_bulk_ops_total Index and delete operations of bulk requests, by result (ok, retried, failed for good).
# TYPE harvester_search_bulk_ops_total counter
harvester_search_bulk_ops_total{result="failed"} 1
harvester_search_bulk_ops_total{result="ok"} 1
harvester_search_bulk_ops_total{result="retried"} 1
# HELP harvester_search_bulk_requests_total Bulk requests to the search index, by result (ok or failed as a whole).
# TYPE harvester_search_bulk_requests_total counter
harvester_search_bulk_requests_total{result="failed"} 1
harvester_search_bulk_requests_total{result="ok"} 2
`
	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want),
		"harvester_search_bulk_ops_total", "harvester_search_bulk_requests_total"))
	require.Equal(t, 1, testutil.CollectAndCount(reg, "harvester_search_bulk_duration_seconds"))
}
