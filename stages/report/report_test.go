package report_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/report"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// stores runs fn on SQLite and, when a test server is configured, on Postgres.
func stores(t *testing.T, fn func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "h.db"))
		require.NoError(t, err)
		t.Cleanup(st.Close)
		require.NoError(t, st.Migrate(t.Context()))
		fn(t, st)
	})
	t.Run("postgres", func(t *testing.T) { fn(t, dbtest.Store(t)) })
}

// newHandler returns a REPORT handler over st, registering its metrics in reg, closed when the
// test ends.
func newHandler(t *testing.T, st store.Store, reg prometheus.Registerer) *report.Handler {
	t.Helper()
	h, err := report.New(st, reg, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return h
}

// harvestJob ensures the source p and inserts a harvest job of it.
func harvestJob(t *testing.T, st store.Store, p *store.SourceEnsureParams) (*store.Source, *store.HarvestJob) {
	t.Helper()
	src, err := st.SourceEnsure(t.Context(), p)
	require.NoError(t, err)
	job, err := st.JobInsert(t.Context(), &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	return src, job
}

// TestConcurrentOutcomesFinishOnce: batches of one job's outcomes settled at once, with
// every outcome delivered twice, count each key once, settle in shared transactions, and
// finish the job with exactly one report.
func TestConcurrentOutcomesFinishOnce(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		src, job := harvestJob(t, st, &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		reg := prometheus.NewRegistry()
		h := newHandler(t, st, reg)

		const n = 300
		msgs := []*harvest.Message{settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: job.ID, Expected: n})}
		for i := range 2 * n {
			outcome := harvest.OutcomeAdded
			if i%n%10 == 0 {
				outcome = harvest.OutcomeErrored
			}
			id := fmt.Sprintf("rec-%d", i%n)
			msgs = append(msgs, settledMessage(t, &harvest.Settled{Kind: harvest.SettledOutcome, JobID: job.ID,
				Key: harvest.IdentifierKey(id), Identifier: id, Outcome: outcome, Validated: true}))
		}
		var mu sync.Mutex
		var reports []*harvest.Message
		work := make(chan []*harvest.Message)
		var wg sync.WaitGroup
		for range 4 { // batches of 64, four at once, as the router hands them
			wg.Go(func() {
				for batch := range work {
					for _, r := range h.HandleBatch(t.Context(), batch) {
						if r.Err != nil {
							t.Errorf("handle: %v", r.Err)
						}
						mu.Lock()
						reports = append(reports, r.Out...)
						mu.Unlock()
					}
				}
			})
		}
		chunks := 0
		for lo := 0; lo < len(msgs); lo += 64 {
			work <- msgs[lo:min(lo+64, len(msgs))]
			chunks++
		}
		close(work)
		wg.Wait()

		require.Len(t, reports, 2, "one report for the job, and its FDK form")
		require.Equal(t, harvest.SubjectReport, reports[0].Metadata.Get(harvest.MetaSubject))
		require.Equal(t, harvest.SubjectReportFDK, reports[1].Metadata.Get(harvest.MetaSubject))
		var r harvest.Report
		require.NoError(t, harvest.Decode(reports[0], &r))
		require.Equal(t, [2]string{src.ID, job.ID}, [2]string{r.ID, r.JobID}, "id is the source's, as FDK's")
		require.Equal(t, harvest.JobComplete, r.Status)
		require.Equal(t, harvest.Counts{Total: n, Added: n - n/10, Errored: n / 10, Validated: n}, r.Counts)
		got, err := st.JobGet(ctx, job.ID)
		require.NoError(t, err)
		require.Equal(t, r.Counts, got.Counts)

		batches := histogram(t, reg, "harvester_settle_batch_outcomes")
		require.EqualValues(t, 2*n, batches.GetSampleSum(), "every outcome went through a batch")
		require.EqualValues(t, chunks, batches.GetSampleCount(), "the outcomes of a batch share one transaction")
	})
}

func settledMessage(t *testing.T, s *harvest.Settled) *harvest.Message {
	t.Helper()
	m, err := harvest.SettledMessage(s)
	require.NoError(t, err)
	m.SetContext(t.Context())
	return m
}

// histogram returns the gathered histogram named name.
func histogram(t *testing.T, reg *prometheus.Registry, name string) *dto.Histogram {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetHistogram()
		}
	}
	t.Fatalf("metric %s not registered", name)
	return nil
}

