package storetest

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// testJobIdentifierAddBatch: one call records every identifier of a large batch, skipping those
// already recorded and those repeated within the batch, and keeps them byte for byte.
func testJobIdentifierAddBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	odd := []string{`a,{b}`, `NULL`, `ü ☃`, ` spaced `}
	stored := append([]string{"a", "b", "c", "n-0000", "n-1199"}, odd...)
	for _, identifier := range stored {
		newDataset(t, s, first, identifier)
	}
	finishJob(t, s, first.ID)

	job := newJob(t, s, src.ID)
	require.NoError(t, s.JobIdentifierAdd(ctx, &store.JobIdentifierAddParams{JobID: job.ID, Identifier: "a"}))
	batch := []string{"a", "b", "b"} // "a" is recorded already; "b" comes twice
	for i := range 1200 {
		batch = append(batch, fmt.Sprintf("n-%04d", i))
	}
	batch = append(batch, odd...)
	require.NoError(t, s.JobIdentifierAddBatch(ctx, &store.JobIdentifierAddBatchParams{JobID: job.ID, Identifiers: batch}))
	require.Equal(t, []string{"c"}, unseen(t, s, src.ID, job.ID))

	require.NoError(t, s.JobIdentifierAddBatch(ctx, &store.JobIdentifierAddBatchParams{JobID: job.ID, Identifiers: batch}),
		"adding the same batch again is idempotent")
	require.NoError(t, s.JobIdentifierAddBatch(ctx, &store.JobIdentifierAddBatchParams{JobID: job.ID}))
	require.Equal(t, []string{"c"}, unseen(t, s, src.ID, job.ID))
}

// testJobIdentifierAddBatchUnknownJob: identifiers of a job that does not exist are refused
// with ErrNotFound, none of them recorded.
func testJobIdentifierAddBatchUnknownJob(t *testing.T, s store.Store) {
	err := s.JobIdentifierAddBatch(t.Context(), &store.JobIdentifierAddBatchParams{JobID: uuid.NewString(),
		Identifiers: []string{"a", "b"}})
	require.ErrorIs(t, err, store.ErrNotFound)
}

// testJobIdentifierClaimBatch: a listing's claims report each identifier it had claimed before,
// or that one call repeats, with its first position (a DuplicateIdentifier's), and record every
// identifier as JobIdentifierAddBatch does (delete detection reads them); another listing of the
// same job (a redelivered job listed again) claims its identifiers anew, at their new positions,
// and finds no repeat in what the first listing stored; a large batch is one call.
func testJobIdentifierClaimBatch(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	first := newJob(t, s, src.ID)
	for _, identifier := range []string{"a", "b", "gone"} {
		newDataset(t, s, first, identifier)
	}
	finishJob(t, s, first.ID)

	job := newJob(t, s, src.ID)
	claim := func(listing int64, ids []string, positions []int) map[string]int {
		t.Helper()
		repeats, err := s.JobIdentifierClaimBatch(ctx, &store.JobIdentifierClaimBatchParams{JobID: job.ID,
			Listing: listing, Identifiers: ids, Positions: positions})
		require.NoError(t, err)
		return repeats
	}
	odd := `ü ☃,{"x"}`
	require.Empty(t, claim(7, []string{"a", odd}, []int{0, 1}))
	require.Equal(t, map[string]int{"a": 0, "b": 2, odd: 1},
		claim(7, []string{"b", "c", "a", "b", odd}, []int{2, 3, 4, 5, 6}),
		"a and the odd one were claimed by the call before, b twice in this one: each with its first position")
	require.Equal(t, map[string]int{"a": 0, "b": 2}, claim(7, []string{"a", "b"}, []int{8, 9}),
		"a repeat does not move the first position")
	require.Equal(t, map[string]int{"c": 3}, claim(7, []string{"c"}, []int{3}),
		"an identifier claimed again at its own position is reported with it (the caller sees no duplicate)")
	require.Equal(t, []string{"gone"}, unseen(t, s, src.ID, job.ID), "claimed identifiers are the listing's")

	// The job listed again: the listing's order changed, and nothing is a repeat of the first
	// listing's claims; a repeat within the new listing has its new first position.
	require.Empty(t, claim(8, []string{"c", "b", "a"}, []int{0, 1, 2}))
	require.Equal(t, map[string]int{"a": 2}, claim(8, []string{"a", "d"}, []int{5, 6}))

	many, positions := make([]string, 1500), make([]int, 1500)
	for i := range many {
		many[i], positions[i] = fmt.Sprintf("n-%04d", i), 10+i
	}
	require.Empty(t, claim(8, many, positions))
	repeats := claim(8, many[:3], []int{9000, 9001, 9002})
	require.Equal(t, map[string]int{"n-0000": 10, "n-0001": 11, "n-0002": 12}, repeats)
	require.Equal(t, repeats, claim(8, many[:3], []int{9003, 9004, 9005}))

	require.Empty(t, claim(8, nil, nil), "an empty call does nothing")
	_, err := s.JobIdentifierClaimBatch(ctx, &store.JobIdentifierClaimBatchParams{JobID: job.ID, Listing: 8,
		Identifiers: []string{"x"}})
	require.Error(t, err, "a position is wanted for each identifier")
	_, err = s.JobIdentifierClaimBatch(ctx, &store.JobIdentifierClaimBatchParams{JobID: uuid.NewString(), Listing: 1,
		Identifiers: []string{"a"}, Positions: []int{0}})
	require.ErrorIs(t, err, store.ErrNotFound)
	require.Equal(t, []string{"gone"}, unseen(t, s, src.ID, job.ID))
}
