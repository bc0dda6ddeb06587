package catalogsync_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// dupRecord is one dataset of a test catalog: its identifier, title and duplicate keys.
type dupRecord struct {
	id, title, landing string
	urls               []string
}

// dupCatalog is a valid DCAT-US 1.1 federal data.json of recs, each made from the sample
// catalog's first dataset (with no landingPage and no distribution unless the record has them).
func dupCatalog(t *testing.T, recs ...dupRecord) []byte {
	t.Helper()
	raw, err := os.ReadFile(pipelinetest.SampleCatalog(t))
	require.NoError(t, err)
	var cat map[string]any
	require.NoError(t, json.Unmarshal(raw, &cat))
	base, err := json.Marshal(cat["dataset"].([]any)[0])
	require.NoError(t, err)
	out := make([]any, 0, len(recs))
	for _, r := range recs {
		var d map[string]any
		require.NoError(t, json.Unmarshal(base, &d))
		d["identifier"], d["title"] = r.id, r.title
		delete(d, "landingPage")
		delete(d, "distribution")
		if r.landing != "" {
			d["landingPage"] = r.landing
		}
		var dists []any
		for _, u := range r.urls {
			dists = append(dists, map[string]any{"@type": "dcat:Distribution", "downloadURL": u, "mediaType": "text/csv"})
		}
		if dists != nil {
			d["distribution"] = dists
		}
		out = append(out, d)
	}
	cat["dataset"] = out
	b, err := json.Marshal(cat)
	require.NoError(t, err)
	return b
}

// dupHarness is a pipeline harness with a site that serves each source's data.json, and the
// store its jobs write (st).
type dupHarness struct {
	*pipelinetest.Harness
	site *pipelinetest.Site
	st   store.Store
}

// newDupHarness runs jobs on Postgres and an in-process NATS server.
func newDupHarness(t *testing.T) *dupHarness {
	h := pipelinetest.New(t)
	return &dupHarness{Harness: h, site: pipelinetest.NewSite(t), st: h.Store}
}

// newDupHarnessSQLite runs jobs on the embedded default: SQLite and NATS in the data directory.
func newDupHarnessSQLite(t *testing.T) *dupHarness {
	h := pipelinetest.New(t)
	h.Config.DatabaseURL, h.Config.NATSURL = "", ""
	st, err := sqlite.Open(t.Context(), filepath.Join(h.Config.DataDir, "harvester.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(t.Context()))
	return &dupHarness{Harness: h, site: pipelinetest.NewSite(t), st: st}
}

// liveIdentifiers returns the sorted identifiers of a source's live datasets.
func (h *dupHarness) liveIdentifiers(t *testing.T, sourceID string) []string {
	t.Helper()
	ds, err := h.st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: sourceID})
	require.NoError(t, err)
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Identifier)
	}
	return out
}

// source creates a federal data.json source named name with precedence and returns it.
func (h *dupHarness) source(t *testing.T, name string, precedence int) *store.Source {
	t.Helper()
	src, err := h.st.SourceInsert(t.Context(), &store.SourceInsertParams{Name: name,
		URL: h.site.URL + "/" + name + "/data.json", SourceType: harvest.SourceDocument,
		SchemaType: pipelinetest.Federal, Precedence: precedence})
	require.NoError(t, err)
	return src
}

// harvest serves recs as src's data.json and harvests it; the job must complete.
func (h *dupHarness) harvest(t *testing.T, src *store.Source, recs ...dupRecord) pipelinetest.Report {
	t.Helper()
	h.site.Serve(src.URL, "application/json", dupCatalog(t, recs...))
	rep := h.Harvest(t, pipelinetest.Source{URL: src.URL, SchemaType: pipelinetest.Federal})
	pipelinetest.MustComplete(t, rep)
	return rep
}

// setPrecedence changes a source's precedence, keeping its other fields.
func (h *dupHarness) setPrecedence(t *testing.T, src *store.Source, precedence int) {
	t.Helper()
	_, err := h.st.SourceUpdate(t.Context(), &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: store.SourceInsertParams{
		OrganizationID: src.OrganizationID, Name: src.Name, URL: src.URL, SourceType: src.SourceType,
		SchemaType: src.SchemaType, Frequency: src.Frequency, Precedence: precedence}})
	require.NoError(t, err)
}

// duplicateWarnings counts the CrossSourceDuplicate rows (warnings) the job wrote itself (an
// unchanged record carries its earlier job's rows: those are not counted).
func (h *dupHarness) duplicateWarnings(t *testing.T, jobID string) int {
	t.Helper()
	n := 0
	require.NoError(t, h.st.RecordErrorStream(t.Context(), jobID, func(e *store.RecordError) error {
		if e.Type == harvest.TypeCrossSourceDuplicate {
			require.Equal(t, harvest.SeverityWarning, e.Severity)
			if e.CarriedFromJobID == "" {
				n++
			}
		}
		return nil
	}))
	return n
}

// pairs returns the cross-source duplicate pairs of the filter.
func (h *dupHarness) pairs(t *testing.T, p store.CrossSourceDuplicateListParams) []store.CrossSourceDuplicate {
	t.Helper()
	p.Limit = 10000
	out, total, err := h.st.CrossSourceDuplicateList(t.Context(), &p)
	require.NoError(t, err)
	require.Len(t, out, total)
	return out
}

