package setupstest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/stages/extract/portal/portaltest"
	"github.com/harvester-dev/harvester/store"
)

// corpusHarvest is one harvest job that every setup runs, in the order of corpusHarvests:
// later harvests of a source see what earlier ones left.
type corpusHarvest struct {
	name string
	// serve, when set, changes what the agency servers answer before the job (once, for
	// every setup).
	serve func(t *testing.T, w *web)
	run   func(t *testing.T, w *web, h *pipelinetest.Harness) pipelinetest.Report
	// queries are searched on the harvest's source after the job, besides the organization
	// filter; nil: a text query and a keyword filter taken from the source's first dataset.
	queries []namedQuery
	// want, when set, are the job's counts on every setup.
	want *harvest.Counts
}

// web is the agencies' servers every setup harvests from: one set, so that the URLs in
// identifiers and bodies are the same on every setup.
type web struct {
	site *pipelinetest.Site // data.json documents by path; RDF documents by absolute URL (the RDF jobs' proxy)
	waf  *httptest.Server   // WAF listings and their ISO and FGDC records
	ckan *portaltest.CKAN
}

// organization is the organization of every source the test harvests but VA's: its name in
// an organization filter must find exactly the source's datasets on every setup.
const organization = "Corpus Publishers' Office"

const va = "Department of Veterans Affairs"

// dataJSON is the harvest of the data.json the site serves at /<file>, as schema.
func dataJSON(file string, schema harvest.SchemaType) corpusHarvest {
	return corpusHarvest{name: file,
		serve: func(t *testing.T, w *web) {
			w.site.ServeCorpus(t, w.site.URL+"/"+file, "application/json", "dcatus/"+file)
		},
		run: func(t *testing.T, w *web, h *pipelinetest.Harness) pipelinetest.Report {
			return h.Harvest(t, pipelinetest.Source{URL: w.site.URL + "/" + file, SchemaType: schema, Organization: organization})
		}}
}

// schemaOf is the schema type a corpus data.json is harvested as: DCAT-US 3.0 for the 3.0
// files, non-federal DCAT-US 1.1 for the cities' and ArcGIS Hub's, federal for the rest.
func schemaOf(file string) harvest.SchemaType {
	switch {
	case strings.Contains(file, "dcatus3"):
		return harvest.SchemaDCATUS30
	case strings.HasPrefix(file, "city-"), strings.HasPrefix(file, "arcgis-"):
		return harvest.SchemaDCATUS11NonFederal
	}
	return harvest.SchemaDCATUS11Federal
}

// bigDataJSON are the corpus data.json files left out for time (1.3 to 3.9 MB each; VA, the
// largest, is in): they hold nothing the others lack that a setup could treat differently.
var bigDataJSON = map[string]bool{"agency-cms-2025-07.data.json": true, "agency-healthdata-gov-2019.data.json": true,
	"agency-dhs-2025-07.data.json": true, "agency-energy-2025-07.data.json": true}

