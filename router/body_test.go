package router_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
)

// TestWriteMessageStreamsALargeBody: Bus.WriteMessage keeps a body of the message size in the
// message; a larger one is stored in RecordBucket as it is written, in writes of 4 KiB (never
// held whole), and named in ClaimHeader, and a subscriber reads it back whole (Reports). A
// write that fails returns its error and leaves no object.
func TestWriteMessageStreamsALargeBody(t *testing.T) {
	bus := connect(t, natstest.URL(t))
	ctx := t.Context()
	small, err := bus.WriteMessage(ctx, harvest.SubjectReport, func(w io.Writer) error {
		_, err := w.Write([]byte(`{"v":1}`))
		return err
	}, harvest.MetaJobID, "j")
	require.NoError(t, err)
	require.Equal(t, `{"v":1}`, string(small.Payload))
	require.Empty(t, small.Metadata.Get(router.ClaimHeader))
	require.Equal(t, "j", small.Metadata.Get(harvest.MetaJobID))

	// A report of 3 MiB (over NATS's 1 MiB max_payload), written 4 KiB at a time.
	var want bytes.Buffer
	want.WriteString(`{"v":1,"jobId":"j","changedResources":[`)
	for i := range 30_000 {
		if i > 0 {
			want.WriteByte(',')
		}
		want.WriteString(`{"fdkId":"00000000-0000-0000-0000-000000000000","uri":"https://example.org/dataset/0000000"}`)
	}
	want.WriteString(`]}`)
	large, err := bus.WriteMessage(ctx, harvest.SubjectReport, func(w io.Writer) error {
		for b := want.Bytes(); len(b) > 0; {
			n := min(len(b), 4<<10)
			if _, err := w.Write(b[:n]); err != nil {
				return err
			}
			b = b[n:]
		}
		return nil
	}, harvest.MetaJobID, "j")
	require.NoError(t, err)
	require.Zero(t, len(large.Payload), "stored by reference")
	name := large.Metadata.Get(router.ClaimHeader)
	require.NotEmpty(t, name)
	obs, err := jsOf(t, bus).ObjectStore(ctx, router.RecordBucket)
	require.NoError(t, err)
	got, err := obs.GetBytes(ctx, name)
	require.NoError(t, err)
	require.Equal(t, want.Len(), len(got))
	require.True(t, bytes.Equal(want.Bytes(), got))

	reports, cancel, err := bus.Reports()
	require.NoError(t, err)
	defer cancel()
	require.NoError(t, bus.Publisher().Publish(harvest.SubjectReport, large))
	var r *harvest.Report
	select {
	case r = <-reports:
	case <-time.After(5 * time.Minute): // a failsafe, not a deadline
		t.Fatal("no report arrived")
	}
	require.Equal(t, "j", r.JobID)
	require.Len(t, r.ChangedResources, 30_000)

	broken := errors.New("the store went away")
	before := objects(ctx, t, obs)
	_, err = bus.WriteMessage(ctx, harvest.SubjectReport, func(w io.Writer) error {
		if _, err := w.Write(bytes.Repeat([]byte("x"), 2<<20)); err != nil {
			return err
		}
		return broken
	})
	require.ErrorIs(t, err, broken)
	require.Equal(t, before, objects(ctx, t, obs), "the partial object purged")
}

// objects counts the objects of obs.
func objects(ctx context.Context, t *testing.T, obs jetstream.ObjectStore) int {
	t.Helper()
	list, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return 0
	}
	require.NoError(t, err)
	return len(list)
}
