package storetest

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

func testDatasetUpsertCreates(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	rec := newRecord(t, s, job, "a")
	d, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{
		SourceID: job.SourceID, Identifier: "a", Slug: "agency-dataset-a", DCAT: dcat("a"), RecordID: rec.ID,
	})
	require.NoError(t, err)
	require.NotEmpty(t, d.ID)
	require.Equal(t, "agency-dataset-a", d.Slug)
	require.Equal(t, job.SourceID, d.SourceID)
	require.Equal(t, "a", d.Identifier)
	require.JSONEq(t, string(dcat("a")), string(d.DCAT))
	require.Equal(t, rec.ID, d.RecordID)
	require.False(t, d.LastHarvestedDate.IsZero())

	got, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: "a"})
	require.NoError(t, err)
	require.Equal(t, d, got)
}

// testDatasetUpsertUpdates: an update moves the dcat, record and harvest date; the slug stays,
// even when p.Slug is another dataset's.
func testDatasetUpsertUpdates(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	created := newDataset(t, s, first, "a")
	neighbour := newDataset(t, s, first, "b")
	finishJob(t, s, first.ID)

	rec := newRecord(t, s, newJob(t, s, src.ID), "a")
	renamed := json.RawMessage(`{"identifier": "a", "title": "Renamed"}`)
	updated, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{
		SourceID: src.ID, Identifier: "a", Slug: neighbour.Slug, DCAT: renamed, RecordID: rec.ID,
	})
	require.NoError(t, err)
	require.Equal(t, created.ID, updated.ID)
	require.Equal(t, created.Slug, updated.Slug, "the slug never changes")
	require.Equal(t, rec.ID, updated.RecordID)
	require.JSONEq(t, string(renamed), string(updated.DCAT))
	require.False(t, updated.LastHarvestedDate.Before(created.LastHarvestedDate))

	got, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: src.ID, Identifier: "a"})
	require.NoError(t, err)
	require.Equal(t, updated, got)
	got, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: src.ID, Identifier: "b"})
	require.NoError(t, err)
	require.Equal(t, neighbour, got)
}

// testDatasetUpsertSlugConflict: a new dataset cannot take a slug in use, in any source.
func testDatasetUpsertSlugConflict(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	taken := newDataset(t, s, job, "a")
	rec := newRecord(t, s, job, "b")

	_, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{
		SourceID: job.SourceID, Identifier: "b", Slug: taken.Slug, DCAT: dcat("b"), RecordID: rec.ID,
	})
	require.ErrorIs(t, err, store.ErrConflict)
	_, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: "b"})
	require.ErrorIs(t, err, store.ErrNotFound, "nothing was written")

	otherJob := newJob(t, s, newSource(t, s).ID)
	otherRec := newRecord(t, s, otherJob, "a")
	_, err = s.DatasetUpsert(ctx, &store.DatasetUpsertParams{
		SourceID: otherJob.SourceID, Identifier: "a", Slug: taken.Slug, DCAT: dcat("a"), RecordID: otherRec.ID,
	})
	require.ErrorIs(t, err, store.ErrConflict, "slugs are unique across sources")

	d, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{
		SourceID: job.SourceID, Identifier: "b", Slug: taken.Slug + "-1", DCAT: dcat("b"), RecordID: rec.ID,
	})
	require.NoError(t, err, "another slug is free")
	require.Equal(t, taken.Slug+"-1", d.Slug)
}

func testDatasetGetNotFound(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	newDataset(t, s, job, "a")
	for _, p := range []*store.DatasetGetParams{
		{SourceID: job.SourceID, Identifier: "b"},
		{SourceID: newSource(t, s).ID, Identifier: "a"},
	} {
		_, err := s.DatasetGet(ctx, p)
		require.ErrorIs(t, err, store.ErrNotFound, "%+v", p)
	}
}

// testDatasetList: a source's datasets, ordered by identifier, and no other source's.
func testDatasetList(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	byIdentifier := map[string]*store.Dataset{}
	for _, identifier := range []string{"c", "a", "b"} {
		byIdentifier[identifier] = newDataset(t, s, job, identifier)
	}
	newDataset(t, s, newJob(t, s, newSource(t, s).ID), "aa")

	list, err := s.DatasetList(ctx, &store.DatasetListParams{SourceID: job.SourceID})
	require.NoError(t, err)
	require.Equal(t, []*store.Dataset{byIdentifier["a"], byIdentifier["b"], byIdentifier["c"]}, list)

	list, err = s.DatasetList(ctx, &store.DatasetListParams{SourceID: newSource(t, s).ID})
	require.NoError(t, err)
	require.Empty(t, list)
}

