package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testJobFetchLatest: JobFetchGet returns what JobFetchSet saved; only the fetch of the source's last finished harvest, force_harvest or
// clear job is reusable, and only when that job completed, is not a clear and saved validators.
func testJobFetchLatest(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	other := newSource(t, s)
	latest := func() (*store.JobFetch, error) { return s.JobFetchLatest(ctx, src.ID) }
	run := func(jobType harvest.JobType, fetch *store.JobFetch, fail bool) *store.HarvestJob {
		t.Helper()
		job, err := s.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: jobType})
		require.NoError(t, err)
		if fetch != nil {
			fetch.JobID = job.ID
			require.NoError(t, s.JobFetchSet(ctx, fetch))
		}
		if fail {
			_, err := s.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "ExtractError", Message: "x"})
			require.NoError(t, err)
			return job
		}
		return finishJob(t, s, job.ID)
	}
	_, err := latest()
	require.ErrorIs(t, err, store.ErrNotFound, "no job yet")
	require.ErrorIs(t, s.JobFetchSet(ctx, &store.JobFetch{JobID: uuid.NewString(), URL: "u"}), store.ErrNotFound)
	_, err = s.JobFetchGet(ctx, uuid.NewString())
	require.ErrorIs(t, err, store.ErrNotFound, "no such job")

	job := newJob(t, s, src.ID)
	_, err = s.JobFetchGet(ctx, job.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "the job fetched nothing yet")
	want := &store.JobFetch{JobID: job.ID, URL: "https://x.example/data.json",
		SchemaType: harvest.SchemaType("dcatus1.1: federal"), ETag: `W/"v1"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT"}
	require.NoError(t, s.JobFetchSet(ctx, &store.JobFetch{JobID: job.ID, URL: "old"}))
	require.NoError(t, s.JobFetchSet(ctx, want), "a second save replaces the first")
	got, err := s.JobFetchGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, want, got)
	_, err = latest()
	require.ErrorIs(t, err, store.ErrNotFound, "the job is still in progress")
	finishJob(t, s, job.ID)
	got, err = latest()
	require.NoError(t, err)
	require.Equal(t, want, got)

	run(harvest.JobValidate, &store.JobFetch{URL: "v", ETag: "v"}, false)
	got, err = latest()
	require.NoError(t, err)
	require.Equal(t, want, got, "a validate job is passed over")
	_, err = s.JobFetchLatest(ctx, other.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "per source")

	run(harvest.JobHarvest, &store.JobFetch{URL: "f", ETag: "f"}, true)
	_, err = latest()
	require.ErrorIs(t, err, store.ErrNotFound, "the last job failed")

	forced := run(harvest.JobForceHarvest, &store.JobFetch{URL: "f", LastModified: "lm"}, false)
	got, err = latest()
	require.NoError(t, err)
	require.Equal(t, &store.JobFetch{JobID: forced.ID, URL: "f", LastModified: "lm"}, got)

	run(harvest.JobHarvest, &store.JobFetch{URL: "f"}, false)
	_, err = latest()
	require.ErrorIs(t, err, store.ErrNotFound, "the last job saved no validator")

	notModified := run(harvest.JobHarvest, &store.JobFetch{URL: "f", ETag: "e", NotModified: true}, false)
	got, err = latest()
	require.NoError(t, err)
	require.Equal(t, &store.JobFetch{JobID: notModified.ID, URL: "f", ETag: "e", NotModified: true}, got)
	run(harvest.JobClear, nil, false)
	_, err = latest()
	require.ErrorIs(t, err, store.ErrNotFound, "the last job was a clear")
}

// testJobFetchLatestUnsettled: a record whose newest row failed (status error) or never
// settled makes the source's validators unusable until a later row of that record settles.
func testJobFetchLatestUnsettled(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newFetchedJob(t, s, src.ID, "e", "ok")
	failed := newRecord(t, s, job, "failed")
	settleRecord(t, s, failed, harvest.RecordFailed)
	finishJob(t, s, job.ID)
	_, err := s.JobFetchLatest(ctx, src.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "a record failed for a reason of its own: harvest it again")

	next := newFetchedJob(t, s, src.ID, "e2", "failed")
	finishJob(t, s, next.ID)
	got, err := s.JobFetchLatest(ctx, src.ID)
	require.NoError(t, err, "the failed record settled in a later job")
	require.Equal(t, "e2", got.ETag)
}

// testJobFetchLatestStageError: a record a stage gave up on (a StageError row, here with no
// harvest_record row, as COMPARE gives up before it writes one) makes the job's validators
// unusable: a 304 would never list that record again. A record's own error does not.
func testJobFetchLatestStageError(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newFetchedJob(t, s, src.ID, "e", "ok")
	_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "invalid", Identifier: "invalid",
		Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{{Type: "ValidationError",
			Message: "invalid", Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	finishJob(t, s, job.ID)
	got, err := s.JobFetchLatest(ctx, src.ID)
	require.NoError(t, err, "a record's own error is carried by a 304")
	require.Equal(t, "e", got.ETag)

	next := newFetchedJob(t, s, src.ID, "e2")
	_, _, err = s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: next.ID, Key: "lost", Identifier: "lost",
		Outcome: harvest.OutcomeErrored, Errors: []harvest.RecordError{{Type: "StageError",
			Message: "compare stage failed: connection refused", Severity: harvest.SeverityError}}})
	require.NoError(t, err)
	finishJob(t, s, next.ID)
	_, err = s.JobFetchLatest(ctx, src.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "a stage gave up on a record: list the document again")
}

// newFetchedJob starts a harvest job of the source that fetched URL "u" with ETag etag, with a
// record settled successfully for each identifier of settled.
func newFetchedJob(t *testing.T, s store.Store, sourceID, etag string, settled ...string) *store.HarvestJob {
	t.Helper()
	job := newJob(t, s, sourceID)
	require.NoError(t, s.JobFetchSet(t.Context(), &store.JobFetch{JobID: job.ID, URL: "u", ETag: etag}))
	for _, id := range settled {
		settleRecord(t, s, newRecord(t, s, job, id), harvest.RecordSuccess)
	}
	return job
}

// testJobFetchLatestStaleDuplicate: a cross-source duplicate pair that ranks the other way since
// a precedence changed makes both sources' validators unusable (their records must be judged
// again, which a 304 would skip); once the pair swapped, they are usable again.
func testJobFetchLatestStaleDuplicate(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, b := insertSource(t, s, sourceParams("A")), insertSource(t, s, sourceParams("B"))
	dataset := func(src *store.Source, etag string) *store.Dataset {
		job := newFetchedJob(t, s, src.ID, etag)
		d := keyedDataset(t, s, job, "x", "", "")
		rec, err := s.RecordGet(ctx, d.RecordID)
		require.NoError(t, err)
		settleRecord(t, s, rec, harvest.RecordSuccess)
		finishJob(t, s, job.ID)
		return d
	}
	da, db := dataset(a, "ea"), dataset(b, "eb")
	hold := func(kept, held *store.Dataset) {
		ok, err := s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: kept.ID, HeldID: held.ID,
			Match: store.MatchIdentifier, Key: "x"})
		require.NoError(t, err)
		require.True(t, ok)
	}
	reusable := func(want bool) {
		t.Helper()
		for _, src := range []*store.Source{a, b} {
			_, err := s.JobFetchLatest(ctx, src.ID)
			if want {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, store.ErrNotFound)
			}
		}
	}
	hold(da, db) // a tie: the first one stays live
	reusable(true)
	pb := sourceParams("B")
	pb.URL, pb.Precedence = b.URL, 5
	_, err := s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: b.ID, SourceInsertParams: *pb})
	require.NoError(t, err)
	reusable(false)
	hold(db, da)
	reusable(true)
}
