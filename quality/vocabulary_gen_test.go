package quality

import (
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/rdf"
)

var update = flag.Bool("update", false, "rewrite vocabulary/*.txt and testdata golden files")

// referenceDir returns ../shared/reference/mqa beside some parent of the working directory, as
// CI and the workstations have it. The test fails when there is none.
func referenceDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	require.NoError(t, err)
	for {
		c := filepath.Join(dir, "..", "shared", "reference", "mqa")
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return filepath.Clean(c)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no shared/reference/mqa beside the repository: the quality tests need ../shared/reference/mqa")
		}
		dir = parent
	}
}

// TestVocabularyCurrent regenerates the embedded tables from the reference files and fails when
// vocabulary/ differs (-update rewrites it).
func TestVocabularyCurrent(t *testing.T) {
	ref := referenceDir(t)
	files := map[string]string{
		"media-types.txt":   genMediaTypes(t, ref),
		"file-types.txt":    genFileTypes(t, ref),
		"licences.txt":      genLicences(t, ref),
		"access-rights.txt": genAccessRights(t, ref),
	}
	for name, want := range files {
		path := filepath.Join("vocabulary", name)
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
			continue
		}
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, want, string(got), "%s is stale: go test ./quality -run TestVocabularyCurrent -update", path)
	}
}

func genMediaTypes(t *testing.T, ref string) string {
	paths, err := filepath.Glob(filepath.Join(ref, "edp-mediatype-*.csv"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	var out []string
	for _, p := range paths {
		top := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "edp-mediatype-"), ".csv")
		f, err := os.Open(p)
		require.NoError(t, err)
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		require.NoError(t, err, p)
		for _, row := range rows[1:] {
			mt := row[1]
			if mt == "" { // a few rows (multipart/alternative, …) leave the template empty
				mt = top + "/" + row[0]
			}
			out = append(out, strings.ToLower(strings.TrimSpace(mt)))
		}
	}
	return lines(out)
}

func genFileTypes(t *testing.T, ref string) string {
	machine := trueSubjects(t, filepath.Join(ref, "edp-machine-readable-format.rdf"))
	nonProp := trueSubjects(t, filepath.Join(ref, "edp-non-proprietary-format.rdf"))
	codes := map[string]bool{}
	for c := range machine {
		codes[c] = true
	}
	for c := range nonProp {
		codes[c] = true
	}
	var out []string
	for c := range codes {
		out = append(out, fmt.Sprintf("%s\t%s\t%s", c, bit(machine[c]), bit(nonProp[c])))
	}
	return lines(out)
}

// trueSubjects returns the file-type codes of the subjects whose one property is "true".
func trueSubjects(t *testing.T, path string) map[string]bool {
	out := map[string]bool{}
	parseRDF(t, path, rdf.RDFXML, func(tr rdf.Triple) {
		if tr.O.Value == "true" && strings.HasPrefix(tr.S.Value, fileTypeURI) {
			out[strings.TrimPrefix(tr.S.Value, fileTypeURI)] = true
		}
	})
	require.NotEmpty(t, out, path)
	return out
}

// genLicences writes every URI of every licence in edp-licences-skos.rdf (the subject, its
// skos:exactMatch and owl:sameAs) by licenceKey, with the licence's identifier: its
// dc:identifier, else the last segment of an EU authority IRI. Each identifier also gets its
// EU authority IRI. Where two licences claim one key, the smaller identifier keeps it.
func genLicences(t *testing.T, ref string) string {
	const (
		dcIdentifier = "http://purl.org/dc/elements/1.1/identifier"
		exactMatch   = "http://www.w3.org/2004/02/skos/core#exactMatch"
		sameAs       = "http://www.w3.org/2002/07/owl#sameAs"
		authority    = "http://publications.europa.eu/resource/authority/licence/"
	)
	ids, uris := map[string]string{}, map[string][]string{}
	parseRDF(t, filepath.Join(ref, "edp-licences-skos.rdf"), rdf.RDFXML, func(tr rdf.Triple) {
		s := tr.S.Value
		switch tr.P.Value {
		case dcIdentifier:
			ids[s] = strings.TrimSpace(tr.O.Value)
		case exactMatch, sameAs:
			uris[s] = append(uris[s], tr.O.Value)
		default:
			uris[s] = append(uris[s], s)
		}
	})
	keys := map[string]string{}
	claim := func(uri, id string) {
		k := licenceKey(uri)
		if old, ok := keys[k]; k != "" && (!ok || id < old) {
			keys[k] = id
		}
	}
	for s, us := range uris {
		id := ids[s]
		if id == "" {
			rest, ok := strings.CutPrefix(s, authority)
			require.True(t, ok, "licence %s has no dc:identifier and is not an EU authority IRI", s)
			id = rest
		}
		claim(authority+id, id)
		claim(s, id)
		for _, u := range us {
			claim(u, id)
		}
	}
	var out []string
	for k, id := range keys {
		out = append(out, k+"\t"+id)
	}
	return lines(out)
}

