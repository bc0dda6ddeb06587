package harvest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// Each answers every message of a batch with its own Result, in order: a message that fails
// fails alone, and the others' outputs stand. The messages of a batch are handled at once.
func TestEachAnswersEveryMessageAlone(t *testing.T) {
	boom := errors.New("boom")
	var inFlight, most atomic.Int32
	release := make(chan struct{})
	h := Each(func(m *Message) ([]*Message, error) {
		n := inFlight.Add(1)
		for {
			old := most.Load()
			if n <= old || most.CompareAndSwap(old, n) {
				break
			}
		}
		if n == 3 {
			close(release)
		}
		<-release
		inFlight.Add(-1)
		if m.UUID == "b" {
			return nil, boom
		}
		return []*Message{NewRawMessage("out-"+m.UUID, nil)}, nil
	})
	batch := []*Message{NewRawMessage("a", nil), NewRawMessage("b", nil), NewRawMessage("c", nil)}
	res := h(context.Background(), batch)
	if len(res) != 3 {
		t.Fatalf("%d results for 3 messages", len(res))
	}
	for i, want := range []string{"out-a", "", "out-c"} {
		switch {
		case want == "" && !errors.Is(res[i].Err, boom):
			t.Errorf("result %d: error %v, want boom", i, res[i].Err)
		case want != "" && (res[i].Err != nil || len(res[i].Out) != 1 || res[i].Out[0].UUID != want):
			t.Errorf("result %d: %+v, want one message %s", i, res[i], want)
		}
	}
	if most.Load() != 3 {
		t.Errorf("at most %d messages handled at once, want the batch's 3", most.Load())
	}
}

// A handler that panics on one message of a batch fails that message alone; the goroutines Each
// keeps for the next batch still serve it.
func TestEachTurnsAPanicIntoItsMessagesError(t *testing.T) {
	h := Each(func(m *Message) ([]*Message, error) {
		if m.UUID == "p" {
			panic("boom")
		}
		return []*Message{m}, nil
	})
	for range 2 {
		res := h(context.Background(), []*Message{NewRawMessage("a", nil), NewRawMessage("p", nil), NewRawMessage("c", nil)})
		if res[1].Err == nil || res[0].Err != nil || res[2].Err != nil || len(res[0].Out) != 1 || len(res[2].Out) != 1 {
			t.Fatalf("results %+v: want only the second to fail", res)
		}
	}
}
