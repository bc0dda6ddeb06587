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
