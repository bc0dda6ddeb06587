package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// testDatasetPage: DatasetPage pages the live catalog by id with every filter, leaves held
// datasets out, joins the source, organization and first publication, and counts what it
// selects; an id of the wrong shape selects nothing.
func testDatasetPage(t *testing.T, s store.Store) {
	ctx := t.Context()
	org := newOrganization(t, s, "Department of Paging")
	p := sourceParams("Paged source")
	p.OrganizationID = org.ID
	a := insertSource(t, s, p)
	b := newSource(t, s)
	ja, jb := newJob(t, s, a.ID), newJob(t, s, b.ID)
	var ids []string
	for _, ident := range []string{"a1", "a2", "a3"} {
		ids = append(ids, newDataset(t, s, ja, ident).ID)
	}
	bd := newDataset(t, s, jb, "b1")
	held := newDataset(t, s, jb, "b2")
	ok, err := s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: ids[0], HeldID: held.ID, Match: store.MatchIdentifier,
		Key: "b2", JobID: jb.ID})
	require.NoError(t, err)
	require.True(t, ok)

	// The whole catalog, two at a time, by keyset.
	var got []string
	after := ""
	for range 10 {
		page, err := s.DatasetPage(ctx, &store.DatasetPageParams{After: after, Limit: 2})
		require.NoError(t, err)
		if len(page) == 0 {
			break
		}
		require.LessOrEqual(t, len(page), 2)
		for _, d := range page {
			got = append(got, d.ID)
		}
		after = page[len(page)-1].ID
	}
	all, err := s.DatasetPage(ctx, &store.DatasetPageParams{})
	require.NoError(t, err)
	require.Len(t, all, 4, "held b2 is left out")
	require.NotContains(t, got, held.ID)
	require.Len(t, got, 4)
	for i := 1; i < len(got); i++ {
		require.Less(t, got[i-1], got[i], "id order")
	}
	st, err := s.DatasetPageStats(ctx, &store.DatasetPageParams{After: got[2], Limit: 1})
	require.NoError(t, err)
	require.Equal(t, 4, st.Count, "the count ignores After and Limit")
	require.False(t, st.LastModified.Before(bd.LastHarvestedDate.Truncate(time.Second)))

	// By organization: the source's fields, the organization's and the first publication.
	page, err := s.DatasetPage(ctx, &store.DatasetPageParams{OrganizationID: org.ID})
	require.NoError(t, err)
	require.Len(t, page, 3)
	d := page[0]
	require.Equal(t, org.ID, d.OrganizationID)
	require.Equal(t, "Department of Paging", d.OrganizationName)
	require.Equal(t, org.Slug, d.OrganizationSlug)
	require.Equal(t, "Paged source", d.SourceName)
	require.Equal(t, a.URL, d.SourceURL)
	require.Equal(t, string(a.SourceType), d.SourceType)
	require.False(t, d.FirstHarvested.IsZero(), "DatasetUpsert records the first publication")
	require.NotEmpty(t, d.DCAT)

	// By source, and by time.
	page, err = s.DatasetPage(ctx, &store.DatasetPageParams{SourceID: b.ID})
	require.NoError(t, err)
	require.Len(t, page, 1)
	require.Equal(t, bd.ID, page[0].ID)
	require.Empty(t, page[0].OrganizationID)
	page, err = s.DatasetPage(ctx, &store.DatasetPageParams{ModifiedSince: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.Empty(t, page)
	st, err = s.DatasetPageStats(ctx, &store.DatasetPageParams{ModifiedSince: bd.LastHarvestedDate.Add(-time.Minute)})
	require.NoError(t, err)
	require.Equal(t, 4, st.Count)

	// Ids of the wrong shape select nothing, on both backends.
	for _, p := range []*store.DatasetPageParams{{OrganizationID: "nope"}, {SourceID: "x'; --"}, {After: "zzz"}} {
		page, err := s.DatasetPage(ctx, p)
		require.NoError(t, err)
		require.Empty(t, page)
		if p.After == "" { // the count ignores After
			st, err := s.DatasetPageStats(ctx, p)
			require.NoError(t, err)
			require.Zero(t, st.Count)
			require.True(t, st.LastModified.IsZero())
		}
	}
}

// testDatasetFind: DatasetFind names a dataset by id or slug, live or held.
func testDatasetFind(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	kept := newDataset(t, s, job, "k")
	other := newSource(t, s)
	held := newDataset(t, s, newJob(t, s, other.ID), "k")
	ok, err := s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: kept.ID, HeldID: held.ID, Match: store.MatchIdentifier,
		Key: "k", JobID: job.ID})
	require.NoError(t, err)
	require.True(t, ok)

	byID, err := s.DatasetFind(ctx, &store.DatasetFindParams{ID: kept.ID})
	require.NoError(t, err)
	require.Equal(t, kept.Slug, byID.Slug)
	require.Empty(t, byID.DuplicateOf)
	bySlug, err := s.DatasetFind(ctx, &store.DatasetFindParams{Slug: held.Slug})
	require.NoError(t, err)
	require.Equal(t, held.ID, bySlug.ID)
	require.Equal(t, kept.ID, bySlug.DuplicateOf, "a held dataset is found, marked")

	for _, p := range []*store.DatasetFindParams{{}, {ID: "not-a-uuid"}, {Slug: "no-such-slug"}, {ID: kept.ID, Slug: kept.Slug},
		{ID: "00000000-0000-0000-0000-000000000000"}} {
		_, err := s.DatasetFind(ctx, p)
		require.ErrorIs(t, err, store.ErrNotFound, "%+v", p)
	}
}

