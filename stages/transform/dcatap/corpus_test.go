package dcatap

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	split "github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/rdf"
)

// corpusRecords parses one corpus file and returns its records as EXTRACT sends them: per
// dataset or series IRI, the canonical N-Quads of its skolemized record graph (dcatap.Split,
// dcatap.Canonical). ok is false when this branch has no parser for the file's syntax.
func corpusRecords(t *testing.T, path string) (records map[string][]byte, ok bool) {
	t.Helper()
	f, err := rdf.FormatFor("", "", path)
	require.NoError(t, err)
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	g := rdf.NewMemGraph()
	err = rdf.Parse(fh, f, "", g.Add)
	if errors.Is(err, rdf.ErrUnsupportedFormat) {
		return nil, false
	}
	require.NoError(t, err)
	records = map[string][]byte{}
	require.NoError(t, split.Split(g, func(r *split.Resource) error {
		if r.Kind == split.KindCatalog || r.Problem != "" {
			return nil
		}
		nq, _, err := split.Canonical(r.Triples)
		require.NoError(t, err, r.IRI)
		records[r.IRI] = nq
		return nil
	}))
	return records, true
}

// Every dataset of every valid corpus file transforms; the DCAT-US it gives breaks the
// non-federal schema only by leaving out required fields the source does not have (never a
// malformed value), and a dataset whose source has them all is valid.
func TestCorpus(t *testing.T) {
	t.Parallel()
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	dir := filepath.Join(corpustest.Dir(t), "dcatap")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	total, valid, files := 0, 0, 0
	missing := map[string]int{}
	var unparsed []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "INVALID-") || e.IsDir() {
			continue
		}
		records, ok := corpusRecords(t, filepath.Join(dir, name))
		if !ok {
			unparsed = append(unparsed, name)
			continue
		}
		files++
		for iri, nq := range records {
			total++
			out, warnings, err := Transform(nq, iri, nil)
			require.NoError(t, err, "%s %s", name, iri)
			var got map[string]any
			require.NoError(t, json.Unmarshal(out, &got), "%s %s", name, iri)
			require.Equal(t, iri, got["identifier"])
			problems, err := v.Validate(out)
			require.NoError(t, err)
			for _, p := range problems {
				require.Regexp(t, `^('[^']+'(, | and )?)+ (is a required property|are required properties)$`, p.Message,
					"%s %s: a written value breaks the schema at %s\n%s", name, iri, p.Path, out)
				for _, f := range regexp.MustCompile(`'([^']+)'`).FindAllStringSubmatch(p.Message, -1) {
					missing[strings.TrimPrefix(p.Path+".", "$.")+f[1]]++
				}
			}
			if len(problems) == 0 {
				valid++
			}
			hasTitle := strings.Contains(string(nq), rdf.IRI(iri).NTriples()+" <"+dctTitle+"> \"")
			require.Equal(t, hasTitle, got["title"] != nil, "%s %s: title", name, iri)
			for _, w := range warnings {
				t.Logf("%s %s: warning %s: %s", name, iri, w.Field, w.Message)
			}
		}
	}
	t.Logf("%d datasets in %d files: %d valid DCAT-US 1.1 non-federal; required fields missing from the source: %v", total, files, valid, missing)
	if len(unparsed) > 0 {
		t.Logf("not read (no parser for their syntax on this branch yet): %s", strings.Join(unparsed, ", "))
	}
	require.Positive(t, total)
}

// Fields of a few corpus records, checked one by one.
func TestCorpusValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file, iri string
		want      map[string]any
	}{
		{"fdk-harvest-response-0.ttl", "https://testdirektoratet.no/model/dataset/0", map[string]any{
			"title": "Dataset 0", "description": "Description of dataset 0", "keyword": []any{"fest", "test"},
			"issued": "2019-03-22T13:11:16.546902", "modified": "2019-03-22T13:11:16.546902", "accessLevel": "public",
			"language": []any{"no"}, "license": "https://data.norge.no/nlod/no", "references": []any{"https://testdirektoratet.no"},
			"contactPoint": map[string]any{"@type": "vcard:Contact", "fn": "Testdirektoratet"},
			"theme":        []any{"http://publications.europa.eu/resource/authority/data-theme/GOVE", "http://publications.europa.eu/resource/authority/data-theme/TECH"},
		}},
		{"semic-hvd-3.0-ms-catalogue.ttl", "https://data.exampleMS.gov/id/dataset/1T2p3o4B", map[string]any{
			"title": "The population of bees", "publisher": map[string]any{"@type": "org:Organization", "name": "MS Environmental Agency"},
			"accrualPeriodicity": "R/P2Y", "license": "https://data.exampleMS.gov/resource/FreeAndOpen",
			"distribution": []any{map[string]any{"@type": "dcat:Distribution", "accessURL": "https://orgea.exampleMS.gov/files/1T2p3o4B.shp",
				"format": "SHP", "mediaType": "application/x-shapefile"}},
		}},
		{"dcat-us3-doi-dataset-series.ttl", "http://example.org/ns#populationCensus-1950", map[string]any{
			"isPartOf": "http://example.org/ns#populationCensus", "accrualPeriodicity": "R/P10Y", "issued": "1950",
			"spatial": "http://sws.geonames.org/6252001/",
		}},
		{"semic-2.1.1-example1.nt", "https://myorg.eu/opendata/datasets/1", map[string]any{
			"title": "visitors to the Open Swimming Pool", "license": "https://creativecommons.org/publicdomain/zero/1.0/",
			"contactPoint": map[string]any{"@type": "vcard:Contact", "hasEmail": "mailto:opendata@myorg.eu"},
		}},
	} {
		records, ok := corpusRecords(t, corpustest.Path(t, "dcatap/"+c.file))
		require.True(t, ok, c.file)
		out, _, err := Transform(records[c.iri], c.iri, nil)
		require.NoError(t, err, c.file)
		var got map[string]any
		require.NoError(t, json.Unmarshal(out, &got))
		for k, v := range c.want {
			require.Equal(t, v, got[k], "%s %s", c.file, k)
		}
	}
}