// testDatasetStream: every dataset in id order, or one source's; fn's error stops it.
func testDatasetStream(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	other := newJob(t, s, newSource(t, s).ID)
	want := map[string]*store.Dataset{}
	for _, identifier := range []string{"c", "a", "b"} {
		d := newDataset(t, s, job, identifier)
		want[d.ID] = d
	}
	o := newDataset(t, s, other, "z")

	var got []*store.Dataset
	require.NoError(t, s.DatasetStream(ctx, &store.DatasetListParams{SourceID: job.SourceID}, func(d *store.Dataset) error {
		got = append(got, d)
		return nil
	}))
	require.Len(t, got, 3)
	for i, d := range got {
		require.Equal(t, want[d.ID], d)
		if i > 0 {
			require.Less(t, got[i-1].ID, d.ID, "ordered by id")
		}
	}

	seen := map[string]bool{}
	require.NoError(t, s.DatasetStream(ctx, &store.DatasetListParams{}, func(d *store.Dataset) error {
		seen[d.ID] = true
		return nil
	}))
	require.True(t, seen[o.ID], "an empty source id streams every source")
	for id := range want {
		require.True(t, seen[id])
	}

	requireStops(t, func(each func() error) error {
		return s.DatasetStream(ctx, &store.DatasetListParams{}, func(*store.Dataset) error { return each() })
	})
}

// testDatasetDelete: delete reports whether it removed a row; the record history stays.
func testDatasetDelete(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	a := newDataset(t, s, job, "a")
	b := newDataset(t, s, job, "b")
	otherJob := newJob(t, s, newSource(t, s).ID)
	otherA := newDataset(t, s, otherJob, "a")
	del := &store.DatasetDeleteParams{SourceID: job.SourceID, Identifier: "a"}

	removed, err := s.DatasetDelete(ctx, del)
	require.NoError(t, err)
	require.True(t, removed)
	_, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: "a"})
	require.ErrorIs(t, err, store.ErrNotFound)

	removed, err = s.DatasetDelete(ctx, del)
	require.NoError(t, err, "a redelivered delete is not an error")
	require.False(t, removed)
	removed, err = s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: job.SourceID, Identifier: "never"})
	require.NoError(t, err)
	require.False(t, removed)

	for _, want := range []*store.Dataset{b, otherA} {
		got, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: want.SourceID, Identifier: want.Identifier})
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	_, err = s.RecordGet(ctx, a.RecordID)
	require.NoError(t, err, "the record history stays")
}

// testDatasetListUnseen: stored minus the job's seen identifiers, within the source.
func testDatasetListUnseen(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	for _, identifier := range []string{"a", "b", "c", "d"} {
		newDataset(t, s, first, identifier)
	}
	finishJob(t, s, first.ID)
	otherJob := newJob(t, s, newSource(t, s).ID)
	newDataset(t, s, otherJob, "x")

	job := newJob(t, s, src.ID)
	see := func(jobID string, identifiers ...string) {
		t.Helper()
		for _, identifier := range identifiers {
			require.NoError(t, s.JobIdentifierAdd(ctx, &store.JobIdentifierAddParams{JobID: jobID, Identifier: identifier}))
		}
	}
	see(job.ID, "a", "c", "a", "e") // "a" twice: adding is idempotent; "e" is new
	see(otherJob.ID, "b", "d")      // another source's listing does not count

	require.ElementsMatch(t, []string{"b", "d"}, unseen(t, s, src.ID, job.ID))
	require.ElementsMatch(t, []string{"a", "b", "c", "d"}, unseen(t, s, src.ID, first.ID))
	require.ElementsMatch(t, []string{"x"}, unseen(t, s, otherJob.SourceID, job.ID))
	require.Empty(t, unseen(t, s, newSource(t, s).ID, job.ID))
}

// testDatasetListUnseenStops: fn's error stops the listing and is returned.
func testDatasetListUnseenStops(t *testing.T, s store.Store) {
	job := newJob(t, s, newSource(t, s).ID)
	for _, identifier := range []string{"a", "b", "c"} {
		newDataset(t, s, job, identifier)
	}
	requireStops(t, func(each func() error) error {
		return s.DatasetListUnseen(t.Context(), &store.DatasetListUnseenParams{SourceID: job.SourceID, JobID: job.ID},
			func(string) error { return each() })
	})
}

