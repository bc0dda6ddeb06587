package pipeline_test

import (
	"context"
	"log/slog"
	"maps"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// deployment is one Harvester with every stage, on a database of its own (a fresh Postgres
// schema, opened by its DATABASE_URL as a process would) and a NATS server it may share.
type deployment struct {
	p   *pipeline.Pipeline
	reg *prometheus.Registry
}

// deploymentConfig is the config of a deployment on a new database, NATS server natsURL and
// prefix ("" the default).
func deploymentConfig(t *testing.T, natsURL, prefix string) pipeline.Config {
	return pipeline.Config{DatabaseURL: dbtest.URL(t), NATSURL: natsURL, NATSPrefix: prefix, DataDir: t.TempDir(),
		Registry: prometheus.NewRegistry(), Logger: slog.New(slog.DiscardHandler),
		Stages: pipeline.StageNames(), SearchIndex: "none", Fetch: fetch.Config{AllowPrivate: true}}
}

// startDeployment starts the pipeline of cfg, closed when the test ends.
func startDeployment(t *testing.T, cfg pipeline.Config) *deployment {
	t.Helper()
	p, err := pipeline.New(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(context.Background()))
	return &deployment{p: p, reg: cfg.Registry}
}

// unknownJobs is how many messages of jobs its database does not have the deployment's stages
// have met.
func (d *deployment) unknownJobs(t *testing.T) float64 {
	t.Helper()
	families, err := d.reg.Gather()
	require.NoError(t, err)
	var n float64
	for _, f := range families {
		if f.GetName() == "harvester_messages_unknown_job_total" {
			for _, m := range f.GetMetric() {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// start starts a harvest of the DCAT-US catalog that corpus serves.
func (d *deployment) start(t *testing.T, corpus *corpustest.Server) *store.HarvestJob {
	t.Helper()
	job, err := jobs.New(d.p.Store(), d.p.Bus()).Start(context.Background(), jobs.Params{URL: corpus.URL(),
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	return job
}

// Two deployments, each with its own database and its own NATS prefix (one the default), on one
// NATS server, a job in each started at once: both complete with their own catalog's counts,
// and neither meets a message of the other's job. Before prefixes, both used the same streams
// and consumers: each took some of the other's messages, found no such job in its database and
// dropped them, and both jobs waited for their timeout.
func TestDeploymentsShareOneNATSServer(t *testing.T) {
	t.Parallel()
	natsURL := natstest.URL(t)
	a := startDeployment(t, deploymentConfig(t, natsURL, ""))
	b := startDeployment(t, deploymentConfig(t, natsURL, "agency-b"))
	require.Equal(t, router.DefaultPrefix, a.p.Bus().Prefix())
	require.Equal(t, "agency-b", b.p.Bus().Prefix())
	corpusA, corpusB := corpustest.NewServer(t), corpustest.NewServer(t)
	corpusA.Serve(corpustest.Path(t, "dcatus/agency-cfpb-2025-07.data.json"))
	corpusB.Serve(corpustest.Path(t, "dcatus/datagov-cftc.data.json"))

	jobA, jobB := a.start(t, corpusA), b.start(t, corpusB)
	ctx := context.Background()
	deadline := time.Now().Add(5 * time.Minute) // a failsafe: the jobs end within seconds
	for {
		require.Zero(t, a.unknownJobs(t), "deployment A met a message of a job it does not have")
		require.Zero(t, b.unknownJobs(t), "deployment B met a message of a job it does not have")
		var err error
		jobA, err = a.p.Store().JobGet(ctx, jobA.ID)
		require.NoError(t, err)
		jobB, err = b.p.Store().JobGet(ctx, jobB.ID)
		require.NoError(t, err)
		if jobA.Status.Finished() && jobB.Status.Finished() {
			break
		}
		require.True(t, time.Now().Before(deadline), "jobs still %s (%d settled) and %s (%d settled)",
			jobA.Status, jobA.Settled, jobB.Status, jobB.Settled)
		time.Sleep(20 * time.Millisecond)
	}
	require.Equal(t, harvest.JobComplete, jobA.Status)
	require.Equal(t, harvest.JobComplete, jobB.Status)
	require.Equal(t, harvest.Counts{Total: 11, Added: 11, Validated: 11}, jobA.Counts)
	require.Equal(t, harvest.Counts{Total: 7, Added: 7, Validated: 7}, jobB.Counts)
}

// A second deployment with another database on the same NATS prefix is refused at start, with
// a sentence naming both databases and the fix; with a prefix of its own it starts.
func TestDeploymentOnAnotherDatabaseRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	natsURL := natstest.URL(t)
	a := startDeployment(t, deploymentConfig(t, natsURL, ""))
	idA, err := a.p.Store().DatabaseID(ctx)
	require.NoError(t, err)

	cfg := deploymentConfig(t, natsURL, "")
	_, err = pipeline.New(ctx, cfg)
	require.ErrorIs(t, err, router.ErrOtherDeployment)
	require.ErrorContains(t, err, "stamped with database "+idA+", but this process's database is ")
	require.ErrorContains(t, err, "give this deployment a prefix of its own with --nats-prefix")

	cfg.NATSPrefix = "agency-b"
	b := startDeployment(t, cfg)
	idB, err := b.p.Store().DatabaseID(ctx)
	require.NoError(t, err)
	require.NotEqual(t, idA, idB)
	startDeployment(t, deploymentConfig(t, natsURL, "agency-c"))
}

// A message of a job this database does not have is no longer dropped silently: every stage
// that looks its job up counts it by stage (harvester_messages_unknown_job_total) and acks it.
func TestUnknownJobMessagesCounted(t *testing.T) {
	t.Parallel()
	d := startDeployment(t, deploymentConfig(t, natstest.URL(t), "elsewhere"))
	const jobID = "0b7d3a4e-9d1c-4a6e-8f0e-3c2b1a0f9e8d" // no job of this database
	rec := &harvest.Record{JobID: jobID, SourceID: jobID, RecordID: harvest.RecordID(jobID, "a"), Identifier: "a",
		JobType: harvest.JobHarvest, SchemaType: harvest.SchemaDCATUS11Federal, Action: harvest.ActionCreate,
		Body: []byte(`{"identifier":"a"}`)}
	job, err := harvest.NewMessage(harvest.SubjectExtract, &harvest.Job{V: harvest.Version, JobID: jobID, SourceID: jobID,
		JobType: harvest.JobHarvest, SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal,
		URL: "http://127.0.0.1:1/data.json"}, harvest.MetaJobID, jobID)
	require.NoError(t, err)
	listing, err := harvest.NewMessage(harvest.SubjectListing, &harvest.Listing{V: harvest.Version, JobID: jobID,
		SourceID: jobID, JobType: harvest.JobHarvest}, harvest.MetaJobID, jobID)
	require.NoError(t, err)
	compare, err := harvest.RecordMessage(harvest.SubjectCompare, rec)
	require.NoError(t, err)
	sync, err := harvest.RecordMessage(harvest.SubjectSync, rec)
	require.NoError(t, err)
	settled, err := harvest.SettledMessage(harvest.SettleRecord(rec, harvest.OutcomeAdded))
	require.NoError(t, err)
	require.NoError(t, d.p.Bus().Publisher().Publish("", job, listing, compare, sync, settled))
	stages := []string{pipeline.StageExtract, pipeline.StageCompare, pipeline.StageListing, pipeline.StageSync,
		pipeline.StageReport}
	counts := func() map[string]float64 {
		got := map[string]float64{}
		for _, s := range stages {
			got[s] = metric(t, d.reg, "harvester_messages_unknown_job_total", s)
		}
		return got
	}
	want := map[string]float64{}
	for _, s := range stages {
		want[s] = 1
	}
	deadline := time.Now().Add(2 * time.Minute) // a failsafe: the messages are handled at once
	for got := counts(); !maps.Equal(got, want); got = counts() {
		require.True(t, time.Now().Before(deadline), "each stage counts its message once: %v", got)
		time.Sleep(20 * time.Millisecond)
	}
	for _, s := range stages {
		require.Zero(t, metric(t, d.reg, "harvester_stage_gave_up_total", s), "not given up on: %s", s)
	}
}

// metric is the value of the counter name{stage=stage} in reg; -1 when there is no such series.
func metric(t *testing.T, reg *prometheus.Registry, name, stage string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "stage" && l.GetValue() == stage {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return -1
}

// The in-process NATS server of the embedded default is the process's own: its streams are
// not stamped, so the data directory that kept a SQLite deployment's JetStream data serves a
// Postgres database later.
func TestEmbeddedNATSServesAnotherDatabaseLater(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, dbURL := range []string{"", dbtest.URL(t)} {
		p, err := pipeline.New(context.Background(), pipeline.Config{DatabaseURL: dbURL, DataDir: dir,
			Logger: slog.New(slog.DiscardHandler), Stages: []string{pipeline.StageValidate}, SearchIndex: "none"})
		require.NoError(t, err, "database %q", dbURL)
		require.NoError(t, p.Start(context.Background()))
		p.Close()
	}
}
