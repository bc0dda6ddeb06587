package rdf

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

// TestGraphNotModifiedSince: a harvest job whose graph hash is the one the source's last
// completed job saved (same URL and schema type) may skip as not modified since that job; a
// different hash, another SHACL profile, a force_harvest, or a last job that failed may not.
// saveGraphHash keeps the fetch's validators.
func TestGraphNotModifiedSince(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g := newGraphJobs(t)

	first := g.start(harvest.JobHarvest)
	require.Empty(t, g.since(first, "h1"), "no earlier job")
	require.NoError(t, g.st.JobFetchSet(ctx, &store.JobFetch{JobID: first.JobID, URL: g.url, SchemaType: harvest.SchemaDCATAP,
		ETag: `"e1"`}))
	require.NoError(t, g.h.saveGraphHash(ctx, first, "h1", false))
	f, err := g.st.JobFetchGet(ctx, first.JobID)
	require.NoError(t, err)
	require.Equal(t, &store.JobFetch{JobID: first.JobID, URL: g.url, SchemaType: harvest.SchemaDCATAP, ETag: `"e1"`,
		GraphHash: checkedGraphHash(first, "h1")}, f, "the validators are kept")
	g.finish(first)

	second := g.start(harvest.JobHarvest)
	require.Equal(t, first.JobID, g.since(second, "h1"))
	require.Empty(t, g.since(second, "h2"), "another graph")
	for profile, skips := range map[string]bool{"none": false, "dcat-ap-no-2.0": false, "dcat-ap-3.0.0": true} {
		withProfile := *second
		withProfile.Options = map[string]string{"shacl_profile": profile}
		require.Equal(t, skips, g.since(&withProfile, "h1") == first.JobID, "shacl_profile %s: its records are validated again", profile)
	}
	require.NoError(t, g.h.saveGraphHash(ctx, second, "h1", true)) // a file source: nothing saved before
	f, err = g.st.JobFetchGet(ctx, second.JobID)
	require.NoError(t, err)
	require.Equal(t, &store.JobFetch{JobID: second.JobID, URL: g.url, SchemaType: harvest.SchemaDCATAP,
		GraphHash:   checkedGraphHash(second, "h1"),
		NotModified: true}, f)
	_, err = g.st.JobFail(ctx, &store.JobFailParams{JobID: second.JobID, Type: "Test", Message: "x"})
	require.NoError(t, err)

	third := g.start(harvest.JobHarvest)
	require.Empty(t, g.since(third, "h1"), "the last job failed: nothing to reuse")
	require.NoError(t, g.h.saveGraphHash(ctx, third, "h1", false))
	g.finish(third)

	forced := g.start(harvest.JobForceHarvest)
	require.Empty(t, g.since(forced, "h1"), "a force_harvest never skips")
	g.finish(forced)
	next := g.start(harvest.JobHarvest)
	require.Empty(t, g.since(next, "h1"), "the forced job saved no graph hash")

	// A store failure is the stage's (retry the message).
	g.st.Close()
	_, err = g.h.graphNotModifiedSince(ctx, next, "h1")
	var se *extract.StageError
	require.True(t, errors.As(err, &se), "%v", err)
}

// graphJobs is an rdf source's jobs on SQLite, and the stage that reads their graph hashes.
type graphJobs struct {
	t   *testing.T
	st  store.Store
	h   *handler
	src *store.Source
	url string
}

func newGraphJobs(t *testing.T) *graphJobs {
	g := &graphJobs{t: t, st: openSQLite(t), url: "https://fdk.example.no/catalog.ttl"}
	g.h = &handler{newHandler(g.st, nil, fetch.Config{})}
	var err error
	g.src, err = g.st.SourceEnsure(context.Background(), &store.SourceEnsureParams{Name: "fdk", URL: g.url,
		SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP})
	require.NoError(t, err)
	return g
}

// start inserts a job of the source.
func (g *graphJobs) start(jobType harvest.JobType) *harvest.Job {
	g.t.Helper()
	j, err := g.st.JobInsert(context.Background(), &store.JobInsertParams{SourceID: g.src.ID, JobType: jobType})
	require.NoError(g.t, err)
	return &harvest.Job{JobID: j.ID, SourceID: g.src.ID, JobType: jobType, SourceType: harvest.SourceRDF,
		SchemaType: harvest.SchemaDCATAP, URL: g.url}
}

// finish completes job, with no records.
func (g *graphJobs) finish(job *harvest.Job) {
	g.t.Helper()
	ctx := context.Background()
	_, err := g.st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.JobID, Expected: 0})
	require.NoError(g.t, err)
	_, done, err := g.st.JobFinish(ctx, job.JobID)
	require.NoError(g.t, err)
	require.True(g.t, done)
}

// since is graphNotModifiedSince's answer for job and hash.
func (g *graphJobs) since(job *harvest.Job, hash string) string {
	g.t.Helper()
	since, err := g.h.graphNotModifiedSince(context.Background(), job, hash)
	require.NoError(g.t, err)
	return since
}
