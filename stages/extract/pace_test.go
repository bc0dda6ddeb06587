package extract_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

// pacedRun lists a catalog of n records on SQLite while a stand-in for the rest of the
// pipeline settles each record it receives in the store, one at a time, when settle lets it.
// It returns the most records that were ever in flight (published to COMPARE, not settled in
// the store) and how many records were published.
func pacedRun(t *testing.T, n int, settle func() bool, opts ...extract.Option) (maxInFlight, published int, err error) {
	t.Helper()
	maxInFlight, _, published, err = pacedRunWith(t, pacedSetup{}, n, settle, opts...)
	return maxInFlight, published, err
}

// pacedSetup is what pacedRunWith does beyond pacedRun.
type pacedSetup struct {
	// behind starts another job (in progress, nothing settled) before the listing.
	behind bool
	// lateFrom: maxLate counts the records published after this many.
	lateFrom int
}

// pacedRunWith is pacedRun with setup; maxLate is the most records in flight when one of the
// records after setup.lateFrom was published.
func pacedRunWith(t *testing.T, setup pacedSetup, n int, settle func() bool, opts ...extract.Option) (
	maxInFlight, maxLate, published int, err error) {
	t.Helper()
	ctx := context.Background()
	st := openSQLite(t)
	src, job, path := pacedJob(t, st, setup, n)

	pubsub := gochannel.NewGoChannel(gochannel.Config{BlockPublishUntilSubscriberAck: true}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pubsub.Close() })
	var mu sync.Mutex
	queue := make(chan string, n)
	ackAll(t, pubsub, harvest.SubjectSettled, harvest.SubjectListing)
	// A harvest job's records go past COMPARE (the claimed listing decides them), others to it.
	for _, subject := range []string{harvest.SubjectCompare, harvest.SubjectValidate} {
		records, err := pubsub.Subscribe(ctx, subject)
		require.NoError(t, err)
		go func() {
			for m := range records {
				var rec harvest.Record
				if harvest.Decode(wmbridge.ToHarvest(m), &rec) == nil {
					j, err := st.JobGet(ctx, job.ID)
					if err != nil {
						t.Errorf("job: %v", err)
					}
					mu.Lock()
					published++
					maxInFlight = max(maxInFlight, published-j.Settled)
					if published > setup.lateFrom {
						maxLate = max(maxLate, published-j.Settled)
					}
					mu.Unlock()
					queue <- rec.Identifier
				}
				m.Ack()
			}
		}()
	}
	stop := make(chan struct{})
	settler := settleInOrder(t, st, job.ID, queue, settle, stop)
	m, err := harvest.NewMessage(harvest.SubjectExtract, &harvest.Job{V: harvest.Version, JobID: job.ID,
		SourceID: src.ID, JobType: harvest.JobHarvest, SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal, URL: path})
	require.NoError(t, err)
	m.SetContext(ctx)
	pub := wmbridge.Publisher{Publisher: pubsub}
	err = asRunner(ctx, st, pub, newHandler(st, pub, fetch.Config{}, opts...).Handle(m))
	close(stop)
	<-settler
	mu.Lock()
	defer mu.Unlock()
	return maxInFlight, maxLate, published, err
}

