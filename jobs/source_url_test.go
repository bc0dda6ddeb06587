package jobs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// TestEnsureSourcePortalBase: the CLI's path (harvest --url … --source-type ckan) finds one
// source for a portal however its URL is written, one stored as its API endpoint before portal
// URLs were normalised included.
func TestEnsureSourcePortalBase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	ensure := func(url string) *store.Source {
		src, err := jobs.EnsureSource(ctx, st, jobs.Params{URL: url, SourceType: harvest.SourceCKAN,
			SchemaType: harvest.SchemaDCATUS11NonFederal, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		return src
	}
	first := ensure("https://ckan.example.gov/api/3/action/package_search")
	require.Equal(t, "https://ckan.example.gov/", first.URL)
	for _, u := range []string{"https://ckan.example.gov", "https://ckan.example.gov/", "https://ckan.example.gov/api/3"} {
		require.Equal(t, first.ID, ensure(u).ID, u)
	}

	legacy, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "legacy",
		URL: "https://legacy.example.gov/api/3/action/package_search/", SourceType: harvest.SourceCKAN,
		SchemaType: harvest.SchemaDCATUS11NonFederal, Frequency: harvest.FrequencyManual,
		NotificationFrequency: harvest.NotifyOnError})
	require.NoError(t, err)
	require.Equal(t, legacy.ID, ensure("https://legacy.example.gov").ID)
	found, err := jobs.SourceByURL(ctx, st, "https://legacy.example.gov/")
	require.NoError(t, err)
	require.Equal(t, legacy.ID, found.ID)
}