// testDatasetDeleteDetection runs the delete path of a harvest: datasets A, B and C are stored,
// the next listing has A and C, so B is unseen, deleted and counted.
func testDatasetDeleteDetection(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	for _, identifier := range []string{"A", "B", "C"} {
		require.NoError(t, s.JobIdentifierAdd(ctx, &store.JobIdentifierAddParams{JobID: first.ID, Identifier: identifier}))
		d := newDataset(t, s, first, identifier)
		rec, err := s.RecordGet(ctx, d.RecordID)
		require.NoError(t, err)
		settleRecord(t, s, rec, harvest.RecordSuccess)
	}
	require.Empty(t, unseen(t, s, src.ID, first.ID))
	finishJob(t, s, first.ID)

	job := newJob(t, s, src.ID)
	for _, identifier := range []string{"A", "C"} {
		require.NoError(t, s.JobIdentifierAdd(ctx, &store.JobIdentifierAddParams{JobID: job.ID, Identifier: identifier}))
		settle(t, s, job.ID, identifier, harvest.OutcomeUnchanged)
	}
	gone := unseen(t, s, src.ID, job.ID)
	require.Equal(t, []string{"B"}, gone)

	rec, err := s.RecordInsert(ctx, &store.RecordInsertParams{
		ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID, Identifier: "B", Action: harvest.ActionDelete,
	})
	require.NoError(t, err)
	removed, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: src.ID, Identifier: "B"})
	require.NoError(t, err)
	require.True(t, removed)
	_, _, err = s.OutcomeSettle(ctx, &store.OutcomeSettleParams{
		JobID: job.ID, Key: "B", Identifier: "B", RecordID: rec.ID,
		Outcome: harvest.OutcomeDeleted, Status: harvest.RecordSuccess,
	})
	require.NoError(t, err)

	done := finishJob(t, s, job.ID)
	require.Equal(t, counters{Total: 3, Deleted: 1, Unchanged: 2, Settled: 3}, countersOf(done))
	list, err := s.DatasetList(ctx, &store.DatasetListParams{SourceID: src.ID})
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "A", list[0].Identifier)
	require.Equal(t, "C", list[1].Identifier)
	require.Empty(t, unseen(t, s, src.ID, job.ID))

	latest, err := s.RecordLatest(ctx, &store.RecordLatestParams{SourceID: src.ID, Identifier: "B"})
	require.NoError(t, err)
	require.Equal(t, rec.ID, latest.ID, "the delete is B's newest record")
	require.Equal(t, harvest.ActionDelete, latest.Action)
}

// testDatasetCount: a source's live datasets, not another's, and not deleted ones.
func testDatasetCount(t *testing.T, s store.Store) {
	ctx := t.Context()
	count := func(sourceID string) int {
		t.Helper()
		n, err := s.DatasetCount(ctx, sourceID)
		require.NoError(t, err)
		return n
	}
	job := newJob(t, s, newSource(t, s).ID)
	require.Zero(t, count(job.SourceID))
	for _, id := range []string{"a", "b", "c"} {
		newDataset(t, s, job, id)
	}
	newDataset(t, s, newJob(t, s, newSource(t, s).ID), "a")
	require.Equal(t, 3, count(job.SourceID))

	_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: job.SourceID, Identifier: "b"})
	require.NoError(t, err)
	require.Equal(t, 2, count(job.SourceID))
	require.Zero(t, count(uuid.NewString()))
}

// testDatasetAny: an empty store has no live dataset; one dataset of any source is one; deleting
// the last makes it none again.
func testDatasetAny(t *testing.T, s store.Store) {
	ctx := t.Context()
	hasLive := func() bool {
		t.Helper()
		ok, err := s.DatasetAny(ctx)
		require.NoError(t, err)
		return ok
	}
	job := newJob(t, s, newSource(t, s).ID)
	require.False(t, hasLive(), "a source without datasets")
	newDataset(t, s, job, "a")
	require.True(t, hasLive())
	_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: job.SourceID, Identifier: "a"})
	require.NoError(t, err)
	require.False(t, hasLive(), "the last dataset deleted")
}

// requireStops: a stream whose callback fails stops at its first call and returns the
// callback's error. stream passes each call of its callback on to each.
func requireStops(t *testing.T, stream func(each func() error) error) {
	t.Helper()
	stop := errors.New("stop")
	calls := 0
	err := stream(func() error {
		calls++
		return stop
	})
	require.ErrorIs(t, err, stop)
	require.Equal(t, 1, calls)
}
