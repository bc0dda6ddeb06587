package groupcommit_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/groupcommit"
)

// TestGroupsWaitingItems: items submitted while a commit is in flight go together in the next.
func TestGroupsWaitingItems(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	b := groupcommit.New(groupcommit.Config{MaxBatch: 100}, // no linger: what queued during a commit goes in the next
		func(_ context.Context, items []int) ([]string, []error, error) {
			mu.Lock()
			sizes = append(sizes, len(items))
			first := len(sizes) == 1
			mu.Unlock()
			if first {
				<-release
			}
			out := make([]string, len(items))
			for i, n := range items {
				out[i] = fmt.Sprint(n * 2)
			}
			return out, nil, nil
		})
	defer b.Close()
	ctx := t.Context()
	firstDone := make(chan string)
	go func() { r, _ := b.Do(ctx, 1); firstDone <- r }()
	for { // wait for the first commit to be in flight
		mu.Lock()
		n := len(sizes)
		mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	results := make([]string, 50)
	errs := make([]error, 50)
	for i := range 50 {
		wg.Go(func() { results[i], errs[i] = b.Do(ctx, i+10) })
	}
	for b.Queued() < 50 { // all queued behind the blocked commit
		time.Sleep(time.Millisecond)
	}
	close(release)
	if got := <-firstDone; got != "2" {
		t.Errorf("first item: got %q, want 2", got)
	}
	wg.Wait()
	for i := range 50 {
		if errs[i] != nil || results[i] != fmt.Sprint((i+10)*2) {
			t.Errorf("item %d: got %q, %v", i+10, results[i], errs[i])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(sizes) != 2 || sizes[1] != 50 {
		t.Errorf("batch sizes %v, want [1 50]", sizes)
	}
}

// TestErrors: per-item errors reach their own callers; a batch error reaches all; a commit
// returning the wrong number of results, or panicking, fails its batch instead of hanging.
func TestErrors(t *testing.T) {
	errOdd := errors.New("odd")
	cases := []struct {
		name string
		fn   groupcommit.Func[int, int]
		want func(n int) (int, error)
	}{
		{"per item", func(_ context.Context, items []int) ([]int, []error, error) {
			errs := make([]error, len(items))
			for i, n := range items {
				if n%2 == 1 {
					errs[i] = errOdd
				}
			}
			return items, errs, nil
		}, func(n int) (int, error) {
			if n%2 == 1 {
				return n, errOdd
			}
			return n, nil
		}},
		{"batch", func(_ context.Context, items []int) ([]int, []error, error) {
			return nil, nil, errOdd
		}, func(int) (int, error) { return 0, errOdd }},
		{"short", func(_ context.Context, items []int) ([]int, []error, error) {
			return items[1:], nil, nil
		}, func(int) (int, error) { return 0, errors.New("groupcommit: commit returned") }},
		{"panic", func(_ context.Context, items []int) ([]int, []error, error) {
			panic("boom")
		}, func(int) (int, error) { return 0, errors.New("groupcommit: commit panicked: boom") }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := groupcommit.New(groupcommit.Config{Linger: 5 * time.Millisecond}, c.fn)
			defer b.Close()
			var wg sync.WaitGroup
			for n := range 6 {
				wg.Go(func() {
					got, err := b.Do(t.Context(), n)
					want, wantErr := c.want(n)
					switch {
					case wantErr == nil && err != nil, wantErr != nil && err == nil:
						t.Errorf("item %d: error %v, want %v", n, err, wantErr)
					case wantErr != nil && !errors.Is(err, wantErr) && !startsWith(err.Error(), wantErr.Error()):
						t.Errorf("item %d: error %v, want %v", n, err, wantErr)
					case wantErr == nil && got != want:
						t.Errorf("item %d: got %d, want %d", n, got, want)
					}
				})
			}
			wg.Wait()
		})
	}
}

func startsWith(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// TestCancelAndClose: a caller whose context ends stops waiting; a closed Batcher refuses items
// and fails those still waiting.
func TestCancelAndClose(t *testing.T) {
	release := make(chan struct{})
	b := groupcommit.New(groupcommit.Config{}, func(ctx context.Context, items []int) ([]int, []error, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return items, nil, nil
	})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.Do(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled caller: got %v, want deadline exceeded", err)
	}
	waiting := make(chan error)
	go func() { _, err := b.Do(t.Context(), 2); waiting <- err }()
	for b.Queued() == 0 {
		time.Sleep(time.Millisecond)
	}
	b.Close()
	if err := <-waiting; !errors.Is(err, groupcommit.ErrClosed) {
		t.Errorf("item waiting at Close: got %v, want ErrClosed", err)
	}
	if _, err := b.Do(t.Context(), 3); !errors.Is(err, groupcommit.ErrClosed) {
		t.Errorf("item after Close: got %v, want ErrClosed", err)
	}
	close(release)
}
