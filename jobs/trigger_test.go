package jobs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

func newStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(context.Background()))
	return st
}

func triggerMsg(t *testing.T, v any) *harvest.Message {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return harvest.NewRawMessage(watermill.NewUUID(), b)
}

func TestTriggerMessages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	h := jobs.NewTriggerHandler(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Agency", Slug: "agency"})
	require.NoError(t, err)
	var sources []*store.Source
	for _, u := range []string{"https://a.example.gov/data.json", "https://b.example.gov/data.json", "https://c.example.gov/data.json"} {
		src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: u, URL: u,
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		sources = append(sources, src)
	}
	other, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "other", URL: "https://other.example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)

	jobsOf := func(sourceID string) []*store.HarvestJob {
		list, _, err := st.JobList(ctx, &store.JobListParams{SourceID: sourceID})
		require.NoError(t, err)
		return list
	}

	// One source, forced.
	require.NoError(t, h.Handle(triggerMsg(t, jobs.TriggerMessage{DataSourceID: sources[0].ID, ForceUpdate: true})))
	list := jobsOf(sources[0].ID)
	require.Len(t, list, 1)
	require.Equal(t, harvest.JobForceHarvest, list[0].JobType)
	require.Equal(t, harvest.JobNew, list[0].Status, "queued for the scheduler's cap")

	// Every source of a publisher; the one already queued is left as it is.
	require.NoError(t, h.Handle(triggerMsg(t, jobs.TriggerMessage{PublisherID: org.ID})))
	for i, src := range sources {
		list := jobsOf(src.ID)
		require.Len(t, list, 1, "source %d", i)
		if i > 0 {
			require.Equal(t, harvest.JobHarvest, list[0].JobType)
		}
	}
	require.Empty(t, jobsOf(other.ID), "a source of another organization is not triggered")

	// Unknown ids and malformed messages are acknowledged (nil), not retried, and queue nothing.
	for _, payload := range []any{
		jobs.TriggerMessage{DataSourceID: "4b3a2c1d-0000-4000-8000-000000000000"},
		jobs.TriggerMessage{PublisherID: "no-such-publisher"},
		jobs.TriggerMessage{DataSourceID: sources[1].ID, PublisherID: org.ID}, // queued already
		jobs.TriggerMessage{DataSourceID: other.ID, PublisherID: org.ID},      // not the publisher's
		"not an object",
	} {
		require.NoError(t, h.Handle(triggerMsg(t, payload)), "%v", payload)
	}
	_, total, err := st.JobList(ctx, &store.JobListParams{})
	require.NoError(t, err)
	require.Equal(t, 3, total)
}

// TestTriggerEveryRDFSource: a trigger with neither dataSourceId nor publisherId queues a job
// of every rdf source, of any organization (FDK harvests every dataset source), forced when
// forceUpdate; other source types are left alone; with both ids, the publisher's source runs.
func TestTriggerEveryRDFSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newStore(t)
	h := jobs.NewTriggerHandler(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Digdir", Slug: "digdir"})
	require.NoError(t, err)
	var rdfSources []*store.Source
	for i := range 103 { // more than one page of SourceList
		p := &store.SourceInsertParams{Name: fmt.Sprintf("rdf %03d", i), URL: fmt.Sprintf("https://fdk.example.no/%d.ttl", i),
			SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP}
		if i%2 == 0 {
			p.OrganizationID = org.ID
		}
		src, err := st.SourceInsert(ctx, p)
		require.NoError(t, err)
		rdfSources = append(rdfSources, src)
	}
	doc, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "data.json", URL: "https://a.example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)

	require.NoError(t, h.Handle(triggerMsg(t, map[string]any{"forceUpdate": true})))
	for _, src := range rdfSources {
		list, _, err := st.JobList(ctx, &store.JobListParams{SourceID: src.ID})
		require.NoError(t, err)
		require.Len(t, list, 1, src.Name)
		require.Equal(t, harvest.JobForceHarvest, list[0].JobType)
	}
	list, _, err := st.JobList(ctx, &store.JobListParams{SourceID: doc.ID})
	require.NoError(t, err)
	require.Empty(t, list, "a data.json source is not an rdf source")

	// Both ids: that source, when it is the publisher's.
	both, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: "both",
		URL: "https://fdk.example.no/both.ttl", SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP})
	require.NoError(t, err)
	require.NoError(t, h.Handle(triggerMsg(t, jobs.TriggerMessage{DataSourceID: both.ID, PublisherID: org.ID})))
	list, _, err = st.JobList(ctx, &store.JobListParams{SourceID: both.ID})
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, harvest.JobHarvest, list[0].JobType)
}
