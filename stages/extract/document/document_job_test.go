package document_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
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

func TestHarvestBrokenSourceDeletesNothing(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	first := h.HarvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	require.Equal(t, 339, first.Added)

	for _, tc := range []struct {
		name   string
		file   string
		status int
		want   []string // in the job error
	}{
		{"not json", "dcatus/INVALID-not-json.data.json", 0, []string{"ParseError", "line 3, column 5"}},
		{"json but not a catalog", "dcatus/INVALID-json-but-not-catalog.json", 0, []string{"ParseError", `no "dataset" array`}},
		{"malformed mid-file", "dcatus/INVALID-cfpb-malformed-geojson-spatial.data.json", 0, []string{"ParseError", "line 82, column 7"}},
		{"legacy array", "dcatus/pod-v1.0-legacy-array-catalog-sample.json", 0, []string{"Project Open Data 1.0"}},
		{"an HTML page", "waf/apache-noaa-garfo.html", 0, []string{"ParseError", "HTML page (title \"Index of"}},
		{"http 404", "", http.StatusNotFound, []string{"ExtractError", "HTTP 404 Not Found"}},
		{"http 500", "", http.StatusInternalServerError, []string{"ExtractError", "HTTP 500 Internal Server Error"}},
	} {
		if tc.status != 0 {
			h.Corpus.Fail(tc.status)
		} else {
			h.Corpus.Serve(corpustest.Path(t, tc.file))
		}
		rep := h.Harvest(t, pipelinetest.Source{URL: h.Corpus.URL(), SchemaType: pipelinetest.Federal})
		require.Equal(t, "error", rep.Status, tc.name)
		require.Len(t, rep.JobErrors, 1, tc.name)
		for _, w := range tc.want {
			require.Contains(t, rep.JobErrors[0], w, tc.name)
		}
		require.Zero(t, rep.Deleted+rep.Added+rep.Updated, tc.name)
		datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: first.SourceID})
		require.NoError(t, err)
		require.Len(t, datasets, 339, "%s: the source keeps all its datasets", tc.name)
	}
}

// federal and nonFederal are the DCAT-US 1.1 schema types.
const federal, nonFederal = pipelinetest.Federal, pipelinetest.NonFederal

// A document of another kind than the schema type expects (RDF for a DCAT-US or ISO schema
// type, DCAT-US 1.1 for 3.0 and the reverse), fails the job with a job error that says so,
// never a generic parse error or a complete job.
func TestHarvestWrongKindOfDocument(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	for _, c := range []struct {
		file   string
		schema harvest.SchemaType
		want   string
	}{
		{"dcatus/datagov-cftc.data.json", "iso19115_2", `the document is JSON, not ISO 19115 XML, as schema type "iso19115_2" expects: for a DCAT-US data.json use schema type "dcatus1.1: federal"`},
		{"iso19115/datagov-valid-iso2-gmi.xml", federal, `the document is XML, not a DCAT-US catalog (JSON), as schema type "dcatus1.1: federal" expects: for ISO 19115 XML use schema type "iso19115_1" or "iso19115_2"`},
		{"iso19115/catalog-data-gov-noaa-wcsd-leading-whitespace-gmi.xml", nonFederal, "the document is XML, not a DCAT-US catalog"},
		{"dcatus/datagov-cftc.data.json", harvest.SchemaFGDC, `the document is JSON, not FGDC CSDGM XML, as schema type "fgdc" expects`},
		{"iso19115/fgdc-usgs-white-fronted-goose.xml", nonFederal, `for FGDC CSDGM XML "fgdc"`},
		{"dcatap/ckan-demo-catalog-hydra.ttl", federal, "the document is Turtle or N-Triples (RDF): harvest an RDF document (DCAT-AP) as --source-type rdf --schema-type dcat-ap"},
		{"dcatap/ckan-demo-catalog-hydra.ttl", "iso19115_1", "--source-type rdf --schema-type dcat-ap"},
		{"dcatap/semic-2.1.1-example1.nt", federal, "the document is Turtle or N-Triples (RDF)"},
		{"dcatap/ckan-demo-catalog-hydra.rdf", federal, "the document is RDF/XML: harvest an RDF document (DCAT-AP) as --source-type rdf --schema-type dcat-ap"},
		{"dcatap/geonetwork-sig-oreme-catalogrecords.rdf", "iso19115_2", "the document is RDF/XML"},
		{"dcatus/dcatus3-catalog.json", federal, `wrong schema type: the document is a DCAT-US 3.0 catalog, not DCAT-US 1.1; harvest it with schema type "dcatus3.0" (conformsTo {"@type":"Standard","title":"DCAT-US 3.0"})`},
		{"dcatus/dcatus3-series-with-members.json", nonFederal, "wrong schema type"},
		{"dcatus/datagov-cftc.data.json", harvest.SchemaDCATUS30, `wrong schema type: the document is a DCAT-US 1.1 catalog, not DCAT-US 3.0`},
	} {
		rep := h.Harvest(t, pipelinetest.Source{URL: corpustest.Path(t, c.file), SchemaType: c.schema})
		require.Equal(t, "error", rep.Status, c.file)
		require.Len(t, rep.JobErrors, 1, c.file)
		require.Contains(t, rep.JobErrors[0], c.want, c.file)
		require.Zero(t, rep.Total, "no record moves: %s", c.file)
	}
}

