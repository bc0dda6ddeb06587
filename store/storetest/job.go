package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

func testJobInsert(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := requireNewJob(t, s, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobForceHarvest}, harvest.JobInProgress)

	finishJob(t, s, job.ID)
	id := uuid.NewString()
	given, err := s.JobInsert(ctx, &store.JobInsertParams{ID: id, SourceID: src.ID, JobType: harvest.JobValidate})
	require.NoError(t, err)
	require.Equal(t, id, given.ID, "a given ID is the job's ID")
	require.Equal(t, harvest.JobValidate, given.JobType)
}

func testJobGetNotFound(t *testing.T, s store.Store) {
	newJob(t, s, newSource(t, s).ID)
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		_, err := s.JobGet(t.Context(), id)
		require.ErrorIs(t, err, store.ErrNotFound, "id %q", id)
	}
}

// testJobInsertOneInProgress: a source has at most one in_progress job; sources are independent.
func testJobInsertOneInProgress(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)

	_, err := s.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobForceHarvest})
	require.ErrorIs(t, err, store.ErrConflict)
	got, err := s.JobGet(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, first, got, "the running job is untouched")

	other := newJob(t, s, newSource(t, s).ID)
	require.NotEqual(t, first.ID, other.ID)
	require.Equal(t, harvest.JobInProgress, other.Status)
}

func testJobInsertAfterFinish(t *testing.T, s store.Store) {
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	finishJob(t, s, first.ID)

	second := newJob(t, s, src.ID)
	require.NotEqual(t, first.ID, second.ID)
	_, err := s.JobInsert(t.Context(), &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.ErrorIs(t, err, store.ErrConflict, "the new job is the one in progress now")
}

func testJobInsertAfterFail(t *testing.T, s store.Store) {
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	_, err := s.JobFail(t.Context(), &store.JobFailParams{JobID: first.ID, Type: "ExtractError", Message: "timeout"})
	require.NoError(t, err)

	second := newJob(t, s, src.ID)
	require.NotEqual(t, first.ID, second.ID)
}

// testJobFail: an unfinished job ends in error with one job error row, its counts kept.
func testJobFail(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	settle(t, s, job.ID, "a", harvest.OutcomeAdded)
	other := newJob(t, s, newSource(t, s).ID)

	failed, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "ExtractError", Message: "fetch catalog: 404"})
	require.NoError(t, err)
	require.Equal(t, job.ID, failed.ID)
	require.Equal(t, harvest.JobError, failed.Status)
	require.NotNil(t, failed.FinishedAt)
	require.Equal(t, 1, failed.Settled)
	require.Equal(t, 1, failed.Added)

	got, err := s.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, failed, got)

	errs, err := s.JobErrorList(ctx, job.ID)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, job.ID, errs[0].JobID)
	require.Equal(t, "ExtractError", errs[0].Type)
	require.Equal(t, "fetch catalog: 404", errs[0].Message)
	require.False(t, errs[0].CreatedAt.IsZero())

	errs, err = s.JobErrorList(ctx, other.ID)
	require.NoError(t, err)
	require.Empty(t, errs, "another job's errors are not listed")
}

// testJobFailFinished: failing a finished job keeps its status and adds no error row.
func testJobFailFinished(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	done := finishJob(t, s, newJob(t, s, src.ID).ID)

	got, err := s.JobFail(ctx, &store.JobFailParams{JobID: done.ID, Type: "ExtractError", Message: "late"})
	require.NoError(t, err)
	require.Equal(t, done, got, "a complete job stays complete")
	errs, err := s.JobErrorList(ctx, done.ID)
	require.NoError(t, err)
	require.Empty(t, errs)

	job := newJob(t, s, src.ID)
	failed, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "ExtractError", Message: "first"})
	require.NoError(t, err)
	again, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "ParseError", Message: "second"})
	require.NoError(t, err)
	require.Equal(t, failed, again, "a failed job is not failed again")
	errs, err = s.JobErrorList(ctx, job.ID)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, "first", errs[0].Message)
}

func testJobSetExpected(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	require.Nil(t, job.Expected)

	got, err := s.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 3})
	require.NoError(t, err)
	require.NotNil(t, got.Expected)
	require.Equal(t, 3, *got.Expected)
	require.Equal(t, harvest.JobInProgress, got.Status)

	again, err := s.JobGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, got, again)
}

