package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// outranks reports the Outranks of the live candidate DatasetDuplicateFind finds for d, which
// must be other.
func outranks(t *testing.T, s store.Store, d, other *store.Dataset) bool {
	t.Helper()
	found, err := s.DatasetDuplicateFind(t.Context(), findParams(d))
	require.NoError(t, err)
	for _, c := range found {
		if c.Live {
			require.Equal(t, other.ID, c.DatasetID)
			return c.Outranks
		}
	}
	require.Fail(t, "no live candidate", "for %s", d.Identifier)
	return false
}

// compareOf is RecordCompareBatch's answer for the dataset d.
func compareOf(t *testing.T, s store.Store, d *store.Dataset) *store.RecordCompare {
	t.Helper()
	got, err := s.RecordCompareBatch(t.Context(), []store.RecordCompareKey{{SourceID: d.SourceID, Identifier: d.Identifier}})
	require.NoError(t, err)
	return got[0]
}

// testCrossSourceDuplicateFirstPublished (issue 34): at equal precedence the source that first
// published a key outranks the other, and keeps outranking it after its dataset was gone for a
// while (a harvest that omitted it, a clear): when it publishes it again it is not held, and a
// pair held the other way (judged by the old rule, "the dataset live first") is stale. Each
// key counts on its own; a precedence still overrides it.
func testCrossSourceDuplicateFirstPublished(t *testing.T, s store.Store) {
	ctx := t.Context()
	trusted, hostile := insertSource(t, s, sourceParams("Trusted")), insertSource(t, s, sourceParams("Hostile"))
	jt := newJob(t, s, trusted.ID)
	dt := keyedDataset(t, s, jt, "ds/0", "https://t.gov/0", "")
	jh := newJob(t, s, hostile.ID)
	dh := keyedDataset(t, s, jh, "ds/0", "", "")
	require.True(t, outranks(t, s, dh, dt), "the trusted source published ds/0 first")
	ok, err := s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: dt.ID, HeldID: dh.ID, Match: store.MatchIdentifier,
		Key: "ds/0", JobID: jh.ID})
	require.NoError(t, err)
	require.True(t, ok)
	require.False(t, compareOf(t, s, dh).DuplicateMoved, "held by its own source's job")

	// The trusted catalog omits ds/0 for one harvest: the hostile copy is live.
	_, err = s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: trusted.ID, Identifier: "ds/0"})
	require.NoError(t, err)
	released, err := s.DatasetDuplicateRelease(ctx, 10)
	require.NoError(t, err)
	require.Len(t, released, 1)
	require.True(t, compareOf(t, s, dh).DuplicateMoved, "released in another source's job")
	_, err = s.JobFetchLatest(ctx, hostile.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "a moved dataset is judged again: no 304 shortcut")

	// It comes back, in a later job, with the same identifier and a new landingPage: it still
	// outranks the hostile copy, which published ds/0 after it did.
	finishJob(t, s, jt.ID)
	jt2 := newJob(t, s, trusted.ID)
	back := keyedDataset(t, s, jt2, "ds/0", "https://t.gov/new", "")
	require.False(t, outranks(t, s, back, dh), "the hostile copy does not outrank the returning one")
	held, err := s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: back.ID, JobID: jt2.ID})
	require.NoError(t, err)
	require.Len(t, held, 1, "the returning dataset holds the hostile copy")
	require.Equal(t, dh.ID, held[0].DatasetID)
	require.Equal(t, back.ID, duplicateOf(t, s, dh))
	require.True(t, compareOf(t, s, dh).DuplicateMoved)
	require.False(t, compareOf(t, s, back).DuplicateMoved)

	// The hostile source's own write clears its mark. Its job counts its held dataset.
	require.Equal(t, 1, finishJob(t, s, jh.ID).Held)
	require.Zero(t, finishJob(t, s, jt2.ID).Held)
	jt2 = newJob(t, s, trusted.ID)
	jh = newJob(t, s, hostile.ID)
	again := keyedDataset(t, s, jh, "ds/0", "", "")
	require.Equal(t, dh.ID, again.ID)
	require.False(t, compareOf(t, s, again).DuplicateMoved)

	// A pair held the other way (as the old rule left it after such a gap) is stale for both.
	ok, err = s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: dh.ID, HeldID: back.ID, Match: store.MatchIdentifier,
		Key: "ds/0", JobID: jh.ID})
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, compareOf(t, s, back).DuplicateStale)
	require.True(t, compareOf(t, s, dh).DuplicateStale)
	require.True(t, compareOf(t, s, back).DuplicateMoved, "held by another source's job")
	counted, err := s.JobCountHeld(ctx, jt.ID)
	require.NoError(t, err)
	require.Equal(t, 1, counted.Held, "counted again: the trusted dataset is held now")
	_, err = s.JobFetchLatest(ctx, trusted.ID)
	require.ErrorIs(t, err, store.ErrNotFound)

	// Each key on its own: the hostile source published this landingPage first.
	lh := keyedDataset(t, s, jh, "h-page", "https://shared.gov/page", "")
	lt := keyedDataset(t, s, jt2, "t-page", "https://shared.gov/page", "")
	require.True(t, outranks(t, s, lt, lh))
	require.False(t, outranks(t, s, lh, lt))

	// The operator's override: a higher precedence outranks whoever published first.
	p := sourceParams("Hostile")
	p.URL, p.Precedence = hostile.URL, 1
	_, err = s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: hostile.ID, SourceInsertParams: *p})
	require.NoError(t, err)
	require.True(t, outranks(t, s, back, dh))
	require.False(t, compareOf(t, s, back).DuplicateStale, "held against a higher precedence: as it should")
}