// TestOutcomeStoresSourceTransform: the DCAT-US TRANSFORM made travels on the outcome, and the
// aggregator stores it as the record's source_transform with its status: for a record that
// failed after TRANSFORM (invalid) as for one that was synced. TRANSFORM itself writes nothing.
func TestOutcomeStoresSourceTransform(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		src, job := harvestJob(t, st, &store.SourceEnsureParams{Name: "w", URL: "https://example.gov/waf/",
			SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_2})
		h := newHandler(t, st, prometheus.NewRegistry())
		for _, c := range []struct {
			file    string
			outcome harvest.Outcome
			status  harvest.RecordStatus
		}{
			{"invalid.xml", harvest.OutcomeErrored, harvest.RecordErrorValidation},
			{"good.xml", harvest.OutcomeAdded, harvest.RecordSuccess},
		} {
			id := src.URL + c.file
			rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: harvest.RecordID(job.ID, id), JobID: job.ID,
				SourceID: src.ID, Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "<xml/>",
				SchemaType: harvest.SchemaISO19115_2})
			require.NoError(t, err)
			dcat := `{"identifier":"` + id + `","title":"T"}`
			_, err = h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledOutcome, JobID: job.ID,
				Key: harvest.IdentifierKey(id), Identifier: id, RecordID: rec.ID, Outcome: c.outcome, Status: c.status,
				Transformed: harvest.RawText(dcat)}))
			require.NoError(t, err)
			got, err := st.RecordGet(ctx, rec.ID)
			require.NoError(t, err)
			require.Equal(t, c.status, got.Status, c.file)
			require.JSONEq(t, dcat, string(got.SourceTransform), c.file)
		}
	})
}

// finishCounter is a store that counts the aggregator's JobFinish calls.
type finishCounter struct {
	store.Store
	mu    sync.Mutex
	calls int
}

func (f *finishCounter) JobFinish(ctx context.Context, jobID string) (*store.HarvestJob, bool, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	return f.Store.JobFinish(ctx, jobID)
}

// TestFinishTriedOnceTheCountIsReached: a settle batch tries to finish its job only when the
// job's row after the batch shows the expected count reached; the job still finishes once,
// with its expected count known before its outcomes or after them all.
func TestFinishTriedOnceTheCountIsReached(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		for _, expectedFirst := range []bool{true, false} {
			_, job := harvestJob(t, st, &store.SourceEnsureParams{Name: fmt.Sprint("s", expectedFirst),
				URL:        fmt.Sprintf("https://example.gov/%v.json", expectedFirst),
				SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
			fc := &finishCounter{Store: st}
			h, err := report.New(fc, prometheus.NewRegistry(), nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
			require.NoError(t, err)
			const n, batch = 300, 100
			expected := []*harvest.Message{settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: job.ID, Expected: n})}
			var batches [][]*harvest.Message
			for lo := 0; lo < n; lo += batch {
				var b []*harvest.Message
				for i := lo; i < lo+batch; i++ {
					id := fmt.Sprintf("rec-%d", i)
					b = append(b, settledMessage(t, &harvest.Settled{Kind: harvest.SettledOutcome, JobID: job.ID,
						Key: harvest.IdentifierKey(id), Identifier: id, Outcome: harvest.OutcomeAdded, Validated: true}))
				}
				batches = append(batches, b)
			}
			if expectedFirst {
				batches = append([][]*harvest.Message{expected}, batches...)
			} else {
				batches = append(batches, expected)
			}
			got := requireReported(t, st, h, job, batches...)
			require.Equal(t, n, got.Added)
			// Expected first: the expected message tries (too early), then the last batch.
			// Expected last: only the expected message tries. Not once per batch.
			want := map[bool]int{true: 2, false: 1}[expectedFirst]
			require.Equal(t, want, fc.calls, "JobFinish calls, expected count first: %v", expectedFirst)
		}
	})
}

// batchRefuser is a store whose settle batches of more than one outcome fail, so that the
// aggregator settles each outcome alone.
type batchRefuser struct{ store.Store }

func (b batchRefuser) OutcomeSettleBatch(ctx context.Context, ps []*store.OutcomeSettleParams) ([]*store.OutcomeSettled, error) {
	if len(ps) > 1 {
		return nil, errors.New("refused")
	}
	return b.Store.OutcomeSettleBatch(ctx, ps)
}

// TestFinishAfterOutcomesSettledAlone: when a batch's transaction fails and its outcomes settle
// one by one, the job is finished from its row after the last of them, not the first.
func TestFinishAfterOutcomesSettledAlone(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		_, job := harvestJob(t, st, &store.SourceEnsureParams{Name: "s", URL: "https://example.gov/data.json",
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		h, err := report.New(batchRefuser{st}, prometheus.NewRegistry(), nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.NoError(t, err)
		const n = 5
		expected := []*harvest.Message{
			settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: job.ID, Expected: n})}
		var batch []*harvest.Message
		for i := range n {
			id := fmt.Sprintf("rec-%d", i)
			batch = append(batch, settledMessage(t, &harvest.Settled{Kind: harvest.SettledOutcome, JobID: job.ID,
				Key: harvest.IdentifierKey(id), Identifier: id, Outcome: harvest.OutcomeAdded, Validated: true}))
		}
		requireReported(t, st, h, job, expected, batch)
	})
}

// requireReported hands h the batches in turn, each without error, and requires two reports
// (the job's and its FDK form) and job complete; it returns the job's row.
func requireReported(t *testing.T, st store.Store, h *report.Handler, job *store.HarvestJob,
	batches ...[]*harvest.Message) *store.HarvestJob {
	t.Helper()
	var reports []*harvest.Message
	for _, b := range batches {
		for _, r := range h.HandleBatch(t.Context(), b) {
			require.NoError(t, r.Err)
			reports = append(reports, r.Out...)
		}
	}
	require.Len(t, reports, 2, "one report for the job, and its FDK form")
	got, err := st.JobGet(t.Context(), job.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.JobComplete, got.Status)
	return got
}