// testJobFinishWaitsForExpected: a job finishes once, when expected is known and all settled.
func testJobFinishWaitsForExpected(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	settle(t, s, job.ID, "a", harvest.OutcomeAdded)
	settle(t, s, job.ID, "b", harvest.OutcomeUnchanged)

	got, finished, err := s.JobFinish(ctx, job.ID)
	require.NoError(t, err)
	require.False(t, finished, "expected is unknown")
	require.Equal(t, harvest.JobInProgress, got.Status)
	require.Nil(t, got.FinishedAt)

	_, err = s.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 3})
	require.NoError(t, err)
	got, finished, err = s.JobFinish(ctx, job.ID)
	require.NoError(t, err)
	require.False(t, finished, "2 of 3 settled")
	require.Equal(t, harvest.JobInProgress, got.Status)

	settle(t, s, job.ID, "c", harvest.OutcomeErrored)
	done, finished, err := s.JobFinish(ctx, job.ID)
	require.NoError(t, err)
	require.True(t, finished)
	require.Equal(t, harvest.JobComplete, done.Status)
	require.NotNil(t, done.FinishedAt)
	require.Equal(t, counters{Total: 3, Added: 1, Unchanged: 1, Errored: 1, Settled: 3}, countersOf(done))

	again, finished, err := s.JobFinish(ctx, job.ID)
	require.NoError(t, err)
	require.False(t, finished, "a job is finished once")
	require.Equal(t, done, again)
}

// testJobFinishNothingExpected: an empty listing finishes the job at once.
func testJobFinishNothingExpected(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	_, err := s.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 0})
	require.NoError(t, err)
	done, finished, err := s.JobFinish(ctx, job.ID)
	require.NoError(t, err)
	require.True(t, finished)
	require.Equal(t, harvest.JobComplete, done.Status)
	require.Equal(t, counters{}, countersOf(done))
}

// testJobFinishFailed: a failed job is never completed.
func testJobFinishFailed(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	_, err := s.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 1})
	require.NoError(t, err)
	settle(t, s, job.ID, "a", harvest.OutcomeAdded)
	failed, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "ExtractError", Message: "cancelled"})
	require.NoError(t, err)

	got, finished, err := s.JobFinish(ctx, job.ID)
	require.NoError(t, err)
	require.False(t, finished)
	require.Equal(t, failed, got)
}

// testJobFinishConcurrent: racing finishers finish the job exactly once.
func testJobFinishConcurrent(t *testing.T, s store.Store) {
	job := newJob(t, s, newSource(t, s).ID)
	_, err := s.JobSetExpected(t.Context(), &store.JobSetExpectedParams{JobID: job.ID, Expected: 0})
	require.NoError(t, err)

	require.Equal(t, 1, racing(t, func() (bool, error) {
		_, finished, err := s.JobFinish(t.Context(), job.ID)
		return finished, err
	}))
}

// testJobInsertQueued: a queued job is new, unfinished, and waits for JobStartQueued.
func testJobInsertQueued(t *testing.T, s store.Store) {
	src := newSource(t, s)
	requireNewJob(t, s, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobValidate, Queued: true}, harvest.JobNew)
}

// testJobInsertOneUnfinished: a queued or running job blocks a second job of either kind for
// its source, and only for its source.
func testJobInsertOneUnfinished(t *testing.T, s store.Store) {
	ctx := t.Context()
	queued := newSource(t, s)
	newQueuedJob(t, s, queued.ID)
	running := newSource(t, s)
	newJob(t, s, running.ID)

	for _, src := range []*store.Source{queued, running} {
		for _, q := range []bool{false, true} {
			_, err := s.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest, Queued: q})
			require.ErrorIs(t, err, store.ErrConflict, "queued %v", q)
		}
	}
	newQueuedJob(t, s, newSource(t, s).ID)
	jobs, total, err := s.JobList(ctx, &store.JobListParams{})
	require.NoError(t, err)
	require.Equal(t, 3, total, "the refused inserts wrote nothing")
	require.Len(t, jobs, 3)
}

// testJobInsertUnknownSource: a job needs its source.
func testJobInsertUnknownSource(t *testing.T, s store.Store) {
	newSource(t, s)
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		for _, q := range []bool{false, true} {
			_, err := s.JobInsert(t.Context(), &store.JobInsertParams{SourceID: id, JobType: harvest.JobHarvest, Queued: q})
			require.ErrorIs(t, err, store.ErrNotFound, "source %q, queued %v", id, q)
		}
	}
}

// testJobFailQueued: a job that never started can be failed (cancelled), which frees its source.
func testJobFailQueued(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newQueuedJob(t, s, src.ID)

	failed, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "Cancelled", Message: "cancelled before start"})
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, failed.Status)
	require.NotNil(t, failed.FinishedAt)
	errs, err := s.JobErrorList(ctx, job.ID)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, "Cancelled", errs[0].Type)

	started, err := s.JobStartQueued(ctx, &store.JobStartQueuedParams{MaxInProgress: 5})
	require.NoError(t, err)
	require.Empty(t, started, "a failed job is not started")
	newJob(t, s, src.ID)
}