// testCrossSourceDuplicateFirstPublishedClear (issue 34): the first publications survive the
// deletion of every dataset of the source (a clear job) and of all its records' jobs being
// finished; a source re-publishing after a clear outranks one that published after it first did.
func testCrossSourceDuplicateFirstPublishedClear(t *testing.T, s store.Store) {
	ctx := t.Context()
	trusted, hostile := insertSource(t, s, sourceParams("Trusted")), insertSource(t, s, sourceParams("Hostile"))
	jt := newJob(t, s, trusted.ID)
	for _, id := range []string{"a", "b", "c"} {
		keyedDataset(t, s, jt, id, "https://t.gov/"+id, "sha-"+id)
	}
	finishJob(t, s, jt.ID)
	jh := newJob(t, s, hostile.ID)
	var copies []*store.Dataset
	for _, id := range []string{"a", "b", "c"} {
		copies = append(copies, keyedDataset(t, s, jh, "copy-"+id, "https://t.gov/"+id, "sha-"+id))
	}
	finishJob(t, s, jh.ID)
	clear := newJob(t, s, trusted.ID)
	for _, id := range []string{"a", "b", "c"} {
		_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: trusted.ID, Identifier: id})
		require.NoError(t, err)
	}
	finishJob(t, s, clear.ID)
	again := newJob(t, s, trusted.ID)
	for i, id := range []string{"a", "b", "c"} {
		d := keyedDataset(t, s, again, id, "https://t.gov/"+id, "sha-"+id)
		require.False(t, outranks(t, s, d, copies[i]), "%s: the copy was published after the trusted one", id)
		require.True(t, outranks(t, s, copies[i], d))
	}
}

