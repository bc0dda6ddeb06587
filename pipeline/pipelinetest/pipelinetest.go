// Package pipelinetest runs harvest jobs through every stage in the test's process, on real
// services (Postgres from HARVESTER_TEST_DATABASE_URL, on a fresh schema, and an in-process
// NATS JetStream server), as `harvester harvest` does: the stage tests of stages/... use it
// to check a stage's rule on a whole job without going through the command line.
package pipelinetest

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// Federal and NonFederal are the DCAT-US 1.1 schema types of a data.json source.
const (
	Federal    = harvest.SchemaDCATUS11Federal
	NonFederal = harvest.SchemaDCATUS11NonFederal
)

// Harness is one test's services: a Postgres schema of its own, a NATS server and a corpus
// server (the agency's web server of a data.json source).
type Harness struct {
	DatabaseURL, NATSURL string
	// Store is the test's own connection to the database the jobs write.
	Store *postgres.Store
	// Corpus serves one document at Corpus.URL() (Corpus.Serve sets which).
	Corpus *corpustest.Server
	// Config is the pipeline every Harvest starts (a new one per job, as each `harvester
	// harvest` is a new process): set its fields (Fetch, MaxRecordBytes, MaxDeleteShare, ...)
	// before a Harvest, as the command's flags would; with DatabaseURL and NATSURL "" the job
	// runs on the embedded default (SQLite and a NATS server in DataDir), not on Store. New sets the services, a temporary data
	// directory, every stage, Fetch.AllowPrivate (the test servers are on 127.0.0.1) and a 2 s
	// Fetch.RetryBudget (a source that keeps failing fails its job quickly).
	Config pipeline.Config
	// ReportWait is how long Harvest waits, once the job has ended, for its report event:
	// 10 s by default, as the harvest command waits; a test that needs Report.Event sets a
	// longer failsafe (the event comes as soon as the aggregator has the job's last record).
	ReportWait time.Duration
}

// New starts the test's services; they are stopped at the test's cleanup.
func New(t testing.TB) *Harness {
	t.Helper()
	h := &Harness{DatabaseURL: dbtest.URL(t), NATSURL: natstest.URL(t), Corpus: corpustest.NewServer(t),
		ReportWait: 10 * time.Second}
	h.Store = dbtest.Open(t, h.DatabaseURL)
	require.NoError(t, h.Store.Migrate(context.Background()))
	h.Config = pipeline.Config{DatabaseURL: h.DatabaseURL, NATSURL: h.NATSURL, DataDir: t.TempDir(),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Stages: pipeline.StageNames(), Fetch: fetch.Config{AllowPrivate: true, RetryBudget: 2 * time.Second}}
	return h
}

// Source is what a job harvests (jobs.Params: the fields of `harvester harvest`'s flags
// of the same names). A zero SourceType is a document, a zero JobType a harvest job, and a
// portal's URL is normalised to its base, as the harvest command does.
type Source = jobs.Params

// Report is a finished job as `harvester harvest --format json` reports it.
type Report struct {
	JobID    string
	SourceID string
	JobType  string
	Status   string // "complete" or "error"
	harvest.Counts
	JobErrors []string // "Type: message" of each job error
	// NotModified: the source answered 304 to the job's conditional GET.
	NotModified bool
	// Event is the report event the aggregator published for the job (FDK's report fields);
	// nil when none came within Harness.ReportWait of the job's end.
	Event *harvest.Report
}

// Harvest runs one job of src through a new pipeline of h.Config and returns its report once
// the job has finished and the aggregator has published its report event (or h.ReportWait
// after the job finished without one). The counts must add up. It fails
// the test when the job cannot start.
func (h *Harness) Harvest(t testing.TB, src Source) Report {
	t.Helper()
	return h.harvest(t, h.Config, src)
}

func (h *Harness) harvest(t testing.TB, cfg pipeline.Config, src Source) Report {
	t.Helper()
	ctx := context.Background()
	cfg.Fetch = cfg.Fetch.WithDefaults()
	pl, err := pipeline.New(ctx, cfg)
	require.NoError(t, err)
	require.NoError(t, pl.Start(ctx))
	defer pl.Close()
	reports, unsubscribe, err := pl.Bus().Reports()
	require.NoError(t, err)
	defer unsubscribe()
	job, err := jobs.New(pl.Store(), pl.Bus()).Start(ctx, params(src))
	require.NoError(t, err)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Minute) // a safety net: the job ends by itself
	defer cancel()
	job, err = jobs.Wait(wctx, pl.Store(), job.ID, 20*time.Millisecond)
	require.NoError(t, err)
	event := jobs.AwaitReport(ctx, reports, job.ID, h.ReportWait)
	if idx := pl.Index(); idx != nil { // the job's documents searchable, as after the command
		require.NoError(t, idx.Refresh(ctx))
	}
	rep := report(t, pl.Store(), job)
	rep.Event = event
	return rep
}

// params is src with the harvest command's defaults.
func params(p Source) jobs.Params {
	if p.SourceType == "" {
		p.SourceType = harvest.SourceDocument
	}
	if p.JobType == "" {
		p.JobType = harvest.JobHarvest
	}
	if p.SourceType.IsPortal() {
		p.URL, _ = harvest.NormalizeSourceURL(p.SourceType, p.URL)
	}
	return p
}

func report(t testing.TB, st store.Store, job *store.HarvestJob) Report {
	t.Helper()
	rep := Report{JobID: job.ID, SourceID: job.SourceID, JobType: string(job.JobType), Status: string(job.Status),
		Counts: job.Counts, JobErrors: []string{}}
	jobErrs, err := st.JobErrorList(context.Background(), job.ID)
	require.NoError(t, err)
	for _, e := range jobErrs {
		rep.JobErrors = append(rep.JobErrors, e.Type+": "+e.Message)
	}
	if f, err := st.JobFetchGet(context.Background(), job.ID); err == nil {
		rep.NotModified = f.NotModified
	}
	require.Equal(t, rep.Total, rep.Added+rep.Updated+rep.Deleted+rep.Unchanged+rep.Errored, "counts add up")
	return rep
}

// MustComplete fails the test unless the job completed; the message lists its job errors.
func MustComplete(t testing.TB, rep Report) {
	t.Helper()
	require.Equal(t, string(harvest.JobComplete), rep.Status, "job errors: %s", strings.Join(rep.JobErrors, "; "))
}

// HarvestCorpus serves a corpus file (corpustest.Path) at h.Corpus.URL() and harvests it with
// the federal schema; the job must complete.
func (h *Harness) HarvestCorpus(t testing.TB, file string) Report {
	t.Helper()
	h.Corpus.Serve(corpustest.Path(t, file))
	rep := h.Harvest(t, Source{URL: h.Corpus.URL(), SchemaType: Federal})
	require.Equal(t, string(harvest.JobComplete), rep.Status, file)
	return rep
}

// Search runs q on the search index the jobs of h.Config write (bleve in its data directory
// unless Config names OpenSearch), as `harvester search` does.
func (h *Harness) Search(t testing.TB, q search.Query) *search.Result {
	t.Helper()
	idx, err := pipeline.OpenSearch(context.Background(), h.Config)
	require.NoError(t, err)
	require.NotNil(t, idx, "the harness keeps a search index")
	defer idx.Close()
	res, err := idx.Search(context.Background(), q)
	require.NoError(t, err)
	return res
}