// testJobList: newest first, filtered by source, status and type, paged, with the total.
func testJobList(t *testing.T, s store.Store) {
	ctx := t.Context()
	src, other := newSource(t, s), newSource(t, s)
	complete := finishJob(t, s, newJob(t, s, src.ID).ID)
	failed, err := s.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobForceHarvest})
	require.NoError(t, err)
	failed, err = s.JobFail(ctx, &store.JobFailParams{JobID: failed.ID, Type: "ExtractError", Message: "404"})
	require.NoError(t, err)
	queued := newQueuedJob(t, s, src.ID)
	validating, err := s.JobInsert(ctx, &store.JobInsertParams{SourceID: other.ID, JobType: harvest.JobValidate})
	require.NoError(t, err)

	list := func(p store.JobListParams) ([]string, int) {
		t.Helper()
		jobs, total, err := s.JobList(ctx, &p)
		require.NoError(t, err)
		return jobIDs(jobs), total
	}
	for _, c := range []struct {
		name  string
		p     store.JobListParams
		want  []*store.HarvestJob
		total int
	}{
		{"all", store.JobListParams{}, []*store.HarvestJob{validating, queued, failed, complete}, 4},
		{"source", store.JobListParams{SourceID: src.ID}, []*store.HarvestJob{queued, failed, complete}, 3},
		{"status", store.JobListParams{Status: harvest.JobError}, []*store.HarvestJob{failed}, 1},
		{"new", store.JobListParams{Status: harvest.JobNew}, []*store.HarvestJob{queued}, 1},
		{"type", store.JobListParams{JobType: harvest.JobHarvest}, []*store.HarvestJob{queued, complete}, 2},
		{"all filters", store.JobListParams{SourceID: src.ID, Status: harvest.JobComplete, JobType: harvest.JobHarvest},
			[]*store.HarvestJob{complete}, 1},
		{"no match", store.JobListParams{SourceID: other.ID, Status: harvest.JobComplete}, nil, 0},
		{"unknown source", store.JobListParams{SourceID: uuid.NewString()}, nil, 0},
		{"page", store.JobListParams{PageParams: store.PageParams{Limit: 2, Offset: 1}}, []*store.HarvestJob{queued, failed}, 4},
		{"filtered page", store.JobListParams{SourceID: src.ID, PageParams: store.PageParams{Limit: 2, Offset: 2}},
			[]*store.HarvestJob{complete}, 3},
		{"past the end", store.JobListParams{PageParams: store.PageParams{Offset: 4}}, nil, 4},
	} {
		ids, total := list(c.p)
		require.Equal(t, jobIDs(c.want), ids, c.name)
		require.Equal(t, c.total, total, c.name)
	}

	jobs, _, err := s.JobList(ctx, &store.JobListParams{SourceID: other.ID})
	require.NoError(t, err)
	require.Equal(t, []*store.HarvestJob{validating}, jobs, "every field is returned")
}

// testJobListDefaultLimit: Limit 0 is a page of 100.
func testJobListDefaultLimit(t *testing.T, s store.Store) {
	for range store.DefaultLimit + 1 {
		newQueuedJob(t, s, newSource(t, s).ID)
	}
	jobs, total, err := s.JobList(t.Context(), &store.JobListParams{})
	require.NoError(t, err)
	require.Len(t, jobs, store.DefaultLimit)
	require.Equal(t, store.DefaultLimit+1, total)
}

// requireNewJob inserts a job with p and requires it to read back as a new job of status
// status, with an ID generated (p's ID is empty), no finish, no expected count and no counts.
func requireNewJob(t *testing.T, s store.Store, p *store.JobInsertParams, status harvest.JobStatus) *store.HarvestJob {
	t.Helper()
	job, err := s.JobInsert(t.Context(), p)
	require.NoError(t, err)
	require.NotEmpty(t, job.ID, "an empty ID is generated")
	require.Equal(t, p.SourceID, job.SourceID)
	require.Equal(t, p.JobType, job.JobType)
	require.Equal(t, status, job.Status)
	require.False(t, job.CreatedAt.IsZero())
	require.Nil(t, job.FinishedAt)
	require.Nil(t, job.Expected)
	require.Equal(t, counters{}, countersOf(job))
	got, err := s.JobGet(t.Context(), job.ID)
	require.NoError(t, err)
	require.Equal(t, job, got)
	return job
}