// testCrossSourceDuplicateFirstPublishedTie (issue 34): datasets of two sources first published
// in the same instant (one upsert batch) rank by their jobs' creation, then by source id, so
// the outcome does not depend on which is judged first.
func testCrossSourceDuplicateFirstPublishedTie(t *testing.T, s store.Store) {
	ctx := t.Context()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ids := []string{uuid.NewString(), uuid.NewString()}
	if strings.Compare(ids[0], ids[1]) > 0 {
		ids[0], ids[1] = ids[1], ids[0]
	}
	src := func(id string) *store.Source { // a source whose id is id
		p := sourceParams("S " + id[:8])
		_, err := s.SourceImport(ctx, &store.SourceImportParams{ID: id, SourceInsertParams: *p})
		require.NoError(t, err)
		got, err := s.SourceGet(ctx, id)
		require.NoError(t, err)
		return got
	}
	lowID, highID := src(ids[0]), src(ids[1])
	job := func(srcID string, created time.Time) *store.HarvestJob {
		id := uuid.NewString()
		// In progress: its records are written after (a finished job's writes are refused).
		_, err := s.JobImport(ctx, &store.JobImportParams{ID: id, SourceID: srcID, JobType: harvest.JobHarvest,
			Status: harvest.JobInProgress, CreatedAt: created})
		require.NoError(t, err)
		j, err := s.JobGet(ctx, id)
		require.NoError(t, err)
		return j
	}
	batch := func(jobs ...*store.HarvestJob) []*store.Dataset {
		var ps []*store.DatasetUpsertParams
		for _, j := range jobs {
			rec := newRecord(t, s, j, "same")
			ps = append(ps, &store.DatasetUpsertParams{SourceID: j.SourceID, Identifier: "same",
				Slug: "same-" + rec.ID[:8], DCAT: dcat("same"), RecordID: rec.ID})
		}
		ds, err := s.DatasetUpsertBatch(ctx, ps)
		require.NoError(t, err)
		return ds
	}
	// The same instant, jobs created at the same time: the lower source id.
	ds := batch(job(highID.ID, at), job(lowID.ID, at))
	require.True(t, outranks(t, s, ds[0], ds[1]), "the lower source id")
	require.False(t, outranks(t, s, ds[1], ds[0]))

	// The same instant, the higher source id's job created first: the earlier job.
	for _, d := range ds {
		_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: d.SourceID, Identifier: d.Identifier})
		require.NoError(t, err)
	}
	other := func(name string) *store.Source { return insertSource(t, s, sourceParams(name)) }
	a, b := other("A"), other("B")
	ds = batch(job(a.ID, at.Add(time.Second)), job(b.ID, at))
	require.True(t, outranks(t, s, ds[0], ds[1]), "b's job was created first")
	require.False(t, outranks(t, s, ds[1], ds[0]))
}

// testCrossSourceDuplicateFirstPublishedThree (issue 34): three sources at equal precedence
// publish one identifier in turn; when the first one's dataset goes, the second one outranks
// the third whichever of them is judged first, and the first outranks both when it returns.
func testCrossSourceDuplicateFirstPublishedThree(t *testing.T, s store.Store) {
	ctx := t.Context()
	var ds []*store.Dataset
	var jobs []*store.HarvestJob
	for _, name := range []string{"First", "Second", "Third"} {
		j := newJob(t, s, insertSource(t, s, sourceParams(name)).ID)
		jobs = append(jobs, j)
		ds = append(ds, keyedDataset(t, s, j, "x", "", ""))
	}
	for _, d := range ds[1:] {
		ok, err := s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: ds[0].ID, HeldID: d.ID,
			Match: store.MatchIdentifier, Key: "x", JobID: jobs[0].ID})
		require.NoError(t, err)
		require.True(t, ok)
	}
	_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: ds[0].SourceID, Identifier: "x"})
	require.NoError(t, err)
	released, err := s.DatasetDuplicateRelease(ctx, 10)
	require.NoError(t, err)
	require.Len(t, released, 2)
	require.True(t, outranks(t, s, ds[2], ds[1]), "judging the third first")
	require.False(t, outranks(t, s, ds[1], ds[2]), "judging the second first")
	held, err := s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: ds[1].ID, JobID: jobs[0].ID})
	require.NoError(t, err)
	require.Len(t, held, 1)
	require.Equal(t, ds[2].ID, held[0].DatasetID)

	finishJob(t, s, jobs[0].ID)
	back := keyedDataset(t, s, newJob(t, s, ds[0].SourceID), "x", "", "")
	require.False(t, outranks(t, s, back, ds[1]))
	held, err = s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: back.ID, JobID: jobs[0].ID})
	require.NoError(t, err)
	require.Len(t, held, 1, "the live one of the other two")
	require.Equal(t, ds[1].ID, held[0].DatasetID)
}
