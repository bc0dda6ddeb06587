package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// keyedDataset writes a record of identifier in the job and a live dataset from it with the
// duplicate keys landing and sha.
func keyedDataset(t *testing.T, s store.Store, job *store.HarvestJob, identifier, landing, sha string) *store.Dataset {
	t.Helper()
	rec := newRecord(t, s, job, identifier)
	d, err := s.DatasetUpsert(t.Context(), &store.DatasetUpsertParams{SourceID: job.SourceID, Identifier: identifier,
		Slug: identifier + "-" + rec.ID[:8], DCAT: dcat(identifier), RecordID: rec.ID, LandingPage: landing,
		DownloadURLsSHA: sha})
	require.NoError(t, err)
	require.Equal(t, landing, d.LandingPage)
	require.Equal(t, sha, d.DownloadURLsSHA)
	return d
}

// findParams are DatasetDuplicateFind's params of d.
func findParams(d *store.Dataset) *store.DatasetDuplicateFindParams {
	return &store.DatasetDuplicateFindParams{DatasetID: d.ID, SourceID: d.SourceID, Identifier: d.Identifier,
		LandingPage: d.LandingPage, DownloadURLsSHA: d.DownloadURLsSHA}
}

// duplicateOf is the DuplicateOf of the dataset d as stored now.
func duplicateOf(t *testing.T, s store.Store, d *store.Dataset) string {
	t.Helper()
	got, err := s.DatasetGet(t.Context(), &store.DatasetGetParams{SourceID: d.SourceID, Identifier: d.Identifier})
	require.NoError(t, err)
	return got.DuplicateOf
}

// listPairs is CrossSourceDuplicateList of p.
func listPairs(t *testing.T, s store.Store, p store.CrossSourceDuplicateListParams) ([]store.CrossSourceDuplicate, int) {
	t.Helper()
	pairs, total, err := s.CrossSourceDuplicateList(t.Context(), &p)
	require.NoError(t, err)
	return pairs, total
}

