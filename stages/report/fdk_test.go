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

// TestFDKReportSharesASortedList: the FDK form's changedResources is the report's own list, not
// a copy, when that is already sorted by URI with each once and no invalid record is added (a
// job's end that changed 100,000 records would copy MBs); otherwise it is a sorted copy with each
// URI once, and the report's list is left as it was.
func TestFDKReportSharesASortedList(t *testing.T) {
	res := func(uris ...string) []harvest.Resource {
		var out []harvest.Resource
		for _, u := range uris {
			out = append(out, harvest.Resource{FdkID: harvest.FdkID(u), URI: u})
		}
		return out
	}
	r := &harvest.Report{ChangedResources: res("a", "b", "c")}
	got := report.FDKReports(r, nil)[0].ChangedResources
	require.Equal(t, res("a", "b", "c"), got)
	require.Same(t, &r.ChangedResources[0], &got[0], "shared, not copied")

	r = &harvest.Report{ChangedResources: res("c", "a")}
	got = report.FDKReports(r, res("b", "a"))[0].ChangedResources
	require.Equal(t, res("a", "b", "c"), got)
	require.Equal(t, res("c", "a"), r.ChangedResources, "the report's own order")
	require.NotSame(t, &r.ChangedResources[0], &got[0])
}
