package rdf_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/rdf"
)

func TestParseTurtleCorpus(t *testing.T) {
	f, err := os.Open(corpustest.Path(t, "dcatap/semic-hvd-3.0-ms-catalogue.ttl"))
	require.NoError(t, err)
	defer f.Close()
	g := rdf.NewMemGraph()
	require.NoError(t, rdf.ParseGraph(f, rdf.Turtle, "http://example.com/", g))
	require.Equal(t, 46, g.Len(), "rdflib counts 46 triples (corpus NOTES §16)")
}

// corpusCounts are the triple counts rdflib 7.6.0 (PyPI) gives for every RDF file of the
// corpus, parsed with publicID http://example.com/base/ (see parse_test.go). Invalid files
// are -1.
var corpusCounts = map[string]int{
	"dcatap/INVALID-fdk-norway-iri-with-space.ttl":                      -1,
	"dcatap/INVALID-opendata-swiss-import-multiple-node-elements.rdf":   -1,
	"dcatap/INVALID-semic-3.0-bee-population-series-slash-in-pname.ttl": -1,
	"dcatap/ckan-demo-catalog-hydra.rdf":                                1794,
	"dcatap/ckan-demo-catalog-hydra.ttl":                                1794,
	"dcatap/ckanext-dcat-catalog-pod.jsonld":                            61,
	"dcatap/ckanext-dcat-catalog-with-at-graph.jsonld":                  21,
	"dcatap/ckanext-dcat-dataset-gov-de.rdf":                            208,
	"dcatap/dcat-ap-no-2.0-examples.ttl":                                204,
	"dcatap/dcat-us3-doi-dataset-series.ttl":                            43,
	"dcatap/fdk-catalog-0-diff-update-fragment-iris.ttl":                48,
	"dcatap/fdk-catalog-0-stored-skolemized-with-records.ttl":           48,
	"dcatap/fdk-harvest-response-0-catalog-diff.ttl":                    37,
	"dcatap/fdk-harvest-response-0-old-dataset-removed.ttl":             7,
	"dcatap/fdk-harvest-response-0.ttl":                                 42,
	"dcatap/fdk-norway-nested-blank-nodes.ttl":                          31,
	"dcatap/geonetwork-sig-oreme-catalogrecords.rdf":                    42,
	"dcatap/semic-2.1.1-example1.nt":                                    23,
	"dcatap/semic-hvd-3.0-ms-catalogue.jsonld":                          46,
	"dcatap/semic-hvd-3.0-ms-catalogue.ttl":                             46,
	"dcatap/udata-hydra-partial-collection-page1.jsonld":                80,
	"dcatap/udata-hydra-partial-collection-page2.jsonld":                41,
	"dcatap/udata-paged-collection-page1.jsonld":                        79,
	"dcatap/udata-paged-collection-page2.jsonld":                        41,
	"schemas/dcat-ap/dcat-ap-no_2.0_shacl_shapes.ttl":                   1542,
	"schemas/dcat-ap/dcat-ap_2.1.1_shacl_range.ttl":                     350,
	"schemas/dcat-ap/dcat-ap_2.1.1_shacl_shapes.ttl":                    559,
	"schemas/dcat-ap/dcat-ap_3.0.0_shacl_shapes.ttl":                    1968,
}

func formatOf(t *testing.T, name string) rdf.Format {
	f, err := rdf.FormatFor("", "", name)
	require.NoError(t, err)
	return f
}

// TestParseCorpus parses every RDF file of the corpus with the parser its extension names and
// requires rdflib's triple count, or a *SyntaxError with a position for the INVALID- files.
func TestParseCorpus(t *testing.T) {
	for name, want := range corpusCounts {
		t.Run(name, func(t *testing.T) {
			f, err := os.Open(corpustest.Path(t, name))
			require.NoError(t, err)
			defer f.Close()
			g := rdf.NewMemGraph()
			err = rdf.ParseGraph(f, formatOf(t, name), "http://example.com/base/", g)
			if want < 0 {
				var se *rdf.SyntaxError
				require.ErrorAs(t, err, &se)
				require.Positive(t, se.Line)
				require.Positive(t, se.Col)
				return
			}
			require.NoError(t, err)
			require.Equal(t, want, g.Len())
		})
	}
}

// TestParseInvalidTurtle pins the positions and reasons of the corpus's invalid Turtle files.
func TestParseInvalidTurtle(t *testing.T) {
	for name, want := range map[string]string{
		// The space in <…/err or.yaml>: line 6, column 85 is the space itself (Jena, in FDK's
		// report, says col 86: the column after it).
		"dcatap/INVALID-fdk-norway-iri-with-space.ttl": "[line: 6, col: 85] Bad character in IRI (space)",
		// example-dist:BeePopulation2023/biojson: '/' cannot be in a local name (rdflib and
		// rapper reject it too).
		"dcatap/INVALID-semic-3.0-bee-population-series-slash-in-pname.ttl": "[line: 32, col: 31] '/' is not allowed",
	} {
		f, err := os.Open(corpustest.Path(t, name))
		require.NoError(t, err)
		err = rdf.Parse(f, rdf.Turtle, "", func(rdf.Triple) error { return nil })
		f.Close()
		require.ErrorContains(t, err, want, name)
	}
}

// TestAppendNTriples: AppendNTriples writes what NTriples does, for every byte in an IRI and a
// literal (the escapes of both), with a language and a datatype, after what b already holds.
func TestAppendNTriples(t *testing.T) {
	var all []byte
	for c := range 256 {
		all = append(all, byte(c))
	}
	terms := []rdf.Term{rdf.IRI("http://e.org/a b<c>" + string(all)), rdf.Blank("b0"),
		rdf.Literal("x\"y\\z\n\r\t"+string(all), "", ""), rdf.Literal("tag", "", "EN-gb"),
		rdf.Literal("1", "http://www.w3.org/2001/XMLSchema#integer", ""), rdf.Literal("d", "http://e.org/d t", "")}
	for _, s := range terms {
		for _, o := range terms {
			tr := rdf.Triple{S: s, P: rdf.IRI("http://e.org/p|"), O: o}
			require.Equal(t, "pre"+tr.NTriples(), string(tr.AppendNTriples([]byte("pre"))))
			require.Equal(t, "pre"+o.NTriples(), string(o.AppendNTriples([]byte("pre"))))
		}
	}
}