// testCrossSourceDuplicateKeepHold: a dataset that keeps holds the lower-ranked live dataset of
// another source sharing a key; the held one is out of every live count and list, the pair is
// listed with both sides under every filter; a hold that swaps keeps the pair's first job; a
// hold against a held dataset is refused; COMPARE sees the stale standing after a precedence
// change; a deleted kept dataset's held ones are released once.
func testCrossSourceDuplicateKeepHold(t *testing.T, s store.Store) {
	ctx := t.Context()
	org := newOrganization(t, s, "NOAA")
	pa := sourceParams("Aggregator")
	pa.OrganizationID, pa.Precedence = org.ID, -10
	a := insertSource(t, s, pa)
	b := insertSource(t, s, sourceParams("Own"))
	ja, jb := newJob(t, s, a.ID), newJob(t, s, b.ID)
	da := keyedDataset(t, s, ja, "x", "https://noaa.gov/l", "")
	db := keyedDataset(t, s, jb, "y", "https://noaa.gov/l", "")

	found, err := s.DatasetDuplicateFind(ctx, findParams(db))
	require.NoError(t, err)
	require.Equal(t, []*store.DuplicateCandidate{{DatasetID: da.ID, SourceID: a.ID, SourceName: "Aggregator",
		Identifier: "x", Slug: da.Slug, Precedence: -10, Match: store.MatchLandingPage, Key: "https://noaa.gov/l",
		Live: true}}, found)

	held, err := s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: db.ID, JobID: jb.ID})
	require.NoError(t, err)
	require.Len(t, held, 1)
	require.Equal(t, da.ID, held[0].DatasetID)
	require.False(t, held[0].Live)
	require.Equal(t, db.ID, duplicateOf(t, s, da))
	require.Empty(t, duplicateOf(t, s, db))

	n, err := s.DatasetCount(ctx, a.ID)
	require.NoError(t, err)
	require.Zero(t, n, "a held dataset is not live")
	n, err = s.DatasetCountHeld(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = s.DatasetCountHeld(ctx, b.ID)
	require.NoError(t, err)
	require.Zero(t, n)
	list, err := s.DatasetList(ctx, &store.DatasetListParams{SourceID: a.ID})
	require.NoError(t, err)
	require.Empty(t, list)
	n, err = s.OrganizationDatasetCount(ctx, org.ID)
	require.NoError(t, err)
	require.Zero(t, n)
	var streamed []string
	require.NoError(t, s.DatasetStream(ctx, &store.DatasetListParams{}, func(d *store.Dataset) error {
		streamed = append(streamed, d.ID)
		return nil
	}))
	require.Equal(t, []string{db.ID}, streamed)

	pairs, total := listPairs(t, s, store.CrossSourceDuplicateListParams{})
	require.Equal(t, 1, total)
	p := pairs[0]
	require.Equal(t, store.MatchLandingPage, p.Match)
	require.Equal(t, "https://noaa.gov/l", p.Key)
	require.Equal(t, jb.ID, p.FirstJobID)
	require.False(t, p.FirstSeenAt.IsZero())
	require.Equal(t, store.DuplicateSide{SourceID: b.ID, SourceName: "Own", DatasetID: db.ID, DatasetSlug: db.Slug,
		Identifier: "y", RecordID: db.RecordID}, p.Kept)
	require.Equal(t, store.DuplicateSide{SourceID: a.ID, SourceName: "Aggregator", OrganizationID: org.ID,
		OrganizationName: "NOAA", DatasetID: da.ID, DatasetSlug: da.Slug, Identifier: "x", RecordID: da.RecordID,
		Precedence: -10}, p.Held)
	for _, f := range []store.CrossSourceDuplicateListParams{{SourceID: a.ID}, {SourceID: b.ID},
		{OrganizationID: org.ID}, {JobID: jb.ID}, {HeldSourceID: a.ID}} {
		_, total := listPairs(t, s, f)
		require.Equal(t, 1, total, "%+v", f)
	}
	for _, f := range []store.CrossSourceDuplicateListParams{{JobID: ja.ID}, {SourceID: newSource(t, s).ID}, {HeldSourceID: b.ID},
		{PageParams: store.PageParams{Limit: 1, Offset: 1}}} {
		pairs, _ := listPairs(t, s, f)
		require.Empty(t, pairs, "%+v", f)
	}

	// Precedences flip: COMPARE sees both records' standing stale.
	pb := sourceParams("Own")
	pb.URL, pb.Precedence = b.URL, -20
	_, err = s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: b.ID, SourceInsertParams: *pb})
	require.NoError(t, err)
	cmp, err := s.RecordCompareBatch(ctx, []store.RecordCompareKey{{SourceID: a.ID, Identifier: "x"},
		{SourceID: b.ID, Identifier: "y"}, {SourceID: b.ID, Identifier: "none"}})
	require.NoError(t, err)
	require.True(t, cmp[0].DuplicateStale)
	require.True(t, cmp[1].DuplicateStale)
	require.False(t, cmp[2].DuplicateStale)

	// The swap keeps when the pair was first found.
	ok, err := s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: da.ID, HeldID: db.ID, Match: store.MatchLandingPage,
		Key: "https://noaa.gov/l", JobID: ja.ID})
	require.NoError(t, err)
	require.True(t, ok)
	require.Empty(t, duplicateOf(t, s, da))
	require.Equal(t, da.ID, duplicateOf(t, s, db))
	pairs, _ = listPairs(t, s, store.CrossSourceDuplicateListParams{})
	require.Len(t, pairs, 1)
	require.Equal(t, da.ID, pairs[0].Kept.DatasetID)
	require.Equal(t, jb.ID, pairs[0].FirstJobID, "a swapped pair keeps its first job")
	require.True(t, pairs[0].FirstSeenAt.Equal(p.FirstSeenAt))
	cmp, err = s.RecordCompareBatch(ctx, []store.RecordCompareKey{{SourceID: a.ID, Identifier: "x"},
		{SourceID: b.ID, Identifier: "y"}})
	require.NoError(t, err)
	require.False(t, cmp[0].DuplicateStale)
	require.False(t, cmp[1].DuplicateStale)

	// No hold against a held dataset; no cycle.
	c := newSource(t, s)
	dc := keyedDataset(t, s, newJob(t, s, c.ID), "y", "", "")
	ok, err = s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: db.ID, HeldID: dc.ID, Match: store.MatchIdentifier,
		Key: "y", JobID: ja.ID})
	require.NoError(t, err)
	require.False(t, ok)
	require.Empty(t, duplicateOf(t, s, dc))

	// The kept dataset goes: its held one is released once.
	deleted, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: a.ID, Identifier: "x"})
	require.NoError(t, err)
	require.True(t, deleted)
	released, err := s.DatasetDuplicateRelease(ctx, 10)
	require.NoError(t, err)
	require.Len(t, released, 1)
	require.Equal(t, db.ID, released[0].ID)
	require.Empty(t, released[0].DuplicateOf)
	released, err = s.DatasetDuplicateRelease(ctx, 10)
	require.NoError(t, err)
	require.Empty(t, released)
	_, total = listPairs(t, s, store.CrossSourceDuplicateListParams{})
	require.Zero(t, total)
}

