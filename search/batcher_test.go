package search_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/bleve"
)

// flaky wraps a real index: it fails the first failRequests bulk requests as a whole, answers
// the op with id "reject" with a permanent error, and records the size of every request.
type flaky struct {
	search.Index
	failRequests atomic.Int32
	mu           sync.Mutex
	sizes        []int
}

func (f *flaky) Apply(ctx context.Context, ops []search.Op) ([]error, error) {
	f.mu.Lock()
	f.sizes = append(f.sizes, len(ops))
	f.mu.Unlock()
	if f.failRequests.Add(-1) >= 0 {
		return nil, errors.New("connection refused")
	}
	var keep []search.Op
	for _, op := range ops {
		if op.ID != "reject" {
			keep = append(keep, op)
		}
	}
	errs, err := f.Index.Apply(ctx, keep)
	if err != nil {
		return nil, err
	}
	out := make([]error, len(ops))
	k := 0
	for i, op := range ops {
		if op.ID == "reject" {
			out[i] = &search.OpError{ID: op.ID, Status: 400, Reason: "mapper_parsing_exception"}
			continue
		}
		out[i] = errs[k]
		k++
	}
	return out, nil
}

func newFlaky(t *testing.T) *flaky {
	idx, err := bleve.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { idx.Close() })
	return &flaky{Index: idx}
}

// TestBatcherGroupsConcurrentWrites: 200 concurrent writers go out in far fewer bulk requests,
// none over MaxOps, and every document arrives.
func TestBatcherGroupsConcurrentWrites(t *testing.T) {
	f := newFlaky(t)
	b := search.NewBatcher(f, search.BatcherConfig{MaxOps: 50, Linger: 20 * time.Millisecond})
	defer b.Close()
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			require.NoError(t, b.Put(t.Context(), search.Document{ID: fmt.Sprintf("d%03d", i), Title: "Grouped"}))
		})
	}
	wg.Wait()
	res, err := f.Search(t.Context(), search.Query{Text: "grouped"})
	require.NoError(t, err)
	require.Equal(t, 200, res.Total)
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Less(t, len(f.sizes), 200, "writes were grouped: %v", f.sizes)
	for _, n := range f.sizes {
		require.LessOrEqual(t, n, 50)
	}
}

// TestBatcherRetriesThenSucceeds: failed requests are retried, and the write succeeds.
func TestBatcherRetriesThenSucceeds(t *testing.T) {
	f := newFlaky(t)
	f.failRequests.Store(2)
	b := search.NewBatcher(f, search.BatcherConfig{Backoff: time.Millisecond})
	defer b.Close()
	require.NoError(t, b.Put(t.Context(), search.Document{ID: "d1", Title: "Retried"}))
	require.Len(t, f.sizes, 3)
	require.NoError(t, b.Delete(t.Context(), "d1"))
}

// TestBatcherGivesUp: a request that keeps failing is an error after Attempts tries, and a
// permanent op error is returned at once to its own caller only.
func TestBatcherGivesUp(t *testing.T) {
	f := newFlaky(t)
	f.failRequests.Store(100)
	b := search.NewBatcher(f, search.BatcherConfig{Attempts: 3, Backoff: time.Millisecond})
	defer b.Close()
	err := b.Put(t.Context(), search.Document{ID: "d1"})
	require.ErrorContains(t, err, "bulk request failed 3 times: connection refused")

	f.failRequests.Store(0)
	var oe *search.OpError
	require.ErrorAs(t, b.Put(t.Context(), search.Document{ID: "reject"}), &oe)
	require.Equal(t, 400, oe.Status)
	require.NoError(t, b.Put(t.Context(), search.Document{ID: "fine"}))

	b.Close()
	require.ErrorIs(t, b.Put(t.Context(), search.Document{ID: "late"}), search.ErrClosed)
}
