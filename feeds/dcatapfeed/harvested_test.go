package dcatapfeed_test

import (
	"bytes"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl/profiles"
	"github.com/harvester-dev/harvester/store"
)

// TestHarvestedGraphsServedAsHarvested: a dataset harvested from a DCAT-AP source is served
// from its stored graph (the record's source_raw), whole: the served document is that graph,
// plus the catalog record, the dataset's quality measurements and its dct:identifier when the
// graph has none, and nothing else. Served as harvested, it is checked against its source's profile (the default,
// DCAT-AP 3.0.0) by our engine and pySHACL, which agree, and its report is the one of the stored
// graph, the one VALIDATE had (serving adds no violation).
func TestHarvestedGraphsServedAsHarvested(t *testing.T) {
	py := python(t)
	site := pipelinetest.NewSite(t)
	h := pipelinetest.New(t)
	site.ServeCorpus(t, "http://hvd.test/catalogue.ttl", "text/turtle", "dcatap/semic-hvd-3.0-ms-catalogue.ttl")
	rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: "http://hvd.test/catalogue.ttl", Organization: "Member State"})
	pipelinetest.MustComplete(t, rep)
	srv := feedServer(t, h.Store, feeds.Catalog{Title: "HVD"})
	live, err := h.Store.DatasetPage(t.Context(), &store.DatasetPageParams{})
	require.NoError(t, err)
	require.NotEmpty(t, live)
	graphs := map[string][]rdf.Triple{}
	raws := map[string]string{}
	for _, ds := range live {
		require.Equal(t, string(harvest.SourceRDF), ds.SourceType)
		rec, err := h.Store.RecordGet(t.Context(), ds.RecordID)
		require.NoError(t, err)
		stored := map[rdf.Triple]bool{}
		require.NoError(t, rdf.ParseRecord(bytes.NewReader([]byte(rec.SourceRaw)), func(tr rdf.Triple) error {
			stored[tr] = true
			return nil
		}))
		resp, body := get(t, srv.URL+"/dataset/"+ds.Slug+".nt", "")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		served := distinct(parse(t, body, rdf.NTriples, srv.URL))
		record := srv.URL + "/dataset/" + ds.Slug + "#record"
		measures := map[rdf.Term]bool{}
		for _, m := range objects(served, rdf.IRI(ds.Identifier), dqv+"hasQualityMeasurement") {
			measures[m] = true
		}
		require.Len(t, measures, 24, "%s: pv:score and each indicator", ds.Identifier)
		var graph []rdf.Triple
		for _, tr := range served {
			switch {
			case measures[tr.S], measures[tr.O]: // its quality measurements (quality_test.go)
			case stored[tr]:
				delete(stored, tr)
				graph = append(graph, tr)
			case tr.S.Value == record, tr.P.Value == "http://www.w3.org/2000/01/rdf-schema#subClassOf",
				tr.S.Value == ds.SourceURL && tr.P.Value == "http://www.w3.org/2000/01/rdf-schema#label":
			case tr.S.Value == ds.Identifier && tr.P.Value == dct+"identifier" && tr.O.Value == ds.Identifier:
				graph = append(graph, tr)
			default:
				t.Fatalf("%s: served %s, which is not in the stored graph", ds.Identifier, tr.NTriples())
			}
		}
		require.Empty(t, stored, "%s: the whole stored graph is served", ds.Identifier)
		graphs[ds.Identifier] = graph
		raws[ds.Identifier] = rec.SourceRaw
	}
	ours, theirs := validateBoth(t, py, profiles.DCATAP300, graphs)
	shapes, err := profiles.Load(profiles.DCATAP300)
	require.NoError(t, err)
	for id, r := range ours {
		// What VALIDATE saw: the stored graph alone.
		g := rdf.NewMemGraph()
		require.NoError(t, rdf.ParseRecord(bytes.NewReader([]byte(raws[id])), g.Add))
		require.Equal(t, resultLines(shapes.Validate(g)), resultLines(r), "%s: served, the graph has the stored graph's report", id)
		// pySHACL agrees.
		var mine, py []string
		for _, x := range r.Results {
			mine = append(mine, strings.Join([]string{pyTermKey(x.Focus), x.Path, x.Severity.String(), x.Constraint}, " | "))
		}
		for _, x := range theirs[id].Results {
			py = append(py, strings.Join([]string{x.Focus, x.Path, x.Severity, pyConstraint(x.Constraint)}, " | "))
		}
		sort.Strings(mine)
		sort.Strings(py)
		require.Equal(t, r.Conforms, theirs[id].Conforms, id)
		require.Equal(t, slices.Compact(mine), slices.Compact(py), "%s: our engine and pySHACL agree", id)
	}
}

// pyTermKey is a term as pyshacl_run.py keys it.
func pyTermKey(t rdf.Term) string {
	kind := map[rdf.TermKind]string{rdf.KindIRI: "I", rdf.KindBlank: "B", rdf.KindLiteral: "L"}[t.Kind]
	return kind + "|" + t.Value + "|" + t.Datatype + "|" + t.Lang
}

// pyConstraint maps pySHACL's sh:sourceConstraintComponent to our Constraint name.
func pyConstraint(iri string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(iri, "http://www.w3.org/ns/shacl#"), "ConstraintComponent")
	switch name {
	case "QualifiedMinCount", "QualifiedMaxCount":
		return "sh:qualifiedValueShape"
	case "":
		return iri
	}
	return "sh:" + strings.ToLower(name[:1]) + name[1:]
}