// corpusHarvests are the harvests compared: VA's data.json (with its temporal values, invalid
// records and repeated identifiers), GSA's January capture then its July one on the same URL
// (updates and deletes), every other corpus data.json (DCAT-US 1.1 and 3.0, invalid ones failing
// their jobs) but the big ones, ISO 19115 and FGDC records from two WAF listings, two DCAT-AP
// catalogs (Turtle with Hydra paging, and DCAT-AP 3.0 HVD), and a CKAN portal.
func corpusHarvests(t *testing.T) []corpusHarvest {
	t.Helper()
	vaHarvest := dataJSON("agency-va-2025-07.data.json", harvest.SchemaDCATUS11Federal)
	vaHarvest.run = func(t *testing.T, w *web, h *pipelinetest.Harness) pipelinetest.Report {
		return h.Harvest(t, pipelinetest.Source{URL: w.site.URL + "/" + vaHarvest.name, SchemaType: harvest.SchemaDCATUS11Federal,
			Organization: va})
	}
	// Issue 33's numbers: 1,856 records, 160 of them invalid or a repeated identifier.
	vaHarvest.want = &harvest.Counts{Total: 1856, Added: 1696, Errored: 160, Validated: 1696}
	vaHarvest.queries = []namedQuery{{"text veterans health", search.Query{Text: "veterans health"}},
		{"keyword veterans", search.Query{Keyword: "veterans"}}}
	gsaJanuary := dataJSON("agency-gsa-2025-01.data.json", harvest.SchemaDCATUS11Federal)
	gsaJuly := gsaJanuary
	gsaJuly.name = "agency-gsa-2025-07.data.json on the January capture's URL"
	gsaJuly.serve = func(t *testing.T, w *web) {
		w.site.ServeCorpus(t, w.site.URL+"/"+gsaJanuary.name, "application/json", "dcatus/agency-gsa-2025-07.data.json")
	}
	out := []corpusHarvest{vaHarvest, gsaJanuary, gsaJuly}

	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "dcatus", "*.json"))
	require.NoError(t, err)
	for _, f := range files {
		name := filepath.Base(f)
		if bigDataJSON[name] || name == vaHarvest.name || strings.HasPrefix(name, "agency-gsa-") {
			continue
		}
		out = append(out, dataJSON(name, schemaOf(name)))
	}

	for _, listing := range []string{"/dggs/", "/iso/"} {
		out = append(out, corpusHarvest{name: "WAF " + listing,
			run: func(t *testing.T, w *web, h *pipelinetest.Harness) pipelinetest.Report {
				return h.Harvest(t, pipelinetest.Source{URL: w.waf.URL + listing, SourceType: harvest.SourceWAF,
					SchemaType: harvest.SchemaISO19115_2, Organization: organization})
			}})
	}
	for _, rdf := range []struct{ url, contentType, file string }{
		{"http://demo.ckan.org/catalog.ttl", "text/turtle", "dcatap/ckan-demo-catalog-hydra.ttl"},
		{"http://hvd.test/catalogue.ttl", "text/turtle", "dcatap/semic-hvd-3.0-ms-catalogue.ttl"},
	} {
		out = append(out, corpusHarvest{name: "DCAT-AP " + rdf.file,
			serve: func(t *testing.T, w *web) {
				w.site.ServeCorpus(t, rdf.url, rdf.contentType, rdf.file)
				w.site.ServeCKANLastPage()
			},
			run: func(t *testing.T, w *web, h *pipelinetest.Harness) pipelinetest.Report {
				return h.HarvestRDF(t, w.site, pipelinetest.Source{URL: rdf.url, Organization: organization})
			}})
	}
	return append(out, corpusHarvest{name: "CKAN portal",
		run: func(t *testing.T, w *web, h *pipelinetest.Harness) pipelinetest.Report {
			return h.Harvest(t, pipelinetest.Source{URL: w.ckan.URL(), SourceType: harvest.SourceCKAN,
				SchemaType: harvest.SchemaDCATUS11NonFederal, Organization: organization})
		}})
}

// TestCorpusHarvestsAgreeOnBothSetups: the corpus's example harvests give the same job counts,
// job errors, error rows, datasets, index documents and search hit sets on the embedded default
// and on the production setup, harvest after harvest; on each, every live dataset is indexed.
// Issue 33: OpenSearch's strict mapping lacked `temporal`, and every VA record with one failed
// SYNC there (added 945, errored 911) while bleve took them (added 1,696, errored 160).
func TestCorpusHarvestsAgreeOnBothSetups(t *testing.T) {
	t.Parallel()
	w := &web{site: pipelinetest.NewSite(t), waf: newWAFServer(t), ckan: portaltest.NewCKAN(t, portaltest.CorpusPackages(t))}
	setups := []*setup{embeddedSetup(t), productionSetup(t)}
	for _, c := range corpusHarvests(t) {
		if c.serve != nil {
			c.serve(t, w)
		}
		reps := make([]pipelinetest.Report, len(setups))
		for i, s := range setups {
			reps[i] = c.run(t, w, s.h)
		}
		queries := c.queries
		if queries == nil {
			queries = firstDatasetQueries(t, setups[0].st, reps[0].SourceID)
		}
		org := organization
		if c.name == "agency-va-2025-07.data.json" {
			org = va
		}
		queries = append(queries, namedQuery{"organization " + org, search.Query{Organization: org}})
		views := make([]view, len(setups))
		for i, s := range setups {
			views[i] = s.look(t, reps[i], queries)
		}
		t.Logf("%s: %s, %+v, %d error rows, %d datasets", c.name, views[0].Status, views[0].Counts, len(views[0].Errors),
			len(views[0].Datasets))
		requireSameViews(t, c.name, setups, views)
		for i, v := range views {
			if c.want != nil {
				require.Equal(t, *c.want, v.Counts, "%s on %s", c.name, setups[i].name)
			}
		}
	}
}

