package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// scheduledSource creates a source of frequency f whose next run is next (nil: none).
func scheduledSource(t *testing.T, s store.Store, f harvest.Frequency, next *time.Time) *store.Source {
	t.Helper()
	p := sourceParams("Scheduled")
	p.Frequency = f
	src := insertSource(t, s, p)
	require.NoError(t, s.SourceScheduleNext(t.Context(), &store.SourceScheduleNextParams{SourceID: src.ID, NextRunAt: next}))
	src, err := s.SourceGet(t.Context(), src.ID)
	require.NoError(t, err)
	return src
}

// testSourceScheduleNext: the next run is set and cleared; a missing source is not found.
func testSourceScheduleNext(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := sourceParams("Daily")
	p.Frequency = harvest.FrequencyDaily
	src := insertSource(t, s, p)
	next := time.Now().Add(24 * time.Hour).Truncate(time.Second)

	require.NoError(t, s.SourceScheduleNext(ctx, &store.SourceScheduleNextParams{SourceID: src.ID, NextRunAt: &next}))
	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	requireTime(t, next, got.NextRunAt)
	require.NoError(t, s.SourceScheduleNext(ctx, &store.SourceScheduleNextParams{SourceID: src.ID}))
	got, err = s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Nil(t, got.NextRunAt)
	require.Equal(t, harvest.FrequencyDaily, got.Frequency, "only the next run changes")

	err = s.SourceScheduleNext(ctx, &store.SourceScheduleNextParams{SourceID: uuid.NewString(), NextRunAt: &next})
	require.ErrorIs(t, err, store.ErrNotFound)
}

// testSourceListDue: scheduled sources whose next run is at or before now and that have no
// unfinished job, oldest next run first.
func testSourceListDue(t *testing.T, s store.Store) {
	ctx := t.Context()
	now := time.Now().Truncate(time.Second)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	due := func() []string {
		t.Helper()
		srcs, err := s.SourceListDue(ctx, &store.SourceListDueParams{Now: now})
		require.NoError(t, err)
		return sourceIDs(srcs)
	}

	atNow := scheduledSource(t, s, harvest.FrequencyWeekly, at(0))
	hourAgo := scheduledSource(t, s, harvest.FrequencyDaily, at(-time.Hour))
	scheduledSource(t, s, harvest.FrequencyDaily, at(time.Hour))
	twoHoursAgo := scheduledSource(t, s, harvest.FrequencyMonthly, at(-2*time.Hour))
	scheduledSource(t, s, harvest.FrequencyDaily, nil)
	scheduledSource(t, s, harvest.FrequencyManual, at(-5*time.Hour))
	running := scheduledSource(t, s, harvest.FrequencyDaily, at(-3*time.Hour))
	runningJob := newJob(t, s, running.ID)
	queued := scheduledSource(t, s, harvest.FrequencyDaily, at(-4*time.Hour))
	queuedJob := newQueuedJob(t, s, queued.ID)

	require.Equal(t, []string{twoHoursAgo.ID, hourAgo.ID, atNow.ID}, due(),
		"not the future, unscheduled or manual sources, nor those with a job in progress or queued")

	finishJob(t, s, runningJob.ID)
	require.Equal(t, []string{running.ID, twoHoursAgo.ID, hourAgo.ID, atNow.ID}, due(), "a finished job")
	_, err := s.JobFail(ctx, &store.JobFailParams{JobID: queuedJob.ID, Type: "Cancelled", Message: "by test"})
	require.NoError(t, err)
	require.Equal(t, []string{queued.ID, running.ID, twoHoursAgo.ID, hourAgo.ID, atNow.ID}, due(), "a failed job")

	srcs, err := s.SourceListDue(ctx, &store.SourceListDueParams{Now: now.Add(-6 * time.Hour)})
	require.NoError(t, err)
	require.Empty(t, srcs)
	srcs, err = s.SourceListDue(ctx, &store.SourceListDueParams{Now: now})
	require.NoError(t, err)
	got, err := s.SourceGet(ctx, queued.ID)
	require.NoError(t, err)
	require.Equal(t, got, srcs[0], "every field is returned")
}

// testSourceUpdateReplan: a changed frequency plans the next run after the last job's start,
// or now without a job; manual clears it.
func testSourceUpdateReplan(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := sourceParams("Replanned")
	src := insertSource(t, s, p)
	require.Nil(t, src.NextRunAt)
	update := func(f harvest.Frequency) *store.Source {
		t.Helper()
		p.Frequency = f
		got, err := s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: *p})
		require.NoError(t, err)
		return got
	}

	got := update(harvest.FrequencyWeekly)
	requireTime(t, got.UpdatedAt, got.NextRunAt, "no job yet: due now")

	first := finishJob(t, s, newJob(t, s, src.ID).ID)
	got = update(harvest.FrequencyDaily)
	requireTime(t, harvest.FrequencyDaily.After(first.CreatedAt.UTC()), got.NextRunAt)

	later := time.Now().Add(72 * time.Hour).Truncate(time.Second)
	require.NoError(t, s.SourceScheduleNext(ctx, &store.SourceScheduleNextParams{SourceID: src.ID, NextRunAt: &later}))
	p.Name = "Renamed"
	got = update(harvest.FrequencyDaily)
	requireTime(t, later, got.NextRunAt, "the same frequency keeps the plan")

	require.Nil(t, update(harvest.FrequencyManual).NextRunAt)

	last := newQueuedJob(t, s, src.ID)
	got = update(harvest.FrequencyMonthly)
	requireTime(t, harvest.FrequencyMonthly.After(last.CreatedAt.UTC()), got.NextRunAt, "the newest job counts")
	stored, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, got, stored)
}