// indexed is how many search documents the source has.
func (h *dupHarness) indexed(t *testing.T, sourceID string) int {
	t.Helper()
	return h.Search(t, search.Query{SourceID: sourceID}).Total
}

// shared is n records with identifiers shared-00.., titled with the source's word.
func shared(n int, word string) []dupRecord {
	recs := make([]dupRecord, n)
	for i := range recs {
		recs[i] = dupRecord{id: fmt.Sprintf("shared-%02d", i), title: fmt.Sprintf("%s dataset %d", word, i)}
	}
	return recs
}

// TestCrossSourceDuplicatePrecedence is issue 27's acceptance: two sources with 30 shared
// identifiers end with 30 CrossSourceDuplicate warning rows on the job that found them, one
// live dataset each, the precedence respected; flipping the precedence swaps them on the next
// harvest of either source, with records unchanged, and deletes no record or dataset.
func TestCrossSourceDuplicatePrecedence(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(t *testing.T) *dupHarness{"postgres": newDupHarness,
		"sqlite": newDupHarnessSQLite} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testPrecedence(t, open(t))
		})
	}
}

func testPrecedence(t *testing.T, h *dupHarness) {
	agg := h.source(t, "aggregator", -10)
	own := h.source(t, "agency", 0)
	aggRecs := append(shared(30, "Aggregated"), dupRecord{id: "agg-only-1", title: "Only here 1"},
		dupRecord{id: "agg-only-2", title: "Only here 2"})
	ownRecs := append(shared(30, "Agency"), dupRecord{id: "own-only", title: "Agency's own"})

	first := h.harvest(t, agg, aggRecs...)
	require.Equal(t, 32, first.Added)
	require.Zero(t, h.duplicateWarnings(t, first.JobID))

	found := h.harvest(t, own, ownRecs...)
	require.Equal(t, 31, found.Added, "warnings do not make a record errored")
	require.Zero(t, found.Errored)
	require.Equal(t, 30, found.Warned)
	require.Equal(t, 30, h.duplicateWarnings(t, found.JobID))
	require.Len(t, h.liveIdentifiers(t, own.ID), 31)
	require.Equal(t, []string{"agg-only-1", "agg-only-2"}, h.liveIdentifiers(t, agg.ID), "the agency's source wins")
	pairs := h.pairs(t, store.CrossSourceDuplicateListParams{JobID: found.JobID})
	require.Len(t, pairs, 30)
	for _, p := range pairs {
		require.Equal(t, own.ID, p.Kept.SourceID)
		require.Equal(t, agg.ID, p.Held.SourceID)
		require.Equal(t, store.MatchIdentifier, p.Match)
		require.Equal(t, p.Kept.Identifier, p.Key)
	}
	require.Equal(t, 31, h.indexed(t, own.ID))
	require.Equal(t, 2, h.indexed(t, agg.ID), "a held dataset is not searchable")
	aggRecords, err := h.st.RecordCount(t.Context(), agg.ID)
	require.NoError(t, err)

	// The aggregator now ranks first: the agency's unchanged records are judged again.
	h.setPrecedence(t, agg, 10)
	flipped := h.harvest(t, own, ownRecs...)
	require.Equal(t, 30, flipped.Updated)
	require.Equal(t, 1, flipped.Unchanged)
	require.Zero(t, flipped.Deleted)
	require.Equal(t, 30, h.duplicateWarnings(t, flipped.JobID))
	require.Equal(t, []string{"own-only"}, h.liveIdentifiers(t, own.ID))
	require.Len(t, h.liveIdentifiers(t, agg.ID), 32)
	require.Equal(t, 1, h.indexed(t, own.ID))
	require.Equal(t, 32, h.indexed(t, agg.ID))
	pairs = h.pairs(t, store.CrossSourceDuplicateListParams{SourceID: own.ID})
	require.Len(t, pairs, 30)
	for _, p := range pairs {
		require.Equal(t, agg.ID, p.Kept.SourceID)
		require.Equal(t, found.JobID, p.FirstJobID, "a swapped pair keeps the job that found it")
	}
	n, err := h.st.RecordCount(t.Context(), agg.ID)
	require.NoError(t, err)
	require.Equal(t, aggRecords, n, "no record of the other source is deleted")

	// Flip back, and harvest the other source this time: it swaps them too.
	h.setPrecedence(t, agg, -10)
	back := h.harvest(t, agg, aggRecs...)
	require.Equal(t, 30, back.Updated)
	require.Equal(t, 2, back.Unchanged)
	require.Equal(t, 30, h.duplicateWarnings(t, back.JobID))
	require.Len(t, h.liveIdentifiers(t, own.ID), 31)
	require.Equal(t, []string{"agg-only-1", "agg-only-2"}, h.liveIdentifiers(t, agg.ID))
	require.Equal(t, 31, h.indexed(t, own.ID))
	require.Equal(t, 2, h.indexed(t, agg.ID))

	// Nothing changed: no flapping, nothing judged again.
	again := h.harvest(t, own, ownRecs...)
	require.Equal(t, 31, again.Unchanged)
	require.Len(t, h.liveIdentifiers(t, own.ID), 31)
	require.Len(t, h.pairs(t, store.CrossSourceDuplicateListParams{}), 30)
}
