package compare_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// Whole harvest jobs of GSA's catalog: what COMPARE decides (added, updated, deleted,
// unchanged) for each job type, and the records and datasets SYNC writes for it.

func TestHarvestIncrementalGSA(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()

	first := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, "complete", first.Status)
	require.Equal(t, 339, first.Added)

	second := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	require.Equal(t, "complete", second.Status)
	require.Equal(t, [5]int{4, 99, 0, 240, 0},
		[5]int{second.Added, second.Updated, second.Deleted, second.Unchanged, second.Errored})
	require.Equal(t, 343, second.Total)

	july := pipelinetest.CatalogRecords(t, "dcatus/agency-gsa-2025-07.data.json")
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: second.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, len(july))
	for _, d := range datasets {
		want, ok := july[d.Identifier]
		require.True(t, ok, "dataset %q is not in the July file", d.Identifier)
		require.JSONEq(t, string(want), string(d.DCAT), d.Identifier)
		rec, err := h.Store.RecordGet(ctx, d.RecordID)
		require.NoError(t, err)
		if rec.JobID == second.JobID {
			require.Equal(t, string(want), rec.SourceRaw, "source_raw keeps the record as written")
		} else {
			require.JSONEq(t, string(want), rec.SourceRaw, "an unchanged record keeps its row")
		}
	}

	rows, err := h.Store.RecordCount(ctx, second.SourceID)
	require.NoError(t, err)
	third := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal})
	pipelinetest.MustComplete(t, third)
	require.Equal(t, 343, third.Unchanged)
	require.Equal(t, 343, third.Total)
	after, err := h.Store.RecordCount(ctx, third.SourceID)
	require.NoError(t, err)
	require.Equal(t, rows, after, "an unchanged run writes no harvest_record rows")
}

func TestHarvestDeletesWhatTheSourceDropped(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	h.HarvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	rep := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, [5]int{0, 99, 4, 240, 0}, [5]int{rep.Added, rep.Updated, rep.Deleted, rep.Unchanged, rep.Errored})
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 339)
}

func TestHarvestJobTypes(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	h.Corpus.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))

	val := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal, JobType: harvest.JobValidate})
	pipelinetest.MustComplete(t, val)
	require.Equal(t, "complete", val.Status)
	require.Equal(t, 339, val.Validated)
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: val.SourceID})
	require.NoError(t, err)
	require.Empty(t, datasets, "validate writes no dataset")
	rows, err := h.Store.RecordCount(ctx, val.SourceID)
	require.NoError(t, err)
	require.Zero(t, rows, "validate leaves no history that a later harvest would compare against")

	harvested := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal})
	pipelinetest.MustComplete(t, harvested)
	require.Equal(t, 339, harvested.Added)

	force := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal, JobType: harvest.JobForceHarvest})
	pipelinetest.MustComplete(t, force)
	require.Equal(t, 339, force.Updated)
	require.Equal(t, 339, force.Total)

	rows, err = h.Store.RecordCount(ctx, harvested.SourceID)
	require.NoError(t, err)
	clear := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal, JobType: harvest.JobClear})
	pipelinetest.MustComplete(t, clear)
	require.Equal(t, "complete", clear.Status)
	require.Equal(t, 339, clear.Deleted)
	require.Equal(t, 339, clear.Total)
	datasets, err = h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: harvested.SourceID})
	require.NoError(t, err)
	require.Empty(t, datasets, "clear deletes every dataset")
	after, err := h.Store.RecordCount(ctx, harvested.SourceID)
	require.NoError(t, err)
	require.Equal(t, rows+339, after, "clear keeps the history and adds a delete record per dataset")

	again := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal})
	pipelinetest.MustComplete(t, again)
	require.Equal(t, 339, again.Added, "after a clear every record is new again")
}

