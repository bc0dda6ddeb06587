package storetest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testJobFailSettlesPending: a failed (cancelled) job leaves no pending record: one SYNC
// applied is success (its dataset is that record; a delete's dataset is gone) and counts as
// added or deleted, any other is error, counts as errored and gets a CancelledJob row; settled
// records and other jobs' records keep their status; the counts add up.
func testJobFailSettlesPending(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	newDataset(t, s, first, "kept")
	newDataset(t, s, first, "dropped")
	finishJob(t, s, first.ID)

	job := newJob(t, s, src.ID)
	synced := newDataset(t, s, job, "synced") // SYNC wrote the dataset; the outcome never settled
	notSynced := newRecord(t, s, job, "not-synced")
	settled := newRecord(t, s, job, "settled")
	settleRecord(t, s, settled, harvest.RecordErrorValidation)
	deleteRecord := func(identifier string) string {
		t.Helper()
		rec, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: identifier, Action: harvest.ActionDelete})
		require.NoError(t, err)
		return rec.ID
	}
	deleted, notDeleted := deleteRecord("dropped"), deleteRecord("kept")
	_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: src.ID, Identifier: "dropped"})
	require.NoError(t, err)
	other := newJob(t, s, newSource(t, s).ID)
	otherPending := newRecord(t, s, other, "elsewhere")

	failed, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "CancelledJob", Message: "cancelled"})
	require.NoError(t, err)
	require.Equal(t, harvest.JobError, failed.Status)
	status := func(id string) harvest.RecordStatus {
		t.Helper()
		rec, err := s.RecordGet(ctx, id)
		require.NoError(t, err)
		return rec.Status
	}
	require.Equal(t, map[string]harvest.RecordStatus{
		"synced": harvest.RecordSuccess, "not-synced": harvest.RecordFailed, "settled": harvest.RecordErrorValidation,
		"deleted": harvest.RecordSuccess, "not-deleted": harvest.RecordFailed, "other job": harvest.RecordPending,
	}, map[string]harvest.RecordStatus{
		"synced": status(synced.RecordID), "not-synced": status(notSynced.ID), "settled": status(settled.ID),
		"deleted": status(deleted), "not-deleted": status(notDeleted), "other job": status(otherPending.ID),
	})
	latest, err := s.RecordLatest(ctx, &store.RecordLatestParams{SourceID: src.ID, Identifier: "synced"})
	require.NoError(t, err)
	require.Equal(t, synced.RecordID, latest.ID, "the catalog's record is the one the next job compares against")

	require.Equal(t, counters{Total: 5, Settled: 5, Added: 1, Deleted: 1, Errored: 3, Validated: 1}, countersOf(failed),
		"the settled one, and the four pending: two applied, two not")
	var cancelled []string
	for _, e := range recordErrors(t, s, job.ID) {
		if e.Type == harvest.TypeCancelledJob {
			require.Equal(t, harvest.SeverityError, e.Severity)
			require.Contains(t, e.Message, "the job ended before this record reached the catalog (CancelledJob: cancelled)")
			cancelled = append(cancelled, e.Identifier+" "+e.RecordID)
		}
	}
	require.ElementsMatch(t, []string{"not-synced " + notSynced.ID, "kept " + notDeleted}, cancelled)
	again, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "CancelledJob", Message: "again"})
	require.NoError(t, err)
	require.Equal(t, countersOf(failed), countersOf(again), "a second JobFail counts nothing")
}

