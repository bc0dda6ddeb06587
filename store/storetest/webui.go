package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testSourceSummaryList: each source comes with its live dataset count and its newest job, in
// name order, filtered by organization and by the newest job's status.
func testSourceSummaryList(t *testing.T, s store.Store) {
	ctx := t.Context()
	slug := "summary-" + uuid.NewString()[:8]
	org, err := s.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Summary", Slug: slug})
	require.NoError(t, err)
	mk := func(name string) *store.Source {
		src, err := s.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: name,
			URL: "https://example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
			SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		return src
	}
	b, a := mk("B source"), mk("A source")
	old := newJob(t, s, a.ID)
	finishJob(t, s, old.ID)
	running := newJob(t, s, a.ID)
	rec := newRecord(t, s, running, "x")
	_, err = s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: a.ID, Identifier: "x", Slug: "x-" + uuid.NewString(),
		DCAT: dcat("x"), RecordID: rec.ID})
	require.NoError(t, err)

	n, err := s.OrganizationDatasetCount(ctx, org.ID)
	require.NoError(t, err)
	require.Equal(t, 1, n, "OrganizationDatasetCount")
	other, err := s.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Other", Slug: slug + "-other"})
	require.NoError(t, err)
	n, err = s.OrganizationDatasetCount(ctx, other.ID)
	require.NoError(t, err)
	require.Zero(t, n)

	rows, total, err := s.SourceSummaryList(ctx, &store.SourceSummaryListParams{OrganizationID: org.ID})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Len(t, rows, 2)
	require.Equal(t, a.ID, rows[0].ID, "name order")
	require.Equal(t, "A source", rows[0].Name)
	require.Equal(t, 1, rows[0].DatasetCount)
	require.NotNil(t, rows[0].LastJob)
	require.Equal(t, running.ID, rows[0].LastJob.ID, "the newest job")
	require.Equal(t, harvest.JobInProgress, rows[0].LastJob.Status)
	require.Equal(t, harvest.JobHarvest, rows[0].LastJob.JobType)
	require.Nil(t, rows[0].LastJob.FinishedAt)
	require.Equal(t, b.ID, rows[1].ID)
	require.Zero(t, rows[1].DatasetCount)
	require.Nil(t, rows[1].LastJob, "no job yet")

	rows, total, err = s.SourceSummaryList(ctx, &store.SourceSummaryListParams{OrganizationID: org.ID,
		LastJobStatus: harvest.JobInProgress})
	require.NoError(t, err)
	require.Equal(t, 1, total)
	require.Equal(t, a.ID, rows[0].ID)
	rows, total, err = s.SourceSummaryList(ctx, &store.SourceSummaryListParams{OrganizationID: org.ID,
		LastJobStatus: harvest.JobComplete})
	require.NoError(t, err)
	require.Zero(t, total, "a's complete job is not its newest")
	require.Empty(t, rows)

	rows, total, err = s.SourceSummaryList(ctx, &store.SourceSummaryListParams{OrganizationID: org.ID,
		PageParams: store.PageParams{Limit: 1, Offset: 1}})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Len(t, rows, 1)
	require.Equal(t, b.ID, rows[0].ID)
}

// testRecordHistory: a source's records of one identifier across jobs, newest first.
func testRecordHistory(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	j1 := newJob(t, s, src.ID)
	r1 := newRecord(t, s, j1, "a")
	newRecord(t, s, j1, "b")
	finishJob(t, s, j1.ID)
	j2 := newJob(t, s, src.ID)
	r2 := newRecord(t, s, j2, "a")
	recs, total, err := s.RecordHistory(ctx, &store.RecordHistoryParams{SourceID: src.ID, Identifier: "a"})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Len(t, recs, 2)
	require.Equal(t, r2.ID, recs[0].ID, "newest first")
	require.Equal(t, r1.ID, recs[1].ID)
	recs, total, err = s.RecordHistory(ctx, &store.RecordHistoryParams{SourceID: src.ID, Identifier: "a",
		PageParams: store.PageParams{Limit: 1, Offset: 1}})
	require.NoError(t, err)
	require.Equal(t, 2, total)
	require.Equal(t, []string{r1.ID}, []string{recs[0].ID})
	recs, total, err = s.RecordHistory(ctx, &store.RecordHistoryParams{SourceID: src.ID, Identifier: "none"})
	require.NoError(t, err)
	require.Zero(t, total)
	require.Empty(t, recs)
}

// testRecordErrorSummary: a job's record errors counted by type and severity, most first.
func testRecordErrorSummary(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	errs := func(types ...string) []harvest.RecordError {
		var out []harvest.RecordError
		for _, ty := range types {
			out = append(out, harvest.RecordError{Type: ty, Message: "m " + ty, Severity: harvest.SeverityError})
		}
		return out
	}
	for i, e := range [][]harvest.RecordError{errs("ValidationError", "TransformError"), errs("ValidationError"),
		{{Type: "ValidationError", Message: "w", Severity: harvest.SeverityWarning}}} {
		_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: string(rune('a' + i)),
			Identifier: string(rune('a' + i)), Outcome: harvest.OutcomeErrored, Errors: e})
		require.NoError(t, err)
	}
	got, err := s.RecordErrorSummary(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, []*store.RecordErrorCount{
		{Type: "ValidationError", Severity: harvest.SeverityError, Count: 2},
		{Type: "TransformError", Severity: harvest.SeverityError, Count: 1},
		{Type: "ValidationError", Severity: harvest.SeverityWarning, Count: 1},
	}, got)
	got, err = s.RecordErrorSummary(ctx, newJob(t, s, newSource(t, s).ID).ID)
	require.NoError(t, err)
	require.Empty(t, got)
}

// testJobCountsSince: jobs created since a time, by status and type; job errors since a time,
// newest first. Other cases share the database, so this counts at least its own rows.
func testJobCountsSince(t *testing.T, s store.Store) {
	ctx := t.Context()
	since := time.Now().Add(-time.Minute)
	count := func(since time.Time, status harvest.JobStatus, jt harvest.JobType) int {
		t.Helper()
		counts, err := s.JobCountsSince(ctx, since)
		require.NoError(t, err)
		for _, c := range counts {
			if c.Status == status && c.JobType == jt {
				return c.Count
			}
		}
		return 0
	}
	before := count(since, harvest.JobError, harvest.JobValidate)
	src := newSource(t, s)
	job, err := s.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobValidate})
	require.NoError(t, err)
	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "ExtractError", Message: "404 " + job.ID})
	require.NoError(t, err)
	require.GreaterOrEqual(t, count(since, harvest.JobError, harvest.JobValidate), before+1)
	require.Zero(t, count(time.Now().Add(time.Hour), harvest.JobError, harvest.JobValidate), "nothing since a later time")

	errs, err := s.JobErrorListSince(ctx, since, 1000)
	require.NoError(t, err)
	var found bool
	for i, e := range errs {
		if i > 0 {
			require.False(t, e.CreatedAt.After(errs[i-1].CreatedAt), "newest first")
		}
		if e.JobID == job.ID {
			found = true
			require.Equal(t, "ExtractError", e.Type)
		}
	}
	require.True(t, found)
	errs, err = s.JobErrorListSince(ctx, time.Now().Add(time.Hour), 0)
	require.NoError(t, err)
	require.Empty(t, errs)
}
