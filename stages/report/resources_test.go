package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"testing"
	"time"

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
// are not named; the lists are arrays, never null. Its id is the source's (FDK's dataSourceId),
// jobId the job's. The FDK form (SubjectReportFDK) is an array of one report in FDK's fields,
// whose changedResources also name the records that failed validation (issue 25 item 30).
func TestReportResources(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "fdk", URL: "https://fdk.example.no/" + t.Name(),
			SourceType: harvest.SourceRDF, SchemaType: harvest.SchemaDCATAP})
		require.NoError(t, err)
		h := newHandler(t, st, prometheus.NewRegistry())

		requireEmptyReport(t, st, h, src.ID)

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
			base + "dataset/broken":  harvest.OutcomeErrored,
		}
		rows := map[string][]harvest.RecordError{
			base + "dataset/bad": {{Type: "ValidationError", Message: "dct:title: Less than 1 values (sh:minCount)",
				Severity: harvest.SeverityError}, {Type: "ValidationError", Message: "w", Severity: harvest.SeverityWarning}},
			base + "dataset/broken": {{Type: "StageError", Message: "sync failed", Severity: harvest.SeverityError}},
		}
		_, err = h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: job.ID, Expected: len(outcomes)}))
		require.NoError(t, err)
		var reports [][]byte
		for id, o := range outcomes {
			out, err := h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledOutcome, JobID: job.ID,
				Key: harvest.IdentifierKey(id), Identifier: id, Outcome: o, Errors: rows[id]}))
			require.NoError(t, err)
			for _, m := range out {
				reports = append(reports, m.Payload)
			}
		}
		require.Len(t, reports, 2)
		var r harvest.Report
		require.NoError(t, json.Unmarshal(reports[0], &r))
		require.Equal(t, [2]string{src.ID, job.ID}, [2]string{r.ID, r.JobID}, "id is the source's, as FDK's")
		res := func(uri string) harvest.Resource { return harvest.Resource{FdkID: harvest.FdkID(uri), URI: uri} }
		require.Equal(t, []harvest.Resource{res(base + "catalog/0")}, r.ChangedCatalogs)
		require.Equal(t, []harvest.Resource{res(base + "dataset/changed"), res(base + "dataset/new")}, r.ChangedResources)
		require.Equal(t, []harvest.Resource{{FdkID: "kept-fdk-id", URI: base + "dataset/old"}}, r.RemovedResources)
		require.Equal(t, harvest.Counts{Total: 6, Added: 1, Updated: 1, Deleted: 1, Unchanged: 1, Errored: 2, Warned: 1},
			r.Counts)

		requireFDKForm(t, reports[1], &r)
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// requireEmptyReport: a job of src that changes nothing reports empty arrays.
func requireEmptyReport(t *testing.T, st store.Store, h *report.Handler, srcID string) {
	t.Helper()
	empty, err := st.JobInsert(t.Context(), &store.JobInsertParams{SourceID: srcID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	out, err := h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: empty.ID, Expected: 0}))
	require.NoError(t, err)
	require.Len(t, out, 2, "the report and its FDK form")
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out[0].Payload, &raw))
	for _, k := range []string{"changedCatalogs", "changedResources", "removedResources"} {
		require.JSONEq(t, `[]`, string(raw[k]), k)
	}
}

// requireFDKForm: the FDK form of report r is an array of one report with FDK's fields; its
// changedResources also name the record that failed validation (FDK's harvester does not
// validate), not the one whose sync failed.
func requireFDKForm(t *testing.T, payload []byte, r *harvest.Report) {
	t.Helper()
	const base = "https://data.norge.no/"
	res := func(uri string) harvest.Resource { return harvest.Resource{FdkID: harvest.FdkID(uri), URI: uri} }
	var fdk []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(payload, &fdk))
	require.Len(t, fdk, 1)
	require.ElementsMatch(t, []string{"id", "url", "dataType", "harvestError", "startTime", "endTime", "errorMessage",
		"changedCatalogs", "changedResources", "removedResources"}, slices.Collect(maps.Keys(fdk[0])))
	require.JSONEq(t, `"`+r.ID+`"`, string(fdk[0]["id"]))
	require.JSONEq(t, `null`, string(fdk[0]["errorMessage"]))
	var start string
	require.NoError(t, json.Unmarshal(fdk[0]["startTime"], &start))
	_, err := time.Parse(report.FDKTimeLayout, start)
	require.NoError(t, err, "FDK's yyyy-MM-dd HH:mm:ss Z")
	var changed []harvest.Resource
	require.NoError(t, json.Unmarshal(fdk[0]["changedResources"], &changed))
	require.Equal(t, []harvest.Resource{res(base + "dataset/bad"), res(base + "dataset/changed"), res(base + "dataset/new")},
		changed)
	require.JSONEq(t, mustJSON(t, r.RemovedResources), string(fdk[0]["removedResources"]))
	require.JSONEq(t, mustJSON(t, r.ChangedCatalogs), string(fdk[0]["changedCatalogs"]))
}

// lookupCounter is a store that keeps the most URIs one ResourceIDs call was asked for and
// the most identifiers one OutcomeIdentifiers call returned; with swap, it returns each page
// of identifiers with its first two swapped (out of byte order, as a Postgres database of
// another collation than C may list them).
type lookupCounter struct {
	store.Store
	swap              bool
	mostIDs, mostList int
}