// testCrossSourceDuplicateFind: every key matches across sources only; empty keys match
// nothing; the live candidate of the highest-ranked source comes first, identifier before
// landingPage before downloadURL; a dataset held against the one looked up is listed too.
func testCrossSourceDuplicateFind(t *testing.T, s store.Store) {
	ctx := t.Context()
	low, high := sourceParams("Low"), sourceParams("High")
	low.Precedence, high.Precedence = -1, 5
	jl, jh := newJob(t, s, insertSource(t, s, low).ID), newJob(t, s, insertSource(t, s, high).ID)
	mine := newJob(t, s, newSource(t, s).ID)
	d := keyedDataset(t, s, mine, "id-1", "https://l", "sha1")
	keyedDataset(t, s, mine, "id-2", "https://mine-2", "sha2") // the same source: never a duplicate
	blank := keyedDataset(t, s, jl, "blank", "", "")
	keyedDataset(t, s, jl, "other", "", "")
	viaSHA := keyedDataset(t, s, jl, "s", "https://elsewhere", "sha1")
	keyedDataset(t, s, jl, "s2", "https://mine-2", "sha2")

	found, err := s.DatasetDuplicateFind(ctx, findParams(blank))
	require.NoError(t, err)
	require.Empty(t, found, "empty keys match nothing")

	found, err = s.DatasetDuplicateFind(ctx, findParams(d))
	require.NoError(t, err)
	require.Len(t, found, 1)
	require.Equal(t, viaSHA.ID, found[0].DatasetID)
	require.Equal(t, store.MatchDownloadURL, found[0].Match)
	require.Equal(t, "sha1", found[0].Key)

	viaID := keyedDataset(t, s, jh, "id-1", "", "")
	keyedDataset(t, s, jh, "l", "https://l", "")
	found, err = s.DatasetDuplicateFind(ctx, findParams(d))
	require.NoError(t, err)
	require.Len(t, found, 1)
	require.Equal(t, viaID.ID, found[0].DatasetID, "the higher source first, then identifier before landingPage")
	require.Equal(t, store.MatchIdentifier, found[0].Match)

	held, err := s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: viaID.ID, JobID: jh.ID})
	require.NoError(t, err)
	require.Len(t, held, 1, "only the lower-ranked dataset is held")
	require.Equal(t, d.ID, held[0].DatasetID)
	found, err = s.DatasetDuplicateFind(ctx, findParams(viaID))
	require.NoError(t, err)
	require.Len(t, found, 1)
	require.Equal(t, d.ID, found[0].DatasetID)
	require.False(t, found[0].Live)
}

// testCrossSourceDuplicatePossible: DatasetDuplicatePossible names the datasets sharing a key with
// another source's dataset, the held ones and the ones others are held against, never a dataset
// alone with its keys or one sharing keys only within its own source; every dataset that
// DatasetDuplicateFind has a candidate for is among them; unknown ids are left out.
func testCrossSourceDuplicatePossible(t *testing.T, s store.Store) {
	ctx := t.Context()
	low, high := sourceParams("Low"), sourceParams("High")
	low.Precedence, high.Precedence = -1, 5
	jl, jh := newJob(t, s, insertSource(t, s, low).ID), newJob(t, s, insertSource(t, s, high).ID)
	mine := newJob(t, s, newSource(t, s).ID)
	alone := keyedDataset(t, s, mine, "alone", "https://alone", "sha-alone")
	own1 := keyedDataset(t, s, mine, "own-1", "https://own", "sha-own") // same keys, same source
	own2 := keyedDataset(t, s, mine, "own-2", "https://own", "sha-own")
	blank := keyedDataset(t, s, mine, "blank", "", "")
	blankL := keyedDataset(t, s, jl, "blank-l", "", "")
	byID := keyedDataset(t, s, mine, "shared-id", "", "")
	byIDL := keyedDataset(t, s, jl, "shared-id", "", "")
	byLanding := keyedDataset(t, s, mine, "l-1", "https://shared", "")
	byLandingL := keyedDataset(t, s, jl, "l-2", "https://shared", "")
	bySHA := keyedDataset(t, s, mine, "s-1", "", "sha-shared")
	bySHAH := keyedDataset(t, s, jh, "s-2", "", "sha-shared")
	all := []*store.Dataset{alone, own1, own2, blank, blankL, byID, byIDL, byLanding, byLandingL, bySHA, bySHAH}
	ids := []string{"not-a-uuid", "00000000-0000-0000-0000-000000000000"}
	for _, d := range all {
		ids = append(ids, d.ID)
	}

	got, err := s.DatasetDuplicatePossible(ctx, ids)
	require.NoError(t, err)
	want := map[string]bool{byID.ID: true, byIDL.ID: true, byLanding.ID: true, byLandingL.ID: true,
		bySHA.ID: true, bySHAH.ID: true}
	require.Equal(t, want, got)
	for _, d := range all {
		found, err := s.DatasetDuplicateFind(ctx, findParams(d))
		require.NoError(t, err)
		require.True(t, len(found) == 0 || got[d.ID], "Find has a candidate for %s: Possible must name it", d.Identifier)
	}

	held, err := s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: bySHAH.ID, JobID: jh.ID})
	require.NoError(t, err)
	require.Len(t, held, 1)
	got, err = s.DatasetDuplicatePossible(ctx, []string{bySHA.ID, bySHAH.ID, alone.ID})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{bySHA.ID: true, bySHAH.ID: true}, got, "a held dataset and the one kept")

	got, err = s.DatasetDuplicatePossible(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, got)
}