func genAccessRights(t *testing.T, ref string) string {
	const prefix = "http://publications.europa.eu/resource/authority/access-right/"
	codes := map[string]bool{}
	parseRDF(t, filepath.Join(ref, "access-right-skos.rdf"), rdf.RDFXML, func(tr rdf.Triple) {
		if code, ok := strings.CutPrefix(tr.S.Value, prefix); ok && code != "" {
			codes[code] = true
		}
	})
	var out []string
	for c := range codes {
		out = append(out, c)
	}
	return lines(out)
}

func parseRDF(t *testing.T, path string, f rdf.Format, fn func(rdf.Triple)) {
	r, err := os.Open(path)
	require.NoError(t, err)
	defer r.Close()
	require.NoError(t, rdf.Parse(r, f, "", func(tr rdf.Triple) error { fn(tr); return nil }), path)
}

// lines returns the sorted, unique strings, one a line.
func lines(ss []string) string {
	slices.Sort(ss)
	ss = slices.Compact(ss)
	return strings.Join(ss, "\n") + "\n"
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// TestIndicatorsMatchVocabulary holds the indicator table to piveau's DQV vocabulary: every
// metric is a dqv:Metric there, in the same dimension; the points add up to MaxPoints.
func TestIndicatorsMatchVocabulary(t *testing.T) {
	const pv = "https://piveau.eu/ns/voc#"
	dims := map[string]string{}
	parseRDF(t, filepath.Join(referenceDir(t), "edp-dqv-vocabulary.ttl"), rdf.Turtle, func(tr rdf.Triple) {
		if tr.P.Value == "http://www.w3.org/ns/dqv#inDimension" {
			dims[tr.S.Value] = tr.O.Value
		}
	})
	sum := 0
	for _, in := range Indicators {
		name := strings.TrimPrefix(string(in.Metric), "pv:")
		dim, ok := dims[pv+name]
		require.True(t, ok, "%s is not a metric of edp-dqv-vocabulary.ttl", in.Metric)
		// The vocabulary misspells reusability on two metrics (pv:reusablity).
		dim = strings.Replace(dim, "reusablity", "reusability", 1)
		require.Equal(t, pv+strings.TrimPrefix(string(in.Dimension), "pv:"), dim, in.Metric)
		sum += in.Points
	}
	require.Equal(t, MaxPoints, sum)
	require.Len(t, Indicators, 23)
}

// TestVocabularyTablesAgree holds the hand-kept tables to the generated ones: every alias and
// media type names a file type the MQA or the supplement knows, and the extra codes are not
// already in the MQA's lists.
func TestVocabularyTablesAgree(t *testing.T) {
	v := vocab()
	require.Greater(t, len(v.mediaTypes), 1000)
	require.Greater(t, len(v.licences), 200)
	known := func(code string) bool { _, ok := v.fileTypes[code]; return ok || isExtraFileType(code) }
	for alias, code := range formatAliases {
		require.True(t, known(code), "alias %s → %s", alias, code)
	}
	for mt, code := range mediaTypeFileTypes {
		require.True(t, known(code), "media type %s → %s", mt, code)
	}
	for _, code := range extraFileTypes {
		_, dup := v.fileTypes[code]
		require.False(t, dup, "%s is in the MQA's lists already", code)
	}
	for _, id := range odcLicences {
		require.True(t, v.hasLicenceID(id), id)
	}
	require.True(t, v.hasLicenceID("CC0"))
}
