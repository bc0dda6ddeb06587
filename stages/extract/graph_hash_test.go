package extract

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// TestGraphNotModifiedSince: a harvest job whose graph hash is the one the source's last
// completed job saved (same URL and schema type) may skip as not modified since that job; a
// different hash, another SHACL profile, a force_harvest, or a last job that failed may not.
// saveGraphHash keeps the fetch's validators.
func TestGraphNotModifiedSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openSQLite(t)
	h := New(st, nil, fetch.Config{})
	const url = "https://fdk.example.no/catalog.ttl"
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "fdk", URL: url, SourceType: harvest.SourceRDF,
		SchemaType: harvest.SchemaDCATAP})
	require.NoError(t, err)
	start := func(jobType harvest.JobType) *harvest.Job {
		t.Helper()
		j, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: jobType})
		require.NoError(t, err)
		return &harvest.Job{JobID: j.ID, SourceID: src.ID, JobType: jobType, SourceType: harvest.SourceRDF,
			SchemaType: harvest.SchemaDCATAP, URL: url}
	}
	finish := func(job *harvest.Job) {
		t.Helper()
		_, err := st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.JobID, Expected: 0})
		require.NoError(t, err)
		_, done, err := st.JobFinish(ctx, job.JobID)
		require.NoError(t, err)
		require.True(t, done)
	}

	first := start(harvest.JobHarvest)
	since, err := h.graphNotModifiedSince(ctx, first, "h1")
	require.NoError(t, err)
	require.Empty(t, since, "no earlier job")
	require.NoError(t, st.JobFetchSet(ctx, &store.JobFetch{JobID: first.JobID, URL: url, SchemaType: harvest.SchemaDCATAP,
		ETag: `"e1"`}))
	require.NoError(t, h.saveGraphHash(ctx, first, "h1", false))
	f, err := st.JobFetchGet(ctx, first.JobID)
	require.NoError(t, err)
	require.Equal(t, &store.JobFetch{JobID: first.JobID, URL: url, SchemaType: harvest.SchemaDCATAP, ETag: `"e1"`,
		GraphHash: checkedGraphHash(first, "h1")}, f, "the validators are kept")
	finish(first)

	second := start(harvest.JobHarvest)
	since, err = h.graphNotModifiedSince(ctx, second, "h1")
	require.NoError(t, err)
	require.Equal(t, first.JobID, since)
	since, err = h.graphNotModifiedSince(ctx, second, "h2")
	require.NoError(t, err)
	require.Empty(t, since, "another graph")
	for profile, skips := range map[string]bool{"none": false, "dcat-ap-no-2.0": false, "dcat-ap-3.0.0": true} {
		withProfile := *second
		withProfile.Options = map[string]string{"shacl_profile": profile}
		since, err = h.graphNotModifiedSince(ctx, &withProfile, "h1")
		require.NoError(t, err)
		require.Equal(t, skips, since == first.JobID, "shacl_profile %s: its records are validated again", profile)
	}
	require.NoError(t, h.saveGraphHash(ctx, second, "h1", true)) // a file source: nothing saved before
	f, err = st.JobFetchGet(ctx, second.JobID)
	require.NoError(t, err)
	require.Equal(t, &store.JobFetch{JobID: second.JobID, URL: url, SchemaType: harvest.SchemaDCATAP,
		GraphHash:   checkedGraphHash(second, "h1"),
		NotModified: true}, f)
	_, err = st.JobFail(ctx, &store.JobFailParams{JobID: second.JobID, Type: "Test", Message: "x"})
	require.NoError(t, err)

	third := start(harvest.JobHarvest)
	since, err = h.graphNotModifiedSince(ctx, third, "h1")
	require.NoError(t, err)
	require.Empty(t, since, "the last job failed: nothing to reuse")
	require.NoError(t, h.saveGraphHash(ctx, third, "h1", false))
	finish(third)

	forced := start(harvest.JobForceHarvest)
	since, err = h.graphNotModifiedSince(ctx, forced, "h1")
	require.NoError(t, err)
	require.Empty(t, since, "a force_harvest never skips")
	finish(forced)
	next := start(harvest.JobHarvest)
	since, err = h.graphNotModifiedSince(ctx, next, "h1")
	require.NoError(t, err)
	require.Empty(t, since, "the forced job saved no graph hash")

	// A store failure is the stage's (retry the message).
	st.Close()
	_, err = h.graphNotModifiedSince(ctx, next, "h1")
	var se *stageError
	require.True(t, errors.As(err, &se), "%v", err)
}
