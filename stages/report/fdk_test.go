package report_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/report"
)

// TestFDKReportEmptyListsAreArrays: a job that changed nothing sends "changedResources": [] (and
// the other lists likewise), as FDK's harvester does, never null (issue 34 item 10).
func TestFDKReportEmptyListsAreArrays(t *testing.T) {
	r := &harvest.Report{ID: "s", URL: "https://example.org/catalog.ttl", DataType: "dataset",
		StartTime: time.Unix(0, 0), EndTime: time.Unix(1, 0)}
	b, err := json.Marshal(report.FDKReports(r, nil))
	require.NoError(t, err)
	var got []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(b, &got))
	require.Len(t, got, 1)
	for _, k := range []string{"changedCatalogs", "changedResources", "removedResources"} {
		require.JSONEq(t, "[]", string(got[0][k]), k)
	}
	require.JSONEq(t, "null", string(got[0]["errorMessage"]), "errorMessage stays null when there is none")
}
