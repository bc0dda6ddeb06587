package extract_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// dcatus3Dataset is what the DCAT-US 3.0 acceptance tests compare of a dataset row.
type dcatus3Dataset struct{ Identifier, RecordType, IsPartOf string }

// harvest3 harvests a DCAT-US 3.0 corpus file as a dcatus3.0 source through the whole pipeline
// and returns the report, the dataset rows (sorted by identifier) and the record error rows.
func harvest3(t *testing.T, file string) (pipelinetest.Report, []dcatus3Dataset, []*store.RecordError) {
	t.Helper()
	h := pipelinetest.New(t)
	h.Corpus.Serve(corpustest.Path(t, "dcatus/"+file))
	rep := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: harvest.SchemaDCATUS30})
	require.Equal(t, "complete", rep.Status, "%s: %v", file, rep.JobErrors)
	ctx := context.Background()
	ds, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	var out []dcatus3Dataset
	for _, d := range ds {
		var f struct {
			IsPartOf string `json:"isPartOf"`
		}
		_ = json.Unmarshal(d.DCAT, &f)
		out = append(out, dcatus3Dataset{d.Identifier, d.RecordType, f.IsPartOf})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Identifier < out[j].Identifier })
	errs, _, err := h.Store.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: rep.JobID})
	require.NoError(t, err)
	return rep, out, errs
}

// Acceptance (issue 17, items 1 and 2): every DCAT-US 3.0 file of the corpus harvested end to
// end: one dataset row per record with its record type and parent link, the invalid item an
// error row naming its path while the rest are added, warnings counted and never errors.
func TestHarvestDCATUS3Corpus(t *testing.T) {
	t.Parallel()
	const series = "https://example.gov/series/annual-report"
	for _, c := range []struct {
		file           string
		added, errored int
		datasets       []dcatus3Dataset
		errs           []string // "severity type: message" substrings, one per error row
	}{
		{file: "dcatus3-catalog.json", added: 4, datasets: []dcatus3Dataset{
			{"NCDC-CLIMATE-OBS-2024", "dataset", ""},
			{"https://example.gov/datasets/one", "dataset", ""},
			{"https://example.gov/datasets/three", "dataset", ""},
			{"https://example.gov/datasets/two", "dataset", ""}}},
		{file: "dcatus3-nested-catalog.json", added: 3, datasets: []dcatus3Dataset{
			{"https://example.gov/datasets/nested-child", "dataset", ""},
			{"https://example.gov/datasets/nested-grandchild", "dataset", ""},
			{"https://example.gov/datasets/nested-parent", "dataset", ""}}},
		{file: "dcatus3-series-with-members.json", added: 3, datasets: []dcatus3Dataset{
			{"https://example.gov/datasets/annual-report-2023", "dataset", series},
			{"https://example.gov/datasets/annual-report-2024", "dataset", series},
			{series, "datasetseries", ""}}},
		{file: "dcatus3-series-member-also-top-level.json", added: 3, datasets: []dcatus3Dataset{
			{"https://example.gov/datasets/annual-report-2023", "dataset", series},
			{"https://example.gov/datasets/annual-report-2024", "dataset", series},
			{series, "datasetseries", ""}}},
		{file: "dcatus3-service-serves-dataset.json", added: 2, datasets: []dcatus3Dataset{
			{"https://example.gov/datasets/served-by-service-one", "dataset", "https://example.gov/services/one"},
			{"https://example.gov/services/one", "dataservice", ""}}},
		{file: "dcatus3-with-services.json", added: 3, datasets: []dcatus3Dataset{
			{"https://example.gov/datasets/one", "dataset", ""},
			{"https://example.gov/services/one", "dataservice", ""},
			{"https://example.gov/services/two", "dataservice", ""}}},
		{file: "dcatus3-with-records.json", added: 3, datasets: []dcatus3Dataset{
			{"https://example.gov/catalog-records/one", "catalogrecord", ""},
			{"https://example.gov/catalog-records/two", "catalogrecord", ""},
			{"https://example.gov/datasets/one", "dataset", ""}}},
		{file: "dcatus3-record-no-id.json", added: 2, datasets: []dcatus3Dataset{
			{"https://example.gov/datasets/one", "dataset", ""},
			{catalog.SynthesizedRecordID("https://example.gov/datasets/one", "2024-06-15"), "catalogrecord", ""}}},
		{file: "dcatus3-service-no-identifier.json", added: 1, errored: 1, datasets: []dcatus3Dataset{
			{"https://example.gov/datasets/one", "dataset", ""}},
			errs: []string{"error MissingIdentifier: data service #2 at $.service[0]"}},
		{file: "INVALID-dcatus3-missing-contactpoint.json", added: 1, errored: 1, datasets: []dcatus3Dataset{
			{"https://example.gov/datasets/valid", "dataset", ""}},
			errs: []string{"error ValidationError: $: 'contactPoint' is a required property"}},
		{file: "INVALID-dcatus3-no-identifier.json", errored: 1,
			errs: []string{`error MissingIdentifier: dataset #1 at $.dataset[0] (title "Dataset With Invalid Object Identifier") has an Identifier object with no usable "@id" or "notation"`}},
	} {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			rep, datasets, errs := harvest3(t, c.file)
			for _, e := range errs {
				t.Logf("%s %s %s: %s", e.Identifier, e.Severity, e.Type, e.Message)
			}
			require.Equal(t, c.added, rep.Added, "added")
			require.Equal(t, c.errored, rep.Errored, "errored")
			require.Equal(t, c.datasets, datasets)
			var got []string
			for _, e := range errs {
				got = append(got, string(e.Severity)+" "+e.Type+": "+e.Message)
			}
			require.Len(t, got, len(c.errs), "%q", got)
			for i, want := range c.errs {
				require.Contains(t, got[i], want)
			}
		})
	}
}