// testOrganizationFindBySlug: an organization is found by its slug, exactly (not by its name or
// another case); an unknown slug is ErrNotFound.
func testOrganizationFindBySlug(t *testing.T, s store.Store) {
	ctx := t.Context()
	org := newOrganization(t, s, "Department of Slugs")
	newOrganization(t, s, "Department of Snails")
	got, err := s.OrganizationFindBySlug(ctx, org.Slug)
	require.NoError(t, err)
	require.Equal(t, org.ID, got.ID)
	require.Equal(t, org.Name, got.Name)
	for _, slug := range []string{"no-such-slug", org.Name, strings.ToUpper(org.Slug), ""} {
		_, err := s.OrganizationFindBySlug(ctx, slug)
		require.ErrorIs(t, err, store.ErrNotFound, "slug %q", slug)
	}
}

// testDatasetIDsInCreationOrder: a new dataset's id is a version 7 UUID, so ids sort in the
// order the datasets were made, by DatasetUpsert and by DatasetUpsertBatch alike (the keyset
// walk of the feeds then reads the table in about the order it was written); an update keeps
// the id.
func testDatasetIDsInCreationOrder(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	var ids []string
	for i := range 3 {
		ids = append(ids, newDataset(t, s, job, fmt.Sprintf("one-%d", i)).ID)
		time.Sleep(2 * time.Millisecond) // version 7 orders by the millisecond
	}
	var batch []*store.DatasetUpsertParams
	for i := range 3 {
		ident := fmt.Sprintf("batch-%d", i)
		rec := newRecord(t, s, job, ident)
		batch = append(batch, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: ident, Slug: ident,
			DCAT: dcat(ident), RecordID: rec.ID})
	}
	made, err := s.DatasetUpsertBatch(ctx, batch)
	require.NoError(t, err)
	batchIDs := make([]string, 0, len(made))
	for _, d := range made {
		batchIDs = append(batchIDs, d.ID)
	}
	// One batch's ids share a millisecond or follow it: each is after every earlier dataset's.
	slices.Sort(batchIDs)
	ids = append(ids, batchIDs...)
	for i, id := range ids {
		u, err := uuid.Parse(id)
		require.NoError(t, err)
		require.Equal(t, uuid.Version(7), u.Version(), "dataset %d's id %s", i, id)
		if i > 0 {
			require.Less(t, ids[i-1], id, "ids in creation order")
		}
	}
	rec := newRecord(t, s, job, "one-0 again")
	again, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: "one-0",
		Slug: "one-0-again", DCAT: dcat("one-0"), RecordID: rec.ID})
	require.NoError(t, err)
	require.Equal(t, ids[0], again.ID, "an update keeps the id")
}
