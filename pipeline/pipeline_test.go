package pipeline_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// brokenCatalog is a store whose dataset writes always fail, as a catalog database that is
// down would: every SYNC fails.
type brokenCatalog struct{ store.Store }

var errCatalogDown = errors.New("catalog database unavailable")

func (brokenCatalog) DatasetUpsert(context.Context, *store.DatasetUpsertParams) (*store.Dataset, error) {
	return nil, errCatalogDown
}

func (brokenCatalog) DatasetUpsertBatch(context.Context, []*store.DatasetUpsertParams) ([]*store.Dataset, error) {
	return nil, errCatalogDown
}

func (brokenCatalog) DatasetDelete(context.Context, *store.DatasetDeleteParams) (bool, error) {
	return false, errCatalogDown
}

type testBundle struct {
	st      store.Store
	natsURL string
	reg     *prometheus.Registry
	p       *pipeline.Pipeline
}

func setup(t *testing.T, wrap func(store.Store) store.Store) *testBundle {
	t.Helper()
	return setupOn(t, dbtest.Store(t), wrap)
}

// setupOn is setup on the store st.
func setupOn(t *testing.T, st store.Store, wrap func(store.Store) store.Store) *testBundle {
	t.Helper()
	b := &testBundle{st: st, natsURL: natstest.URL(t), reg: prometheus.NewRegistry()}
	p, err := pipeline.New(context.Background(), pipeline.Config{Store: wrap(b.st), NATSURL: b.natsURL, Registry: b.reg,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Stages: pipeline.StageNames(), SearchIndex: "none",
		MaxRetries: 2, RetryInterval: time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(context.Background()))
	b.p = p
	return b
}

func (b *testBundle) harvest(t *testing.T, file string, jobType harvest.JobType) *store.HarvestJob {
	t.Helper()
	return b.harvestURL(t, corpustest.Path(t, file), jobType)
}

// harvestURL is harvest of the source at url (a file path or an HTTP URL).
func (b *testBundle) harvestURL(t *testing.T, url string, jobType harvest.JobType) *store.HarvestJob {
	t.Helper()
	ctx := context.Background()
	reports, unsubscribe, err := b.p.Bus().Reports()
	require.NoError(t, err)
	defer unsubscribe()
	job, err := jobs.Control{Store: b.st, Publisher: b.p.Bus().Publisher()}.Start(ctx, jobs.Params{URL: url,
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal, JobType: jobType})
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for rep := range reports { // the report event comes last: after the counts, metrics and email
		if rep.JobID == job.ID {
			break
		}
	}
	job, err = jobs.Wait(wctx, b.st, job.ID, 20*time.Millisecond)
	require.NoError(t, err)
	return job
}

func TestFailingSyncSettlesEveryRecordAsError(t *testing.T) {
	t.Parallel()
	b := setup(t, func(s store.Store) store.Store { return brokenCatalog{s} })
	ctx := context.Background()

	job := b.harvest(t, "dcatus/agency-gsa-2025-01.data.json", harvest.JobHarvest)
	require.Equal(t, harvest.JobComplete, job.Status)
	require.Equal(t, 339, job.Total)
	require.Equal(t, 339, job.Errored)
	require.Equal(t, 339, job.Validated, "the records were valid; only the sync failed")
	require.Zero(t, job.Added+job.Updated+job.Deleted+job.Unchanged)

	errs, total, err := b.st.RecordErrorList(ctx, &store.RecordErrorListParams{
		JobID: job.ID, PageParams: store.PageParams{Limit: 1000},
	})
	require.NoError(t, err)
	require.Equal(t, 339, total)
	require.Len(t, errs, 339)
	for _, e := range errs {
		require.Equal(t, "StageError", e.Type)
		require.Contains(t, e.Message, errCatalogDown.Error())
		rec, err := b.st.RecordGet(ctx, e.RecordID)
		require.NoError(t, err)
		require.Equal(t, harvest.RecordFailed, rec.Status)
	}

	// Every failed record waits on the failed subject for a replay, with its reason.
	nc, err := nats.Connect(b.natsURL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	stream, err := js.Stream(ctx, router.StreamFailed)
	require.NoError(t, err)
	info, err := stream.Info(ctx, jetstream.WithSubjectFilter(harvest.SubjectFailedPrefix+"sync"))
	require.NoError(t, err)
	require.Equal(t, uint64(339), info.State.Msgs)
	last, err := stream.GetLastMsgForSubject(ctx, harvest.SubjectFailedPrefix+"sync")
	require.NoError(t, err)
	require.Contains(t, last.Header.Get(harvest.MetaReason), errCatalogDown.Error())
	require.Equal(t, job.ID, last.Header.Get(harvest.MetaJobID))

	require.Equal(t, 339.0, counterValue(t, b.reg, "harvester_records_settled_total", "errored"))

	// A failed sync is not remembered as the record's state: the next run tries again.
	rerun := b.harvest(t, "dcatus/agency-gsa-2025-01.data.json", harvest.JobHarvest)
	require.Equal(t, 339, rerun.Errored)
	require.Zero(t, rerun.Unchanged)
}

func TestStageMetricsAreExposed(t *testing.T) {
	t.Parallel()
	b := setup(t, func(s store.Store) store.Store { return s })
	job := b.harvest(t, "dcatus/datagov-cftc.data.json", harvest.JobValidate)
	require.Equal(t, harvest.JobComplete, job.Status)
	require.Equal(t, 7, job.Total)

	families, err := b.reg.Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	for _, want := range []string{"harvester_stage_handler_duration_seconds",
		"harvester_records_settled_total", "harvester_jobs_finished_total", "harvester_job_duration_seconds"} {
		require.True(t, names[want], "metric %s is registered (have %v)", want, names)
	}
}

func counterValue(t *testing.T, reg *prometheus.Registry, name, outcome string) float64 {
	t.Helper()
	return labelledValue(t, reg, name, "outcome", outcome)
}

// labelledValue is the counter name{label=value} in reg; the test fails when it is absent.
func labelledValue(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{%s=%q}", name, label, value)
	return 0
}