func (c *lookupCounter) ResourceIDs(ctx context.Context, uris []string, mint func(string) string) (map[string]string, error) {
	c.mostIDs = max(c.mostIDs, len(uris))
	return c.Store.ResourceIDs(ctx, uris, mint)
}

func (c *lookupCounter) OutcomeIdentifiers(ctx context.Context, p *store.OutcomeIdentifiersParams) ([]string, error) {
	ids, err := c.Store.OutcomeIdentifiers(ctx, p)
	c.mostList = max(c.mostList, len(ids))
	if c.swap && len(ids) > 1 {
		ids[0], ids[1] = ids[1], ids[0]
	}
	return ids, err
}

// TestReportHoldsAPage: a job's end names every record it changed with its fdkId, but reads
// the identifiers and looks their ids up (or mints them) 500 at a time while it writes the
// report's bodies, so that it holds a page, not the job's every changed record (issue 37: peak
// RSS flat from 10,000 to 100,000 records). The bodies are the bytes harvest.NewMessage makes of
// the whole report and of its FDK form (FDKReports), with the invalid records merged into the
// FDK form's list by URI; and the same when the store does not list in byte order (the FDK form
// is then built whole).
func TestReportHoldsAPage(t *testing.T) {
	for _, swap := range []bool{false, true} {
		t.Run(fmt.Sprint("swapped=", swap), func(t *testing.T) { testReportHoldsAPage(t, swap) })
	}
}

func testReportHoldsAPage(t *testing.T, swap bool) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		src, job := harvestJob(t, st, &store.SourceEnsureParams{Name: "chunks", URL: "https://example.org/" + t.Name(),
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		counter := &lookupCounter{Store: st, swap: swap}
		h, err := report.New(counter, prometheus.NewRegistry(), nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.NoError(t, err)
		const added, deleted = 1201, 3
		id := func(i int) string { return fmt.Sprintf(`id-%05d"<&>`, i) } // JSON escapes a quote, not HTML's
		invalid := map[int]bool{3: true, 700: true, added + deleted + 1: true}
		var batch []*harvest.Message
		for i := range added + deleted + 2 {
			s := &harvest.Settled{Kind: harvest.SettledOutcome, JobID: job.ID, Key: harvest.IdentifierKey(id(i)),
				Identifier: id(i), Outcome: harvest.OutcomeAdded}
			switch {
			case i >= added+deleted:
				s.Outcome = harvest.OutcomeErrored
			case i >= added:
				s.Outcome = harvest.OutcomeDeleted
			}
			if invalid[i] {
				s.Errors = []harvest.RecordError{{Type: harvest.TypeValidationError, Message: "bad", Severity: harvest.SeverityError}}
			}
			batch = append(batch, settledMessage(t, s))
		}
		for lo := 0; lo < len(batch); lo += report.MaxSettleBatch {
			for _, r := range h.HandleBatch(ctx, batch[lo:min(lo+report.MaxSettleBatch, len(batch))]) {
				require.NoError(t, r.Err)
			}
		}
		out, err := h.Handle(settledMessage(t, &harvest.Settled{Kind: harvest.SettledExpected, JobID: job.ID, Expected: len(batch)}))
		require.NoError(t, err)
		require.Len(t, out, 2, "the job finished: its report and the FDK form")
		var r harvest.Report
		require.NoError(t, json.Unmarshal(out[0].Payload, &r))
		require.Equal(t, src.ID, r.ID)

		res := func(i int) harvest.Resource { return harvest.Resource{FdkID: harvest.FdkID(id(i)), URI: id(i)} }
		whole := r
		whole.ChangedResources, whole.RemovedResources = nil, nil
		for i := range added {
			whole.ChangedResources = append(whole.ChangedResources, res(i))
		}
		for i := added; i < added+deleted; i++ {
			whole.RemovedResources = append(whole.RemovedResources, res(i))
		}
		if swap { // the report lists in the store's order
			require.ElementsMatch(t, whole.ChangedResources, r.ChangedResources)
			require.ElementsMatch(t, whole.RemovedResources, r.RemovedResources)
		} else {
			want, err := harvest.NewMessage(harvest.SubjectReport, &whole)
			require.NoError(t, err)
			require.True(t, string(want.Payload) == string(out[0].Payload), "the report's bytes")
		}
		wantFDK, err := harvest.NewMessage(harvest.SubjectReportFDK, report.FDKReports(&whole, []harvest.Resource{res(3), res(700), res(added + deleted + 1)}))
		require.NoError(t, err)
		if swap { // the FDK form built whole: its changedResources sorted, the removed in the store's order
			var fdk, wantF []report.FDKReport
			require.NoError(t, json.Unmarshal(out[1].Payload, &fdk))
			require.NoError(t, json.Unmarshal(wantFDK.Payload, &wantF))
			require.Equal(t, wantF[0].ChangedResources, fdk[0].ChangedResources)
			require.ElementsMatch(t, wantF[0].RemovedResources, fdk[0].RemovedResources)
		} else {
			require.True(t, string(wantFDK.Payload) == string(out[1].Payload), "the FDK form's bytes")
		}

		if !swap {
			require.LessOrEqual(t, counter.mostIDs, 500, "URIs looked up at once")
			require.LessOrEqual(t, counter.mostList, 500, "identifiers read at once")
		}
	})
}