// firstDatasetQueries are a text query (the longest word of the title) and a keyword filter
// (its first keyword) taken from the first live dataset of a source, by identifier; none for a
// source without datasets.
func firstDatasetQueries(t *testing.T, st store.Store, sourceID string) []namedQuery {
	t.Helper()
	ds, err := st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: sourceID})
	require.NoError(t, err)
	if len(ds) == 0 {
		return nil
	}
	var d struct {
		Title   string `json:"title"`
		Keyword []any  `json:"keyword"`
	}
	_ = json.Unmarshal(ds[0].DCAT, &d) // a field of another shape is left out
	var out []namedQuery
	word := ""
	for _, f := range strings.Fields(d.Title) {
		if len(f) > len(word) {
			word = f
		}
	}
	if word != "" {
		out = append(out, namedQuery{"text " + word, search.Query{Text: word}})
	}
	if len(d.Keyword) > 0 {
		if k, ok := d.Keyword[0].(string); ok {
			out = append(out, namedQuery{"keyword " + k, search.Query{Keyword: k}})
		}
	}
	return out
}

// newWAFServer serves two WAF listings: at /dggs/ the corpus's nginx capture of Alaska DGGS's
// listing, its two .xml links answered with two corpus records (ISO 19115-2 and FGDC); at /iso/
// an nginx-style listing of the corpus's other ISO 19115 and FGDC files (valid, odd and
// invalid), each served as is.
func newWAFServer(t *testing.T) *httptest.Server {
	t.Helper()
	paths := map[string]string{ // URL path -> corpus file
		"/dggs/":           corpustest.Path(t, "waf/nginx-alaska-dggs.html"),
		"/dggs/AOF125.xml": corpustest.Path(t, "iso19115/noaa-class-cw-region-nodc-0099041-gmi.xml"),
		"/dggs/AOF134.xml": corpustest.Path(t, "iso19115/fgdc-usgs-white-fronted-goose.xml"),
	}
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "iso19115", "*.xml"))
	require.NoError(t, err)
	var listing strings.Builder
	listing.WriteString("<html><head><title>Index of /iso/</title></head><body><h1>Index of /iso/</h1><hr><pre><a href=\"../\">../</a>\n")
	for _, f := range files {
		if f == paths["/dggs/AOF125.xml"] || f == paths["/dggs/AOF134.xml"] {
			continue
		}
		paths["/iso/"+filepath.Base(f)] = f
		fmt.Fprintf(&listing, "<a href=\"%s\">%[1]s</a>  01-Jun-2026 10:00  12K\n", filepath.Base(f))
	}
	listing.WriteString("</pre><hr></body></html>\n")
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/iso/":
			rw.Header().Set("Content-Type", "text/html")
			fmt.Fprint(rw, listing.String())
		case paths[p] != "":
			if strings.HasSuffix(p, ".xml") {
				rw.Header().Set("Content-Type", "application/xml")
			}
			body, err := os.ReadFile(paths[p])
			if err != nil {
				http.Error(rw, err.Error(), http.StatusInternalServerError)
				return
			}
			rw.Write(body)
		default:
			http.NotFound(rw, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}
