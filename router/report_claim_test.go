package router

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// A report naming tens of thousands of changed resources is over the message size: it travels
// by claim check, and Reports still delivers it whole.
func TestReportsOverTheMessageSizeArriveWhole(t *testing.T) {
	t.Parallel()
	bus := startBus(t)
	reports, cancel, err := bus.Reports()
	require.NoError(t, err)
	defer cancel()
	rep := &harvest.Report{V: harvest.Version, ID: "job-1", ChangedCatalogs: []harvest.Resource{},
		RemovedResources: []harvest.Resource{}}
	for i := range 20000 {
		uri := fmt.Sprintf("https://data.example.no/dataset/%d", i)
		rep.ChangedResources = append(rep.ChangedResources, harvest.Resource{FdkID: harvest.FdkID(uri), URI: uri})
	}
	m, err := harvest.NewMessage(harvest.SubjectReport, rep, harvest.MetaJobID, rep.ID)
	require.NoError(t, err)
	require.Greater(t, len(m.Payload), claimThreshold, "the report is over the message size")
	require.NoError(t, bus.Publisher().Publish(harvest.SubjectReport, m))
	var got *harvest.Report
	select {
	case got = <-reports:
	case <-time.After(5 * time.Minute): // a failsafe, not a deadline
		t.Fatal("no report arrived")
	}
	require.Equal(t, "job-1", got.ID)
	require.Len(t, got.ChangedResources, 20000)
	require.Equal(t, rep.ChangedResources[19999], got.ChangedResources[19999])
}
