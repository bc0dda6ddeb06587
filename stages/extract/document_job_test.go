package extract_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

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

// A document of another kind than the schema type expects (RDF for a DCAT-US or ISO schema type),
// fails the job with a job error that says so, never a generic parse error or a complete job.
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
		{"dcatap/ckan-demo-catalog-hydra.ttl", federal, "the document is Turtle or N-Triples (RDF): harvest an RDF document (DCAT-AP) as --source-type rdf --schema-type dcat-ap"},
		{"dcatap/ckan-demo-catalog-hydra.ttl", "iso19115_1", "--source-type rdf --schema-type dcat-ap"},
		{"dcatap/semic-2.1.1-example1.nt", federal, "the document is Turtle or N-Triples (RDF)"},
		{"dcatap/ckan-demo-catalog-hydra.rdf", federal, "the document is RDF/XML: harvest an RDF document (DCAT-AP) as --source-type rdf --schema-type dcat-ap"},
		{"dcatap/geonetwork-sig-oreme-catalogrecords.rdf", "iso19115_2", "the document is RDF/XML"},
		{"dcatus/dcatus3-catalog.json", federal, `wrong schema type: the document is a DCAT-US 3.0 catalog, not DCAT-US 1.1; harvest it with schema type "dcatus3.0" (conformsTo {"@type":"Standard","title":"DCAT-US 3.0"})`},
		{"dcatus/dcatus3-series-with-members.json", nonFederal, "wrong schema type"},
	} {
		rep := h.Harvest(t, pipelinetest.Source{URL: corpustest.Path(t, c.file), SchemaType: c.schema})
		require.Equal(t, "error", rep.Status, c.file)
		require.Len(t, rep.JobErrors, 1, c.file)
		require.Contains(t, rep.JobErrors[0], c.want, c.file)
		require.Zero(t, rep.Total, "no record moves: %s", c.file)
	}
}
