package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testSourceHealth: each source's last run (counts), last success and health as
// store.SourceHealth defines them; the list searches by name, filters by health and sorts by
// health and last run.
func testSourceHealth(t *testing.T, s store.Store) {
	ctx := t.Context()
	org := newOrganization(t, s, "Health "+uuid.NewString()[:8])
	mk := func(name string, f harvest.Frequency) *store.Source {
		p := sourceParams(name)
		p.OrganizationID, p.Frequency = org.ID, f
		return insertSource(t, s, p)
	}
	run := func(src *store.Source, outcomes ...harvest.Outcome) *store.HarvestJob {
		job := newJob(t, s, src.ID)
		for i, o := range outcomes {
			p := &store.OutcomeSettleParams{JobID: job.ID, Key: keyOf(i), Identifier: keyOf(i), Outcome: o}
			if o == harvest.OutcomeAdded && i == 0 {
				p.Errors = []harvest.RecordError{{Type: harvest.TypeValidationWarning, Message: "w",
					Severity: harvest.SeverityWarning}}
			}
			_, _, err := s.OutcomeSettle(ctx, p)
			require.NoError(t, err)
		}
		return finishJob(t, s, job.ID)
	}
	ok, errs, failing, broken, fresh := mk("Ok 50%_", harvest.FrequencyDaily), mk("Errors", harvest.FrequencyManual),
		mk("Failing", harvest.FrequencyWeekly), mk("Broken", harvest.FrequencyManual), mk("Fresh", harvest.FrequencyDaily)
	okJob := run(ok, harvest.OutcomeAdded, harvest.OutcomeUnchanged)
	run(errs, harvest.OutcomeAdded, harvest.OutcomeErrored)
	earlier := run(failing, harvest.OutcomeAdded)
	run(failing, harvest.OutcomeErrored, harvest.OutcomeErrored) // every record errored
	bj := newJob(t, s, broken.ID)
	_, err := s.JobFail(ctx, &store.JobFailParams{JobID: bj.ID, Type: harvest.TypeExtractError, Message: "404"})
	require.NoError(t, err)

	list := func(p store.SourceSummaryListParams) map[string]*store.SourceSummary {
		p.OrganizationID = org.ID
		rows, total, err := s.SourceSummaryList(ctx, &p)
		require.NoError(t, err)
		require.Len(t, rows, total)
		out := map[string]*store.SourceSummary{}
		for _, r := range rows {
			out[r.Name] = r
		}
		return out
	}
	all := list(store.SourceSummaryListParams{})
	require.Equal(t, store.HealthOK, all[ok.Name].Health)
	require.Equal(t, okJob.ID, all[ok.Name].LastRun.ID)
	require.Equal(t, 1, all[ok.Name].LastRun.Warned)
	require.Zero(t, all[ok.Name].LastRun.Errored)
	require.Equal(t, okJob.FinishedAt.Unix(), all[ok.Name].LastSuccess.Unix())
	require.Equal(t, store.HealthErrors, all[errs.Name].Health)
	require.Equal(t, 1, all[errs.Name].LastRun.Errored)
	require.NotNil(t, all[errs.Name].LastSuccess, "a run with some records through is a success")
	require.Equal(t, store.HealthFailing, all[failing.Name].Health)
	require.Equal(t, 2, all[failing.Name].LastRun.Errored)
	require.Equal(t, earlier.FinishedAt.Unix(), all[failing.Name].LastSuccess.Unix(), "the run before")
	require.Equal(t, store.HealthFailing, all[broken.Name].Health, "a job that ended in error")
	require.Nil(t, all[broken.Name].LastSuccess)
	require.Equal(t, store.HealthNew, all[fresh.Name].Health)
	require.Nil(t, all[fresh.Name].LastRun)

	later := list(store.SourceSummaryListParams{Now: time.Now().Add(72 * time.Hour)})
	require.Equal(t, store.HealthStale, later[ok.Name].Health, "daily, no success for 3 days")
	require.Equal(t, store.HealthErrors, later[errs.Name].Health, "a manual source is never stale")
	require.Equal(t, store.HealthFailing, later[failing.Name].Health, "weekly: failing before stale")

	require.Equal(t, []string{ok.Name}, keys(list(store.SourceSummaryListParams{Name: "ok 50%_"})), "any case, % and _ literal")
	require.Empty(t, list(store.SourceSummaryListParams{Name: "ok 5_"}))
	require.ElementsMatch(t, []string{failing.Name, broken.Name},
		keys(list(store.SourceSummaryListParams{Health: store.HealthFailing})))

	rows, _, err := s.SourceSummaryList(ctx, &store.SourceSummaryListParams{OrganizationID: org.ID, Sort: store.SortHealth})
	require.NoError(t, err)
	require.Equal(t, []string{broken.Name, failing.Name, errs.Name, fresh.Name, ok.Name}, names(rows), "worst first")
	rows, _, err = s.SourceSummaryList(ctx, &store.SourceSummaryListParams{OrganizationID: org.ID, Sort: store.SortLastRun})
	require.NoError(t, err)
	require.Equal(t, []string{broken.Name, failing.Name, errs.Name, ok.Name, fresh.Name}, names(rows), "newest run first")
}

// keyOf is the i-th record key of a test job: a, b, c, ...
func keyOf(i int) string { return string(rune('a' + i)) }

// keys are the names of a name-keyed list.
func keys(m map[string]*store.SourceSummary) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	return out
}

// names are the rows' names, in order.
func names(rows []*store.SourceSummary) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Name
	}
	return out
}
