package storetest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// Hostile cases of DatasetUpsertBatch's AltSlug and DatasetDuplicatePossible.

// testDatasetUpsertBatchAltSlugTaken: a created dataset whose Slug and AltSlug are both taken fails the
// whole batch with ErrConflict and writes nothing (store.go's contract), on every backend.
func testDatasetUpsertBatchAltSlugTaken(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	a, b := newDataset(t, s, job, "a"), newDataset(t, s, job, "b")
	c, d := newRecord(t, s, job, "c"), newRecord(t, s, job, "d")
	_, err := s.DatasetUpsertBatch(ctx, []*store.DatasetUpsertParams{
		{SourceID: job.SourceID, Identifier: "d", Slug: "free-d-" + job.ID, AltSlug: "alt-d-" + job.ID, DCAT: dcat("d"), RecordID: d.ID},
		{SourceID: job.SourceID, Identifier: "c", Slug: a.Slug, AltSlug: b.Slug, DCAT: dcat("c"), RecordID: c.ID},
	})
	require.ErrorIs(t, err, store.ErrConflict)
	for _, id := range []string{"c", "d"} {
		_, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: id})
		require.ErrorIs(t, err, store.ErrNotFound, "nothing was written")
	}
}

// testDatasetUpsertBatchTwoWantOneSlug: store.go says a batch fails with ErrConflict when "two datasets of
// ps want one slug", AltSlug or not. Both backends must agree.
func testDatasetUpsertBatchTwoWantOneSlug(t *testing.T, s store.Store) {
	ctx := t.Context()
	job := newJob(t, s, newSource(t, s).ID)
	b, c := newRecord(t, s, job, "b"), newRecord(t, s, job, "c")
	one := "one-" + job.ID
	got, err := s.DatasetUpsertBatch(ctx, []*store.DatasetUpsertParams{
		{SourceID: job.SourceID, Identifier: "b", Slug: one, AltSlug: "alt-b-" + job.ID, DCAT: dcat("b"), RecordID: b.ID},
		{SourceID: job.SourceID, Identifier: "c", Slug: one, AltSlug: "alt-c-" + job.ID, DCAT: dcat("c"), RecordID: c.ID},
	})
	slugs := []string{}
	for _, d := range got {
		slugs = append(slugs, d.Slug)
	}
	require.ErrorIs(t, err, store.ErrConflict, "two datasets of one batch want slug %s; wrote slugs %v", one, slugs)
}

// testCrossSourceDuplicatePossibleRandom: for many random catalogs of three sources (keys drawn from a
// small pool so they collide across and within sources; pairs made by DatasetDuplicateKeep, then
// keys changed under them so pairs go stale), every dataset DatasetDuplicateFind has a candidate
// for is named by DatasetDuplicatePossible, and so is every held dataset and every dataset
// another is held against.
func testCrossSourceDuplicatePossibleRandom(t *testing.T, s store.Store) {
	ctx := t.Context()
	for round := range 6 {
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		var jobs []*store.HarvestJob
		for i := range 3 {
			p := sourceParams(fmt.Sprintf("Src %d/%d", round, i))
			p.Precedence = rng.IntN(3)
			jobs = append(jobs, newJob(t, s, insertSource(t, s, p).ID))
		}
		pick := func(prefix string, n int) string {
			if k := rng.IntN(n + 1); k < n {
				return fmt.Sprintf("%s-%d-%d", prefix, round, k)
			}
			return ""
		}
		var all []*store.Dataset
		for i := range 30 {
			job := jobs[rng.IntN(3)]
			id := fmt.Sprintf("id-%d-%d", round, rng.IntN(12))
			if _, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: job.SourceID, Identifier: id}); err == nil {
				id = fmt.Sprintf("id-%d-u%d", round, i)
			}
			all = append(all, keyedDataset(t, s, job, id, pick("https://l", 5), pick("sha", 5)))
		}
		for range 10 { // pairs
			d := all[rng.IntN(len(all))]
			_, err := s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: d.ID, JobID: jobs[0].ID})
			require.NoError(t, err)
		}
		for range 8 { // keys change under the pairs
			i := rng.IntN(len(all))
			d := all[i]
			rec, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: d.SourceID, Identifier: d.Identifier})
			require.NoError(t, err)
			u, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: d.SourceID, Identifier: d.Identifier,
				Slug: rec.Slug, DCAT: dcat(d.Identifier), RecordID: rec.RecordID, LandingPage: pick("https://l", 5),
				DownloadURLsSHA: pick("sha", 5)})
			require.NoError(t, err)
			all[i] = u
		}
		ids := make([]string, len(all))
		for i, d := range all {
			ids[i] = d.ID
		}
		possible, err := s.DatasetDuplicatePossible(ctx, ids)
		require.NoError(t, err)
		heldAgainst := map[string]bool{}
		for _, d := range all {
			cur, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: d.SourceID, Identifier: d.Identifier})
			require.NoError(t, err)
			if cur.DuplicateOf != "" {
				heldAgainst[cur.DuplicateOf] = true
				require.True(t, possible[cur.ID], "round %d: held %s not named", round, cur.Identifier)
			}
		}
		for _, d := range all {
			cur, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: d.SourceID, Identifier: d.Identifier})
			require.NoError(t, err)
			found, err := s.DatasetDuplicateFind(ctx, findParams(cur))
			require.NoError(t, err)
			require.True(t, len(found) == 0 || possible[cur.ID], "round %d: Find has %d candidates for %s (%s, %s): Possible must name it",
				round, len(found), cur.Identifier, cur.LandingPage, cur.DownloadURLsSHA)
			require.True(t, !heldAgainst[cur.ID] || possible[cur.ID], "round %d: %s has one held against it", round, cur.Identifier)
		}
	}
}
