package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testCrossSourceDuplicateShared: a landingPage or downloadURL set matches across sources only
// when no other dataset, live or held, of either source has it (an identifier always matches);
// DatasetDuplicateKeep holds nothing by a shared key; DatasetDuplicateUnpair ends a pair whose
// key another dataset of either source has since, of the named source only, once, and
// DatasetDuplicateRelease then returns its held dataset.
func testCrossSourceDuplicateShared(t *testing.T, s store.Store) {
	ctx := t.Context()
	low, high := sourceParams("Low"), sourceParams("High")
	low.Precedence, high.Precedence = -1, 5
	jl, jh := newJob(t, s, insertSource(t, s, low).ID), newJob(t, s, insertSource(t, s, high).ID)
	home := keyedDataset(t, s, jh, "home", "https://agency.gov/", "")
	keyedDataset(t, s, jl, "m1", "https://agency.gov/", "")
	m2 := keyedDataset(t, s, jl, "m2", "https://agency.gov/", "sha-m2")
	found, err := s.DatasetDuplicateFind(ctx, findParams(m2))
	require.NoError(t, err)
	require.Empty(t, found, "a landingPage two datasets of one source share is no key")
	found, err = s.DatasetDuplicateFind(ctx, findParams(home))
	require.NoError(t, err)
	require.Empty(t, found, "nor seen from the other source")
	held, err := s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: home.ID, JobID: jh.ID})
	require.NoError(t, err)
	require.Empty(t, held)

	// Unique in both: a pair, by landingPage and by downloadURL set; an identifier always.
	one := keyedDataset(t, s, jh, "one", "https://agency.gov/one", "sha-m2")
	m3 := keyedDataset(t, s, jl, "m3", "https://agency.gov/one", "")
	keyedDataset(t, s, jl, "home", "https://agency.gov/", "")
	held, err = s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: one.ID, JobID: jh.ID})
	require.NoError(t, err)
	require.Len(t, held, 2, "m3 by landingPage, m2 by downloadURL set")
	held, err = s.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: home.ID, JobID: jh.ID})
	require.NoError(t, err)
	require.Len(t, held, 1, "by identifier, whatever the landingPage")
	require.Equal(t, store.MatchIdentifier, held[0].Match)

	ended, err := s.DatasetDuplicateUnpair(ctx, &store.DatasetDuplicateUnpairParams{SourceID: jl.SourceID, Limit: 10})
	require.NoError(t, err)
	require.Empty(t, ended, "every key still unique")
	// The low source gets a second dataset with m3's landingPage; the high one with m2's URLs.
	keyedDataset(t, s, jl, "m4", "https://agency.gov/one", "")
	keyedDataset(t, s, jh, "two", "", "sha-m2")
	ended, err = s.DatasetDuplicateUnpair(ctx, &store.DatasetDuplicateUnpairParams{SourceID: newSource(t, s).ID, Limit: 10})
	require.NoError(t, err)
	require.Empty(t, ended, "another source's pairs stay")
	ended, err = s.DatasetDuplicateUnpair(ctx, &store.DatasetDuplicateUnpairParams{SourceID: jh.SourceID, Limit: 1})
	require.NoError(t, err)
	require.Len(t, ended, 1, "at most the limit")
	more, err := s.DatasetDuplicateUnpair(ctx, &store.DatasetDuplicateUnpairParams{SourceID: jl.SourceID, Limit: 10})
	require.NoError(t, err)
	ended = append(ended, more...)
	require.ElementsMatch(t, []string{m2.ID, m3.ID}, []string{ended[0].DatasetID, ended[1].DatasetID})
	for _, e := range ended {
		require.False(t, e.Live)
		require.Contains(t, []string{store.MatchLandingPage, store.MatchDownloadURL}, e.Match)
	}
	released, err := s.DatasetDuplicateRelease(ctx, 10)
	require.NoError(t, err)
	require.Len(t, released, 2)
	_, total := listPairs(t, s, store.CrossSourceDuplicateListParams{})
	require.Equal(t, 1, total, "the identifier pair stays")

	// A job-level notice leaves the job's status as it is.
	require.NoError(t, s.JobErrorAdd(ctx, &store.JobErrorAddParams{JobID: jh.ID, Type: harvest.TypeCrossSourceDuplicateReleased,
		Message: "2 pairs ended"}))
	errs, err := s.JobErrorList(ctx, jh.ID)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, harvest.TypeCrossSourceDuplicateReleased, errs[0].Type)
	job, err := s.JobGet(ctx, jh.ID)
	require.NoError(t, err)
	require.Equal(t, jh.Status, job.Status)
	require.ErrorIs(t, s.JobErrorAdd(ctx, &store.JobErrorAddParams{JobID: "00000000-0000-4000-8000-000000000000",
		Type: harvest.TypeCrossSourceDuplicateReleased}), store.ErrNotFound)
}
