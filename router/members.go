package router

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"
)

// MembersBucket is the key-value bucket (named like RecordBucket per deployment) where the
// processes that run a group of stages say they are alive: a key "<group>.<member id>" each,
// put again every heartbeat. CHECK's processes count themselves there to share the per-host
// limits of link checks (docs/quality.md).
const MembersBucket = "harvest-members"

// membersKeep is how long the bucket keeps a key that is not put again: a bound on what a
// process that died leaves behind. Members are dropped sooner, after missedHeartbeats.
const membersKeep = 10 * time.Minute

// missedHeartbeats is how many heartbeats a member may miss before the others stop counting
// it (a process that died without leaving).
const missedHeartbeats = 3

// DefaultHeartbeat is how often a member of a group says it is alive when Join is given 0.
const DefaultHeartbeat = 5 * time.Second

// member is a member key's value.
type member struct {
	Heartbeat time.Duration `json:"heartbeat"` // how often it puts its key; nanoseconds
	Host      string        `json:"host"`      // the host name and process id, for operators
	PID       int           `json:"pid"`
}

// Join makes this process a member of group (e.g. "check") until leave is called or ctx ends:
// it puts its key in MembersBucket every heartbeat (0: DefaultHeartbeat) and calls count with
// the number of live members of group, itself included: once before Join returns (so a stage
// started after Join shares from its first message), then whenever the number changes. A
// member that joins or leaves is seen at once (a watch of the bucket); one that stops putting
// its key without leaving (a crash) is dropped after missedHeartbeats of its own heartbeats,
// at the next heartbeat of this process. count is called from one goroutine at a time. leave
// deletes the key, so the others count one less at once. Join returns the bucket's errors.
func (b *Bus) Join(ctx context.Context, group string, heartbeat time.Duration, count func(n int)) (leave func(), err error) {
	if heartbeat <= 0 {
		heartbeat = DefaultHeartbeat
	}
	name := b.dep.membersBucket()
	kv, err := b.js.KeyValue(ctx, name)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = b.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: name, TTL: membersKeep,
			Replicas: max(1, b.dep.replicas), Storage: jetstream.MemoryStorage,
			Description: "Harvester processes alive per group of stages (CHECK shares its per-host limits by them)"})
	}
	if err != nil {
		return nil, fmt.Errorf("key-value bucket %s: %w", name, err)
	}
	host, _ := os.Hostname()
	self, err := json.Marshal(member{Heartbeat: heartbeat, Host: host, PID: os.Getpid()})
	if err != nil {
		return nil, err
	}
	key := group + "." + uuid.NewString()
	if _, err := kv.Put(ctx, key, self); err != nil {
		return nil, fmt.Errorf("join %s in %s: %w", group, name, err)
	}
	wctx, stop := context.WithCancel(ctx)
	w, err := kv.Watch(wctx, group+".*")
	if err != nil {
		stop()
		return nil, fmt.Errorf("watch %s in %s: %w", group, name, err)
	}
	g := &groupView{seen: map[string]seenMember{}, count: count, now: time.Now}
	for e := range w.Updates() { // the current keys, then nil
		if e == nil {
			break
		}
		g.apply(e)
	}
	g.report()
	var wg sync.WaitGroup
	wg.Go(func() { g.run(wctx, w, kv, key, self, heartbeat) })
	return func() {
		stop()
		wg.Wait()
		_ = w.Stop()
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = kv.Delete(dctx, key)
	}, nil
}

// groupView is a member's view of its group: the members it saw and when, and the count it last
// reported.
type groupView struct {
	seen     map[string]seenMember
	count    func(int)
	reported int
	now      func() time.Time
}

type seenMember struct {
	at        time.Time     // when its key was last seen put (here)
	heartbeat time.Duration // its own
}

// apply folds a watched entry into the view: a put is a member seen now, a delete or purge one
// that left.
func (g *groupView) apply(e jetstream.KeyValueEntry) {
	if e.Operation() != jetstream.KeyValuePut {
		delete(g.seen, e.Key())
		return
	}
	var m member
	if err := json.Unmarshal(e.Value(), &m); err != nil || m.Heartbeat <= 0 {
		m.Heartbeat = DefaultHeartbeat
	}
	g.seen[e.Key()] = seenMember{at: g.now(), heartbeat: m.Heartbeat}
}

// report drops the members that missed missedHeartbeats of their heartbeats and calls count
// when the number of the others changed (at least 1: this process).
func (g *groupView) report() {
	now := g.now()
	for k, m := range g.seen {
		if now.Sub(m.at) > missedHeartbeats*m.heartbeat {
			delete(g.seen, k)
		}
	}
	if n := max(1, len(g.seen)); n != g.reported {
		g.reported = n
		g.count(n)
	}
}

// run puts key every heartbeat and reports each change of the group until ctx ends.
func (g *groupView) run(ctx context.Context, w jetstream.KeyWatcher, kv jetstream.KeyValue, key string, self []byte,
	heartbeat time.Duration) {
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-w.Updates():
			if !ok {
				return
			}
			if e != nil {
				g.apply(e)
				g.report()
			}
		case <-tick.C:
			// A failed put is tried again next heartbeat; the others keep counting this
			// process until it missed missedHeartbeats.
			_, _ = kv.Put(ctx, key, self)
			if !g.drain(w) {
				return
			}
			g.report()
		}
	}
}

// drain applies the entries the watch has delivered already, so that a process slow to read
// them (a loaded machine) does not drop members whose puts are only waiting to be read. It
// returns false when the watch has ended.
func (g *groupView) drain(w jetstream.KeyWatcher) bool {
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return false
			}
			if e != nil {
				g.apply(e)
			}
		default:
			return true
		}
	}
}
