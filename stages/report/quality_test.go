package report_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/notify"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/stages/report"
	"github.com/harvester-dev/harvester/store"
)

// jobsMailed records the jobs the aggregator hands to its Notifier (the SMTP side is notify's,
// tested there).
type jobsMailed struct {
	mu   sync.Mutex
	jobs []notify.Job
}

func (m *jobsMailed) JobFinished(_ context.Context, _ notify.Source, job notify.Job) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.jobs = append(m.jobs, job)
	return 1, nil
}

// TestJobEndRecordsQuality: a complete harvest job's end records the source's quality and its
// email carries it: the first with the broken link as newly broken and no previous score, the
// next with the previous score and the 50 points the mended accessURL is worth; a validate
// job records nothing and its email has no quality.
func TestJobEndRecordsQuality(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		mailed := &jobsMailed{}
		h, err := report.New(st, prometheus.NewRegistry(), mailed, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		t.Cleanup(h.Close)
		h.SetQualityRecorder(assess.Recorder{Store: st})
		src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "q", URL: "https://example.gov/" + uuid.NewString(),
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal,
			NotificationEmails: []string{"a@example.gov"}, NotificationFrequency: harvest.NotifyAlways})
		require.NoError(t, err)
		link := "https://files.example.gov/" + uuid.NewString() + ".csv"
		run := func(jobType harvest.JobType, status int) *notify.Job {
			job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: jobType})
			require.NoError(t, err)
			rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
				Identifier: "d", Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}",
				SchemaType: harvest.SchemaDCATUS11Federal})
			require.NoError(t, err)
			_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: "d", Slug: "d",
				DCAT: json.RawMessage(`{"identifier": "d", "distribution": [{"accessURL": "` + link + `"}]}`), RecordID: rec.ID})
			require.NoError(t, err)
			require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{{URL: link, Status: status, OK: status == 200,
				FinalURL: link, ContentLength: -1, CheckedAt: time.Now().UTC()}}))
			_, err = h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: job.ID, Expected: 1}))
			require.NoError(t, err)
			_, err = h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledOutcome, JobID: job.ID,
				Key: harvest.IdentifierKey("d"), Identifier: "d", RecordID: rec.ID, Outcome: harvest.OutcomeAdded,
				Status: harvest.RecordSuccess, Validated: true}))
			require.NoError(t, err)
			mailed.mu.Lock()
			defer mailed.mu.Unlock()
			require.NotEmpty(t, mailed.jobs)
			last := mailed.jobs[len(mailed.jobs)-1]
			require.Equal(t, job.ID, last.ID)
			return &last
		}

		first := run(harvest.JobHarvest, 404)
		require.NotNil(t, first.Quality)
		require.Nil(t, first.Quality.Previous)
		require.Equal(t, 1, first.Quality.Datasets)
		require.Equal(t, 1, first.Quality.LinksBroken)
		require.Equal(t, []notify.BrokenLink{{URL: link, Status: 404, Datasets: 1}}, first.Quality.NewlyBroken)

		validate := run(harvest.JobValidate, 200)
		require.Nil(t, validate.Quality, "a validate job changes no dataset")

		second := run(harvest.JobHarvest, 200)
		require.NotNil(t, second.Quality.Previous)
		require.InDelta(t, first.Quality.Score, *second.Quality.Previous, 1e-9)
		require.InDelta(t, 50, second.Quality.Score-first.Quality.Score, 1e-9, "pv:accessUrlStatusCode")
		require.Zero(t, second.Quality.NewlyBrokenCount)
		rows, err := st.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: store.QualityScopeSource,
			ScopeID: src.ID})
		require.NoError(t, err)
		require.Len(t, rows, 2, "the harvest jobs' records")
	})
}