// Acceptance (issue 17, item 2): dcatus3-warning.json: 3 added, the two records that trip a
// warning rule each with its warning row, and the job report counts them as warned.
func TestHarvestDCATUS3Warnings(t *testing.T) {
	t.Parallel()
	rep, datasets, errs := harvest3(t, "dcatus3-warning.json")
	require.Equal(t, 3, rep.Added)
	require.Zero(t, rep.Errored)
	require.Len(t, datasets, 3)
	require.Equal(t, 2, rep.Warned, "records with warnings")
	byID := map[string][]string{}
	for _, e := range errs {
		require.Equal(t, "warning", string(e.Severity), e.Message)
		byID[e.Identifier] = append(byID[e.Identifier], e.Message)
	}
	require.Equal(t, map[string][]string{
		"https://example.gov/datasets/warning-one": {`$.issued: issued "2030-01-01" is later than modified "2020-01-01"`},
		"https://example.gov/datasets/warning-two": {`$.distribution[0].mediaType: "notareal/type" is not an IANA media type`},
	}, byID)
}

// A DCAT-US 1.1 source handed a 3.0 catalog, or the reverse, fails with "wrong schema type".
func TestHarvestDCATUS3WrongSchemaType(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	for _, c := range []struct {
		file   string
		schema harvest.SchemaType
		want   string
	}{
		{"dcatus/dcatus3-catalog.json", pipelinetest.Federal, `wrong schema type: the document is a DCAT-US 3.0 catalog, not DCAT-US 1.1; harvest it with schema type "dcatus3.0"`},
		{"dcatus/datagov-cftc.data.json", harvest.SchemaDCATUS30, `wrong schema type: the document is a DCAT-US 1.1 catalog, not DCAT-US 3.0`},
	} {
		rep := h.Harvest(t, pipelinetest.Source{URL: corpustest.Path(t, c.file), SchemaType: c.schema})
		require.Equal(t, "error", rep.Status, c.file)
		require.Len(t, rep.JobErrors, 1, c.file)
		require.True(t, strings.Contains(rep.JobErrors[0], c.want), "%s: %s", c.file, rep.JobErrors[0])
		require.Zero(t, rep.Total)
	}
}
