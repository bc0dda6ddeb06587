package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// TestJobReport: the one job view the API, web UI and CLI build from. A running job's total is
// what it expects (its stored total is written at the end) and its percent what settled of
// that; a job failed after its listing keeps its share, and View lists its job error; a job
// that saved no fetch is not "not modified", one that got a 304 is.
func TestJobReport(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "COT", URL: "https://cot.example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal,
		Frequency: harvest.FrequencyManual, NotificationFrequency: harvest.NotifyOnError})
	require.NoError(t, err)
	j, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)

	rep := jobs.Progress(j)
	require.Equal(t, 0, rep.Total)
	require.Nil(t, rep.PercentSettled, "expected is not known yet")

	j, err = st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: j.ID, Expected: 8})
	require.NoError(t, err)
	rep = jobs.Progress(j)
	require.Equal(t, 8, rep.Total)
	require.Equal(t, 0.0, *rep.PercentSettled)

	require.NoError(t, rep.ReadNotModified(ctx, st))
	require.False(t, rep.NotModified, "the job saved no fetch")
	require.NoError(t, st.JobFetchSet(ctx, &store.JobFetch{JobID: j.ID, URL: src.URL,
		SchemaType: harvest.SchemaDCATUS11Federal, NotModified: true}))
	require.NoError(t, rep.ReadNotModified(ctx, st))
	require.True(t, rep.NotModified)

	j, err = jobs.New(st, nil).Fail(ctx, j.ID, harvest.TypeExtractError, "the source answered 500")
	require.NoError(t, err)
	rep, err = jobs.View(ctx, st, j)
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, rep.Job.Status)
	require.Equal(t, 0.0, *rep.PercentSettled, "a failed job keeps the share it had settled")
	require.Len(t, rep.JobErrors, 1)
	require.Equal(t, harvest.TypeExtractError, rep.JobErrors[0].Type)
	require.Equal(t, j.FinishedAt.Sub(j.CreatedAt).Round(time.Second), rep.Duration(j.FinishedAt.Add(time.Hour)),
		"a finished job's duration ends when it finished")
}

// TestPercentSettled: settled of expected to one decimal, at most 100; 100 for a complete job
// or nothing expected; nil while expected is unknown.
func TestPercentSettled(t *testing.T) {
	eight, zero := 8, 0
	for _, c := range []struct {
		job  store.HarvestJob
		want *float64
	}{
		{store.HarvestJob{Status: harvest.JobInProgress}, nil},
		{store.HarvestJob{Status: harvest.JobInProgress, Expected: &eight, Settled: 1}, ptr(12.5)},
		{store.HarvestJob{Status: harvest.JobInProgress, Expected: &eight, Settled: 9}, ptr(100.0)},
		{store.HarvestJob{Status: harvest.JobInProgress, Expected: &zero}, ptr(100.0)},
		{store.HarvestJob{Status: harvest.JobComplete}, ptr(100.0)},
		{store.HarvestJob{Status: harvest.JobError, Expected: &eight, Settled: 3}, ptr(37.5)},
	} {
		require.Equal(t, c.want, jobs.PercentSettled(&c.job), "%+v", c.job)
	}
}

func ptr[T any](v T) *T { return &v }