// TestHarvestBadRecordsAreErrorRows runs records that once failed whole jobs through every stage
// on Postgres and NATS (default 1 MiB max payload): each is one error row, and a record that
// is in the source, only unusable this time, keeps its dataset. A 2 MiB record, over the
// message size, is harvested (its body travels by reference); one over the 16 MiB record size
// cap is an error row naming its size and the cap.
func TestHarvestBadRecordsAreErrorRows(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "data.json")
	write := func(records ...string) {
		require.NoError(t, os.WriteFile(path, []byte(`{"dataset":[`+strings.Join(records, ",")+`]}`), 0o644))
	}
	ok := pipelinetest.SampleRecord(t, "ok", "Fine.")
	html := pipelinetest.SampleRecord(t, "html", strings.Repeat("<p>a &amp; b</p>", 40000)) // 640 KB; 3.8 MB if escaped
	write(ok, html, pipelinetest.SampleRecord(t, "big", "Small for now."), pipelinetest.SampleRecord(t, "latin1", "Café"),
		pipelinetest.SampleRecord(t, "huge", "Small for now."))
	src := pipelinetest.Source{URL: path, SchemaType: pipelinetest.Federal}
	first := h.Harvest(t, src)
	pipelinetest.MustComplete(t, first)
	require.Equal(t, [2]int{5, 0}, [2]int{first.Added, first.Errored}, "%+v", first)

	latin1 := bytes.ReplaceAll([]byte(pipelinetest.SampleRecord(t, "latin1", "Café, now in Latin-1")), []byte("é"), []byte{0xe9})
	bigNotes := strings.Repeat("x", 2<<20)
	huge := pipelinetest.SampleRecord(t, "huge", strings.Repeat("y", 17<<20))
	write(ok, html, pipelinetest.SampleRecord(t, "big", bigNotes), string(latin1),
		strings.Replace(ok, `"identifier":"ok"`, `"identifier":"nul\u0000id"`, 1), huge)
	rep := h.Harvest(t, src)
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, [5]int{6, 2, 1, 3, 0}, [5]int{rep.Total, rep.Unchanged, rep.Updated, rep.Errored, rep.Deleted},
		"huge and latin1 are still in the source: not deleted")
	errs, total, err := h.Store.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: rep.JobID})
	require.NoError(t, err)
	require.Equal(t, 3, total)
	types := map[string]string{}
	for _, e := range errs {
		types[e.Type] = e.Identifier
		if e.Type == "RecordTooLarge" {
			require.Contains(t, e.Message, fmt.Sprintf("is %d bytes, over the record size cap of %d bytes", len(huge), 16<<20))
		}
	}
	require.Equal(t, map[string]string{"RecordTooLarge": "huge", "InvalidEncoding": "latin1", "InvalidIdentifier": ""}, types)
	for _, id := range []string{"huge", "latin1"} {
		_, err := h.Store.DatasetGet(ctx, &store.DatasetGetParams{SourceID: rep.SourceID, Identifier: id})
		require.NoError(t, err, "%s keeps its dataset", id)
	}
	d, err := h.Store.DatasetGet(ctx, &store.DatasetGetParams{SourceID: rep.SourceID, Identifier: "big"})
	require.NoError(t, err)
	var dcat struct{ Notes string }
	require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
	require.Equal(t, bigNotes, dcat.Notes, "the 2 MiB record went through every stage whole")

	// On the embedded default (the in-process server) too.
	h.Config.DatabaseURL, h.Config.NATSURL, h.Config.DataDir, h.Config.SearchIndex = "", "", t.TempDir(), "none"
	emb := h.Harvest(t, src)
	pipelinetest.MustComplete(t, emb)
	require.Equal(t, [3]int{6, 3, 3}, [3]int{emb.Total, emb.Added, emb.Errored}, "%+v", emb)
}

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
