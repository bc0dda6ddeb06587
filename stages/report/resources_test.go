package report_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/report"
	"github.com/harvester-dev/harvester/store"
)

// TestReportResources: the report names FDK's changedCatalogs, changedResources and
// removedResources as {fdkId, uri}: the catalogs the job changed, its added and updated records
// and its deleted ones (uri = the identifier), with the fdkId kept in resource_identity (an id
// minted earlier is kept; a new one is harvest.FdkID of the uri); unchanged and errored records
// are not named; the lists are arrays, never null.
func TestReportResources(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "fdk", URL: "https://fdk.example.no/" + t.Name(),
			SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP})
		require.NoError(t, err)
		h, err := report.New(st, prometheus.NewRegistry(), nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.NoError(t, err)
		defer h.Close()

		// A job that changes nothing reports empty arrays.
		empty, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		out, err := h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: empty.ID, Expected: 0}))
		require.NoError(t, err)
		require.Len(t, out, 1)
		var raw map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(out[0].Payload, &raw))
		for _, k := range []string{"changedCatalogs", "changedResources", "removedResources"} {
			require.JSONEq(t, `[]`, string(raw[k]), k)
		}

		const base = "https://data.norge.no/"
		kept, err := st.ResourceIDs(ctx, []string{base + "dataset/old"}, func(string) string { return "kept-fdk-id" })
		require.NoError(t, err)
		require.Equal(t, "kept-fdk-id", kept[base+"dataset/old"])

		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		require.NoError(t, st.CatalogChecksumsSet(ctx, &store.CatalogChecksumsSetParams{SourceID: src.ID, JobID: job.ID,
			Catalogs: []store.CatalogChecksum{{URI: base + "catalog/0", FdkID: harvest.FdkID(base + "catalog/0"), Checksum: "c"}}}))
		outcomes := map[string]harvest.Outcome{
			base + "dataset/new":     harvest.OutcomeAdded,
			base + "dataset/changed": harvest.OutcomeUpdated,
			base + "dataset/old":     harvest.OutcomeDeleted,
			base + "dataset/same":    harvest.OutcomeUnchanged,
			base + "dataset/bad":     harvest.OutcomeErrored,
		}
		_, err = h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: job.ID, Expected: len(outcomes)}))
		require.NoError(t, err)
		var reports [][]byte
		for id, o := range outcomes {
			out, err := h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledOutcome, JobID: job.ID,
				Key: harvest.IdentifierKey(id), Identifier: id, Outcome: o}))
			require.NoError(t, err)
			for _, m := range out {
				reports = append(reports, m.Payload)
			}
		}
		require.Len(t, reports, 1)
		var r harvest.Report
		require.NoError(t, json.Unmarshal(reports[0], &r))
		res := func(uri string) harvest.Resource { return harvest.Resource{FdkID: harvest.FdkID(uri), URI: uri} }
		require.Equal(t, []harvest.Resource{res(base + "catalog/0")}, r.ChangedCatalogs)
		require.Equal(t, []harvest.Resource{res(base + "dataset/changed"), res(base + "dataset/new")}, r.ChangedResources)
		require.Equal(t, []harvest.Resource{{FdkID: "kept-fdk-id", URI: base + "dataset/old"}}, r.RemovedResources)
		require.Equal(t, harvest.Counts{Total: 5, Added: 1, Updated: 1, Deleted: 1, Unchanged: 1, Errored: 1}, r.Counts)
	})
}