// A record that failed the federal schema is checked again when the source moves to the
// non-federal schema, although its content did not change; and it is then added, not updated,
// because it never was in the catalog. The record that passed is checked again too, and, still
// valid, is unchanged (its dataset is not rewritten). Moving back to the federal schema fails
// the record without codes again (its live dataset is kept).
func TestSchemaChangeRevalidatesUnchangedRecords(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	catalog := filepath.Join(t.TempDir(), "data.json")
	record := `{"identifier":"%s","title":"T","description":"D","keyword":["k"],"modified":"2025-01-01",
		"publisher":{"name":"P"},"contactPoint":{"fn":"F","hasEmail":"mailto:f@example.gov"},"accessLevel":"public"%s}`
	doc := `{"dataset":[` + fmt.Sprintf(record, "federal", `,"bureauCode":["015:11"],"programCode":["015:001"]`) + `,` +
		fmt.Sprintf(record, "no-codes", "") + `]}`
	require.NoError(t, os.WriteFile(catalog, []byte(doc), 0o644))

	src := pipelinetest.Source{URL: catalog, SchemaType: pipelinetest.Federal}
	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	require.Equal(t, [2]int{1, 1}, [2]int{first.Added, first.Errored})

	src.SchemaType = pipelinetest.NonFederal
	second := h.Harvest(t, src)
	pipelinetest.MustComplete(t, second)
	require.Equal(t, 1, second.Added, "the record that only failed the federal schema is added now")
	require.Equal(t, 1, second.Unchanged, "the valid record, validated again")
	require.Equal(t, 2, second.Validated, "both records were validated")
	require.Zero(t, second.Errored)
	datasets, err := h.Store.DatasetList(context.Background(), &store.DatasetListParams{SourceID: second.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 2)

	src.JobType = harvest.JobForceHarvest
	third := h.Harvest(t, src)
	pipelinetest.MustComplete(t, third)
	require.Equal(t, [2]int{0, 2}, [2]int{third.Added, third.Updated}, "both are in the catalog: updates")

	src.SchemaType, src.JobType = pipelinetest.Federal, harvest.JobValidate
	val := h.Harvest(t, src)
	pipelinetest.MustComplete(t, val)
	require.Equal(t, [3]int{0, 1, 1}, [3]int{val.Updated, val.Unchanged, val.Errored}, "a validate job says what a harvest will")

	src.JobType = harvest.JobHarvest
	fourth := h.Harvest(t, src)
	pipelinetest.MustComplete(t, fourth)
	require.Equal(t, [3]int{0, 1, 1}, [3]int{fourth.Updated, fourth.Unchanged, fourth.Errored},
		"stricter again: the record without codes fails, the other is unchanged")
	datasets, err = h.Store.DatasetList(context.Background(), &store.DatasetListParams{SourceID: fourth.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 2, "an invalid record deletes nothing")
}

// A validate job says what a harvest would do, deletes included, and changes nothing.
func TestValidateJobCountsDeletes(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	h.HarvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	h.Corpus.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	val := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal, JobType: harvest.JobValidate})
	pipelinetest.MustComplete(t, val)
	require.Equal(t, [5]int{0, 99, 4, 240, 0}, [5]int{val.Added, val.Updated, val.Deleted, val.Unchanged, val.Errored})
	datasets, err := h.Store.DatasetList(context.Background(), &store.DatasetListParams{SourceID: val.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 343, "validate deleted nothing")
}

// An agency server that suddenly serves an empty (or mostly empty) catalog does not empty the
// catalog: the harvest fails and deletes nothing (DESIGN rule 1). force_harvest may.
func TestHarvestRefusesToDeleteMostOfASource(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	first := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, 339, first.Added)

	empty := filepath.Join(t.TempDir(), "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte(`{"dataset":[]}`), 0o644))
	h.Corpus.Serve(empty)
	src := pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal}
	rep := h.Harvest(t, src)
	require.Equal(t, "error", rep.Status)
	require.Len(t, rep.JobErrors, 1)
	require.Contains(t, rep.JobErrors[0], "DeleteGuard: the listing would delete 339 of the source's 339 live datasets")
	require.Zero(t, rep.Deleted)
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: first.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 339, "nothing was deleted")

	src.JobType = harvest.JobForceHarvest
	forced := h.Harvest(t, src)
	pipelinetest.MustComplete(t, forced)
	require.Equal(t, 339, forced.Deleted, "a force_harvest is not bound")
}

// Issue 25 item 26: a source's shacl_profile is part of what makes a record unchanged. A
// dataset without dct:description passes with no profile, fails DCAT-AP 3.0.0 once the source
// moves to it (stricter: the error appears, the live dataset is kept), and passes again when
// the source moves back (looser: the error goes away). A dataset valid under every profile is
// validated again at each change and stays unchanged: its dataset row is not rewritten. Before
// the fix the graph's fingerprint made each job after the first "not modified", whatever the
// profile.
func TestRDFProfileChangeRevalidates(t *testing.T) {
	t.Parallel()
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	const url = "http://profile.test/catalog.ttl"
	const lacking, valid = "http://profile.test/dataset/1", "http://profile.test/dataset/2"
	site.Serve(url, "text/turtle", []byte(`@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
<http://profile.test/catalog> a dcat:Catalog ; dct:title "C"@en ; dct:description "Catalog"@en ;
	dct:publisher <http://profile.test/org> ; dcat:dataset <`+lacking+`>, <`+valid+`> .
<`+lacking+`> a dcat:Dataset ; dct:title "No description"@en .
<`+valid+`> a dcat:Dataset ; dct:title "Described"@en ; dct:description "A dataset"@en .
`))
	validationErrors := func(jobID string) []string {
		t.Helper()
		return h.ErrorMessages(t, jobID, harvest.SeverityError)
	}
	// run runs a job with the source on profile; it must complete with want (added,
	// updated, unchanged, errored).
	run := func(profile string, want [4]int, msg string) pipelinetest.Report {
		t.Helper()
		r := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, Options: map[string]string{"shacl_profile": profile}})
		pipelinetest.MustComplete(t, r)
		require.Equal(t, want, [4]int{r.Added, r.Updated, r.Unchanged, r.Errored}, msg)
		return r
	}

	loose := run("none", [4]int{2, 0, 0, 0}, "")
	strict := run("dcat-ap-3.0.0", [4]int{0, 0, 1, 1}, "both are validated again; one fails")
	require.Equal(t, 1, strict.Validated)
	require.Contains(t, strings.Join(validationErrors(strict.JobID), "\n"), lacking+" dct:description")
	require.Equal(t, []string{lacking, valid}, h.LiveIdentifiers(t, strict.SourceID), "an invalid record deletes nothing")

	again := run("dcat-ap-3.0.0", [4]int{0, 0, 1, 1}, "same profile: errored still, not checked again")
	require.Contains(t, strings.Join(validationErrors(again.JobID), "\n"), "dct:description", "its rows are carried")

	back := run("none", [4]int{0, 1, 1, 0}, "the dataset without a description passes again")
	require.Empty(t, validationErrors(back.JobID))
	run("none", [4]int{0, 0, 2, 0}, "")
	other := run("dcat-ap-2.1.1", [4]int{0, 0, 1, 1}, "DCAT-AP 2.1.1 wants a description too")
	require.Contains(t, strings.Join(validationErrors(other.JobID), "\n"), lacking+" dct:description")

	ds, err := h.Store.DatasetGet(t.Context(), &store.DatasetGetParams{SourceID: loose.SourceID, Identifier: valid})
	require.NoError(t, err)
	require.Equal(t, harvest.RecordID(loose.JobID, valid), ds.RecordID, "the valid dataset was never rewritten")
}