// pacedJob writes a catalog of n records, and creates its source and a harvest job of it
// (and, with setup.behind, another source's job in progress). path is the catalog's file.
func pacedJob(t *testing.T, st store.Store, setup pacedSetup, n int) (src *store.Source, job *store.HarvestJob, path string) {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	b.WriteString(`{"dataset":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"identifier":"id-%03d","title":"t %d"}`, i, i)
	}
	b.WriteString(`]}`)
	path = filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: path, SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err = st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	if setup.behind {
		other, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "small", URL: path + "?small",
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		_, err = st.JobInsert(ctx, &store.JobInsertParams{SourceID: other.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
	}
	return src, job, path
}

// ackAll acks every message published to the subjects.
func ackAll(t *testing.T, pubsub *gochannel.GoChannel, subjects ...string) {
	t.Helper()
	for _, subject := range subjects {
		ch, err := pubsub.Subscribe(context.Background(), subject)
		require.NoError(t, err)
		go func() {
			for m := range ch {
				m.Ack()
			}
		}()
	}
}

// settleInOrder stands in for the rest of the pipeline: it settles each record identifier of
// queue unchanged in the store, in order, when settle lets it, until stop is closed; the
// channel it returns is closed when it has stopped.
func settleInOrder(t *testing.T, st store.Store, jobID string, queue <-chan string, settle func() bool, stop <-chan struct{}) <-chan struct{} {
	ctx := context.Background()
	settler := make(chan struct{})
	go func() {
		defer close(settler)
		for {
			select {
			case <-stop:
				return
			case id := <-queue:
				for !settle() {
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
					}
				}
				_, err := st.OutcomeSettleBatch(ctx, []*store.OutcomeSettleParams{{JobID: jobID, Key: id, Identifier: id,
					Outcome: harvest.OutcomeUnchanged}})
				if err != nil {
					t.Errorf("settle %s: %v", id, err)
					return
				}
			}
		}
	}()
	return settler
}

// A job past its first window gives way to a running job that has settled less: its window
// shrinks to JobWindow/extract.GiveWayDivisor (here 16/8 = 2) until that job is done.
func TestListingGivesWayToJobsBehind(t *testing.T) {
	const window = 16
	// A slow pipeline: it settles a record on every fourth try (a try a millisecond), so a
	// listing that is not held runs ahead.
	slow := func() func() bool {
		var mu sync.Mutex
		tries := 0
		return func() bool {
			mu.Lock()
			defer mu.Unlock()
			tries++
			return tries%4 == 0
		}
	}
	_, late, published, err := pacedRunWith(t, pacedSetup{behind: true, lateFrom: window + 4}, 80,
		slow(), extract.WithConfig(extract.Config{JobWindow: window, StallTimeout: time.Hour}))
	require.NoError(t, err)
	require.Equal(t, 80, published)
	require.LessOrEqual(t, late, window/extract.GiveWayDivisor, "records in flight past the first window, a job behind")

	// Alone, the same listing keeps its whole window: the limit above is the giving way.
	_, late, published, err = pacedRunWith(t, pacedSetup{lateFrom: window + 4}, 80,
		slow(), extract.WithConfig(extract.Config{JobWindow: window, StallTimeout: time.Hour}))
	require.NoError(t, err)
	require.Equal(t, 80, published)
	require.Greater(t, late, window/extract.GiveWayDivisor, "records in flight past the first window, alone")
}

// A listing keeps at most JobWindow of its job's records in flight: it waits for the store's
// settled count to catch up, then lists every record.
func TestListingIsPacedByJobWindow(t *testing.T) {
	inFlight, published, err := pacedRun(t, 60, func() bool { return true },
		extract.WithConfig(extract.Config{JobWindow: 10, StallTimeout: time.Hour}))
	require.NoError(t, err)
	require.Equal(t, 60, published)
	require.LessOrEqual(t, inFlight, 10, "records in flight")
}

// Without a window (negative JobWindow) the listing runs ahead of a slow pipeline: the
// window above is what held it.
func TestListingWithoutJobWindowRunsAhead(t *testing.T) {
	var mu sync.Mutex
	released := 0
	inFlight, published, err := pacedRun(t, 60, func() bool {
		mu.Lock()
		defer mu.Unlock()
		released++
		return released > 1 // holds the first record until the listing is done
	}, extract.WithConfig(extract.Config{JobWindow: -1}))
	require.NoError(t, err)
	require.Equal(t, 60, published)
	require.Greater(t, inFlight, 10, "records in flight")
}

// A job that settles nothing is listed on after StallTimeout: pacing never stops a listing.
func TestListingGoesOnUnpacedWhenItsJobStalls(t *testing.T) {
	inFlight, published, err := pacedRun(t, 60, func() bool { return false },
		extract.WithConfig(extract.Config{JobWindow: 10, StallTimeout: 20 * time.Millisecond}))
	require.NoError(t, err)
	require.Equal(t, 60, published)
	require.Equal(t, 60, inFlight, "nothing settled: every record in flight")
}
