package router_test

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
)

// counts records what a member's count callback was called with.
type counts struct {
	mu   sync.Mutex
	seen []int
}

func (c *counts) add(n int) { c.mu.Lock(); c.seen = append(c.seen, n); c.mu.Unlock() }

func (c *counts) last() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[len(c.seen)-1]
}

// TestJoin: a member counts itself before Join returns; a second member is counted by both;
// one that leaves is no longer counted; one that stops putting its key without leaving (a
// crash, here a key put once by hand) is dropped after three of its heartbeats. Another
// group and another deployment (prefix) are not counted.
func TestJoin(t *testing.T) {
	t.Parallel()
	url := natstest.URL(t)
	bus := connect(t, url)
	// A heartbeat long enough that a member stalled on a loaded machine is not dropped by the
	// others (three beats missed) while the test looks at the counts.
	const beat = 250 * time.Millisecond
	var a, b counts
	leaveA, err := bus.Join(t.Context(), "check", beat, a.add)
	require.NoError(t, err)
	defer leaveA()
	require.Equal(t, []int{1}, a.seen, "counted itself before Join returned")

	other := connect(t, url, router.WithPrefix("staging"))
	leaveOther, err := other.Join(t.Context(), "check", beat, func(int) {})
	require.NoError(t, err)
	defer leaveOther()
	leaveSync, err := bus.Join(t.Context(), "sync", beat, func(int) {})
	require.NoError(t, err)
	defer leaveSync()

	leaveB, err := connect(t, url).Join(t.Context(), "check", beat, b.add)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return b.last() == 2 }, time.Minute, 5*time.Millisecond, "b counts a")
	require.Eventually(t, func() bool { return a.last() == 2 }, time.Minute, 5*time.Millisecond, "a counts b")
	leaveB()
	require.Eventually(t, func() bool { return a.last() == 1 }, time.Minute, 5*time.Millisecond, "b left")

	kv, err := jsOf(t, bus).KeyValue(context.Background(), router.MembersBucket)
	require.NoError(t, err)
	crashed, err := json.Marshal(map[string]any{"heartbeat": beat})
	require.NoError(t, err)
	_, err = kv.Put(context.Background(), "check.crashed", crashed)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return a.last() == 2 }, time.Minute, 5*time.Millisecond, "a counts the crashed one")
	require.Eventually(t, func() bool { return a.last() == 1 }, time.Minute, 5*time.Millisecond, "then drops it")
	a.mu.Lock()
	defer a.mu.Unlock()
	require.Equal(t, 2, slices.Max(a.seen), "no other group or deployment counted: %v", a.seen)
}
