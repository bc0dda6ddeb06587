package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// testQualityAggregate: rows are read back as written (a job's rows written again replace
// them), the history of a scope id is oldest first (the newest Limit of them when asked, the
// summaries only when asked), and the latest of each scope id is the newest row, for sources
// only those that exist, each with its current organization.
func testQualityAggregate(t *testing.T, s store.Store) {
	ctx := t.Context()
	org := newOrganization(t, s, "Quality org")
	p := sourceParams("scored")
	p.OrganizationID = org.ID
	src := insertSource(t, s, p)
	other := newSource(t, s)
	gone := newSource(t, s)
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	row := func(scope, scopeID, sourceID string, at time.Time, mean float64) *store.QualityAggregate {
		return &store.QualityAggregate{Scope: scope, ScopeID: scopeID, JobID: uuid.NewString(), SourceID: sourceID,
			ComputedAt: at, Datasets: 3, Mean: mean, Rating: "Sufficient", LinksURLs: 7, LinksBroken: 2,
			Summary: json.RawMessage(`{"datasets": 3, "mean": ` + mustJSON(t, mean) + `}`)}
	}
	first := row(store.QualityScopeSource, src.ID, src.ID, t0, 150.5)
	second := row(store.QualityScopeSource, src.ID, src.ID, t0.Add(24*time.Hour), 160.25)
	third := row(store.QualityScopeSource, src.ID, src.ID, t0.Add(48*time.Hour), 0)
	otherRow := row(store.QualityScopeSource, other.ID, other.ID, t0, 300)
	goneRow := row(store.QualityScopeSource, gone.ID, gone.ID, t0, 99)
	orgRow := row(store.QualityScopeOrganization, org.ID, src.ID, t0, 150.5)
	catalog := row(store.QualityScopeCatalog, "", src.ID, t0.Add(time.Hour), 200)
	require.NoError(t, s.QualityAggregateSave(ctx, []*store.QualityAggregate{second, first, otherRow, goneRow, orgRow, catalog}))
	require.NoError(t, s.QualityAggregateSave(ctx, nil))
	third.Mean, third.Summary = 170, json.RawMessage(`{"mean": 1}`)
	require.NoError(t, s.QualityAggregateSave(ctx, []*store.QualityAggregate{third}))
	third.Mean, third.Summary = 175.75, json.RawMessage(`{"mean": 175.75}`)
	require.NoError(t, s.QualityAggregateSave(ctx, []*store.QualityAggregate{third}), "the same job again replaces")
	require.NoError(t, s.SourceDelete(ctx, gone.ID))

	hist, err := s.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: store.QualityScopeSource,
		ScopeID: src.ID, Summaries: true})
	require.NoError(t, err)
	require.Len(t, hist, 3)
	for i, want := range []*store.QualityAggregate{first, second, third} {
		require.JSONEq(t, string(want.Summary), string(hist[i].Summary))
		got := *hist[i]
		got.Summary = want.Summary
		require.Equal(t, *want, got)
	}
	hist, err = s.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: store.QualityScopeSource,
		ScopeID: src.ID, Limit: 2})
	require.NoError(t, err)
	require.Len(t, hist, 2)
	require.Equal(t, []string{second.JobID, third.JobID}, []string{hist[0].JobID, hist[1].JobID})
	require.Nil(t, hist[0].Summary, "no summary unless asked")
	checkHistoryPages(t, s, src.ID, []string{first.JobID, second.JobID, third.JobID})
	hist, err = s.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: store.QualityScopeOrganization,
		ScopeID: src.ID})
	require.NoError(t, err)
	require.Empty(t, hist, "a source id is no organization's")

	latest, err := s.QualityAggregateLatest(ctx, store.QualityScopeSource)
	require.NoError(t, err)
	byID := map[string]*store.QualityAggregate{}
	for _, a := range latest {
		byID[a.ScopeID] = a
	}
	require.NotContains(t, byID, gone.ID, "a deleted source's history is no latest")
	require.Equal(t, third.JobID, byID[src.ID].JobID)
	require.InDelta(t, 175.75, byID[src.ID].Mean, 1e-9)
	require.JSONEq(t, `{"mean": 175.75}`, string(byID[src.ID].Summary))
	require.Equal(t, org.ID, byID[src.ID].OrganizationID)
	require.Equal(t, "scored", byID[src.ID].SourceName)
	require.Equal(t, otherRow.JobID, byID[other.ID].JobID)
	require.Empty(t, byID[other.ID].OrganizationID)
	gotHist, err := s.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: store.QualityScopeSource,
		ScopeID: gone.ID})
	require.NoError(t, err)
	require.Len(t, gotHist, 1, "a deleted source's history stays")

	latest, err = s.QualityAggregateLatest(ctx, store.QualityScopeCatalog)
	require.NoError(t, err)
	require.Len(t, latest, 1)
	require.Equal(t, catalog.JobID, latest[0].JobID)
	require.Empty(t, latest[0].ScopeID)
}

// mustJSON is v as JSON text.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// checkHistoryPages: QualityAggregateHistoryPage pages the history of source sourceID, whose
// jobs are jobs (oldest first, three of them), oldest first, with the whole history's length
// on every page, an empty page past the end, and no summaries.
func checkHistoryPages(t *testing.T, s store.Store, sourceID string, jobs []string) {
	t.Helper()
	byPage := &store.QualityAggregateHistoryParams{Scope: store.QualityScopeSource, ScopeID: sourceID}
	for _, c := range []struct {
		page store.PageParams
		want []string
	}{
		{store.PageParams{Limit: 2}, jobs[:2]},
		{store.PageParams{Limit: 2, Offset: 2}, jobs[2:]},
		{store.PageParams{Limit: 1, Offset: 1}, jobs[1:2]},
		{store.PageParams{Limit: 2, Offset: 5}, nil},
	} {
		rows, total, err := s.QualityAggregateHistoryPage(t.Context(), byPage, c.page)
		require.NoError(t, err)
		require.Equal(t, len(jobs), total, "the whole history's length, whatever the page")
		var got []string
		for _, r := range rows {
			require.Nil(t, r.Summary, "no summary unless asked")
			got = append(got, r.JobID)
		}
		require.Equal(t, c.want, got, "page %+v, oldest first", c.page)
	}
}