// testJobWritesAfterEnd: the writes of a job's records (SYNC's dataset upserts and deletes,
// COMPARE's record inserts) are refused with ErrJobEnded once the job has ended, failed or
// complete, and write nothing; a batch with one such write writes none; an unknown job is
// ErrNotFound; without a JobID (a dataset) or with Replay (a record) they write whatever the
// job's status.
func testJobWritesAfterEnd(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	open := newJob(t, s, src.ID)
	openRec := newRecord(t, s, open, "open")
	ended := map[string]*store.HarvestJob{}
	for _, end := range []string{"failed", "complete"} {
		other := newSource(t, s)
		job := newJob(t, s, other.ID)
		newDataset(t, s, job, "live")
		if end == "failed" {
			_, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "CancelledJob", Message: "stop"})
			require.NoError(t, err)
		} else {
			finishJob(t, s, job.ID)
		}
		ended[end] = job
	}
	unknown := &store.HarvestJob{ID: uuid.NewString(), SourceID: src.ID}
	for end, job := range map[string]*store.HarvestJob{"failed": ended["failed"], "complete": ended["complete"], "unknown": unknown} {
		want := store.ErrJobEnded
		if end == "unknown" {
			want = store.ErrNotFound
		}
		rec := &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: job.SourceID, Identifier: "late",
			Action: harvest.ActionCreate}
		_, err := s.RecordInsert(ctx, rec)
		require.ErrorIs(t, err, want, "%s: RecordInsert", end)
		ok := &store.RecordInsertParams{ID: uuid.NewString(), JobID: open.ID, SourceID: src.ID, Identifier: "ok-" + end,
			Action: harvest.ActionCreate}
		require.ErrorIs(t, s.RecordInsertBatch(ctx, []*store.RecordInsertParams{ok, rec}), want, "%s: RecordInsertBatch", end)
		for _, id := range []string{rec.ID, ok.ID} {
			_, err = s.RecordGet(ctx, id)
			require.ErrorIs(t, err, store.ErrNotFound, "%s: no record written", end)
		}

		up := &store.DatasetUpsertParams{SourceID: job.SourceID, Identifier: "late", Slug: "late-" + end,
			DCAT: dcat("late"), RecordID: openRec.ID, JobID: job.ID}
		_, err = s.DatasetUpsert(ctx, up)
		require.ErrorIs(t, err, want, "%s: DatasetUpsert", end)
		okUp := &store.DatasetUpsertParams{SourceID: src.ID, Identifier: "open", Slug: "open-" + end, DCAT: dcat("open"),
			RecordID: openRec.ID, JobID: open.ID}
		_, err = s.DatasetUpsertBatch(ctx, []*store.DatasetUpsertParams{okUp, up})
		require.ErrorIs(t, err, want, "%s: DatasetUpsertBatch", end)
		for _, k := range []*store.DatasetUpsertParams{up, okUp} {
			_, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: k.SourceID, Identifier: k.Identifier})
			require.ErrorIs(t, err, store.ErrNotFound, "%s: no dataset written", end)
		}
		if end != "unknown" {
			deleted, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: job.SourceID, Identifier: "live",
				JobID: job.ID})
			require.ErrorIs(t, err, want, "%s: DatasetDelete", end)
			require.False(t, deleted)
			_, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: "live"})
			require.NoError(t, err, "%s: the dataset stays", end)
		}
	}

	// A replay writes although its job has finished; an open job's writes go through.
	job := ended["complete"]
	replayed, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID,
		SourceID: job.SourceID, Identifier: "replayed", Action: harvest.ActionCreate, Replay: true})
	require.NoError(t, err)
	require.NoError(t, s.RecordInsertBatch(ctx, []*store.RecordInsertParams{{ID: uuid.NewString(), JobID: job.ID,
		SourceID: job.SourceID, Identifier: "replayed-2", Action: harvest.ActionCreate, Replay: true},
		{ID: uuid.NewString(), JobID: open.ID, SourceID: src.ID, Identifier: "open-2", Action: harvest.ActionCreate}}))
	_, err = s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: job.SourceID, Identifier: "replayed",
		Slug: "replayed", DCAT: dcat("replayed"), RecordID: replayed.ID})
	require.NoError(t, err)
	ds, err := s.DatasetUpsertBatch(ctx, []*store.DatasetUpsertParams{{SourceID: src.ID, Identifier: "open",
		Slug: "open", DCAT: dcat("open"), RecordID: openRec.ID, JobID: open.ID}})
	require.NoError(t, err)
	require.Equal(t, openRec.ID, ds[0].RecordID)
	deleted, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: src.ID, Identifier: "open", JobID: open.ID})
	require.NoError(t, err)
	require.True(t, deleted)
	deleted, err = s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: job.SourceID, Identifier: "live"})
	require.NoError(t, err)
	require.True(t, deleted, "without a JobID, whatever the job's status")
}

// testJobFailRacingWrites: writes of a job's records racing JobFail either land before it, and
// are counted by it (added), or are refused after it (ErrJobEnded): no dataset points at a
// record of the failed job that its counts leave out, and no record stays pending.
func testJobFailRacingWrites(t *testing.T, s store.Store) {
	ctx := t.Context()
	const n = 200
	job := newJob(t, s, newSource(t, s).ID)
	recs := make([]*store.HarvestRecord, n)
	for i := range recs {
		recs[i] = newRecord(t, s, job, fmt.Sprintf("r%03d", i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				var err error
				if i%8 < 4 {
					_, err = s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: job.SourceID,
						Identifier: recs[i].Identifier, Slug: recs[i].Identifier, DCAT: dcat(recs[i].Identifier),
						RecordID: recs[i].ID, JobID: job.ID})
				} else {
					_, err = s.DatasetUpsertBatch(ctx, []*store.DatasetUpsertParams{{SourceID: job.SourceID,
						Identifier: recs[i].Identifier, Slug: recs[i].Identifier, DCAT: dcat(recs[i].Identifier),
						RecordID: recs[i].ID, JobID: job.ID}})
				}
				if err != nil && !errors.Is(err, store.ErrJobEnded) {
					errs <- err
				}
			}
		}()
	}
	waitForDatasets(t, s, job.SourceID, n/4)
	failed, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "CancelledJob", Message: "cancelled"})
	require.NoError(t, err)
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	live, err := s.DatasetList(ctx, &store.DatasetListParams{SourceID: job.SourceID})
	require.NoError(t, err)
	require.Equal(t, len(live), failed.Added, "every dataset written is counted, none after the end")
	require.Equal(t, n, failed.Total)
	require.Equal(t, n, failed.Added+failed.Errored)
	for _, r := range recs {
		got, err := s.RecordGet(ctx, r.ID)
		require.NoError(t, err)
		require.NotEqual(t, harvest.RecordPending, got.Status)
	}
}

// waitForDatasets returns once the source has at least n live datasets.
func waitForDatasets(t *testing.T, s store.Store, sourceID string, n int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Millisecond) {
		got, err := s.DatasetCount(t.Context(), sourceID)
		require.NoError(t, err)
		if got >= n {
			return
		}
		require.True(t, time.Now().Before(deadline), "%d of %d datasets written", got, n)
	}
}

// testJobFetchLatestAfterCancel: a cancelled force_harvest whose records did not change does
// not keep conditional GET off: once a later harvest completed, its validators are reusable.
// A record the cancelled job had changed, and that never reached the catalog, still keeps it
// off until a later job settles that record.
func testJobFetchLatestAfterCancel(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	for _, id := range []string{"a", "b", "c"} {
		settleRecord(t, s, newRecord(t, s, first, id), harvest.RecordSuccess)
	}
	finishJob(t, s, first.ID)

	forced, err := s.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobForceHarvest})
	require.NoError(t, err)
	newDataset(t, s, forced, "a") // synced, not settled
	newRecord(t, s, forced, "b")  // not synced; same content as the first job's
	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: forced.ID, Type: "CancelledJob", Message: "cancelled"})
	require.NoError(t, err)

	next := newJob(t, s, src.ID) // every record unchanged: it writes none
	require.NoError(t, s.JobFetchSet(ctx, &store.JobFetch{JobID: next.ID, URL: "u", ETag: "e"}))
	finishJob(t, s, next.ID)
	got, err := s.JobFetchLatest(ctx, src.ID)
	require.NoError(t, err, "nothing is left for a harvest to do")
	require.Equal(t, next.ID, got.JobID)

	changed := newJob(t, s, src.ID)
	_, err = s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: changed.ID, SourceID: src.ID,
		Identifier: "c", Action: harvest.ActionUpdate, SourceHash: "changed"})
	require.NoError(t, err)
	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: changed.ID, Type: "CancelledJob", Message: "cancelled"})
	require.NoError(t, err)
	again := newJob(t, s, src.ID)
	require.NoError(t, s.JobFetchSet(ctx, &store.JobFetch{JobID: again.ID, URL: "u", ETag: "e2"}))
	finishJob(t, s, again.ID)
	_, err = s.JobFetchLatest(ctx, src.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "c changed and never reached the catalog: harvest it again")
}
