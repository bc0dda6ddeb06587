package dcatap

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatus"
)

const fullIRI = "https://data.example.no/dataset/1"

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return b
}

// fullWant is testdata/full.nq in DCAT-US with the default preference (en).
const fullWant = `{
  "@type": "dcat:Dataset",
  "title": "Population by municipality",
  "description": "Population per municipality, yearly.",
  "keyword": ["SSB", "census", "population"],
  "modified": "2024-01-15T08:30:00+01:00",
  "publisher": {"@type": "org:Organization", "name": "Statistics Norway"},
  "contactPoint": {"@type": "vcard:Contact", "fn": "SSB informasjonssenter", "hasEmail": "mailto:informasjon@ssb.no"},
  "identifier": "https://data.example.no/dataset/1",
  "accessLevel": "public",
  "distribution": [
    {"@type": "dcat:Distribution", "description": "JSON-stat API", "accessURL": "https://data.ssb.no/api/v0/no/table/07459",
     "mediaType": "application/json", "format": "JSON"},
    {"@type": "dcat:Distribution", "title": "CSV file", "accessURL": "https://www.ssb.no/befolkning/tabell",
     "downloadURL": "https://data.ssb.no/befolkning.csv", "mediaType": "text/csv", "format": "CSV"}
  ],
  "license": "http://publications.europa.eu/resource/authority/licence/CC_BY_4_0",
  "spatial": "4.5,57.9,31.1,71.2",
  "temporal": "1951-01-01/2023-12-31",
  "issued": "2019-03-01",
  "accrualPeriodicity": "R/P1Y",
  "language": ["en", "nb"],
  "theme": ["Population and society", "http://publications.europa.eu/resource/authority/data-theme/GOVE"],
  "landingPage": "https://www.ssb.no/befolkning",
  "isPartOf": "https://data.example.no/series/population"
}`

func TestTransformFull(t *testing.T) {
	t.Parallel()
	out, warnings, err := Transform(readFixture(t, "full.nq"), fullIRI, nil)
	require.NoError(t, err)
	require.JSONEq(t, fullWant, string(out))
	require.Empty(t, warnings, "choosing a language, and a bbox over the country IRI, are not lossy choices")

	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	problems, err := v.Validate(out)
	require.NoError(t, err)
	require.Empty(t, problems)
}

func TestTransformLanguagePreference(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		langs                  []string
		title, desc, publisher string
		keywords               []string
	}{
		{[]string{"nb"}, "Befolkning etter kommune", "Folketall per kommune, årlig.", "Statistisk sentralbyrå", []string{"SSB", "befolkning"}},
		{[]string{"fr", "nb"}, "Population par commune", "Folketall per kommune, årlig.", "Statistisk sentralbyrå", []string{"SSB", "befolkning"}},
		// "en" matches "en-GB" (RFC 4647 basic filtering); no Swedish: en is not the fallback, an
		// untagged literal is, then the first by tag ("en" < "fr" < "nb").
		{[]string{"en"}, "Population by municipality", "Population per municipality, yearly.", "Statistics Norway", []string{"SSB", "census", "population"}},
		{[]string{"sv"}, "Population by municipality", "Population per municipality, yearly.", "Statistics Norway", []string{"SSB", "befolkning", "census", "population"}},
		// "en-gb" does not match "en": the title falls back to the first by tag; no keyword is
		// en-GB, so all are kept.
		{[]string{"en-gb"}, "Population by municipality", "Population per municipality, yearly.", "Statistics Norway", []string{"SSB", "befolkning", "census", "population"}},
	} {
		out, _, err := Transform(readFixture(t, "full.nq"), fullIRI, tc.langs)
		require.NoError(t, err)
		var got struct {
			Title, Description string
			Keyword            []string
			Publisher          struct{ Name string }
		}
		require.NoError(t, json.Unmarshal(out, &got))
		require.Equal(t, tc.title, got.Title, tc.langs)
		require.Equal(t, tc.desc, got.Description, tc.langs)
		require.Equal(t, tc.publisher, got.Publisher.Name, tc.langs)
		require.Equal(t, tc.keywords, got.Keyword, tc.langs)
	}
}

// An untagged literal wins over literals in languages not preferred.
func TestTransformUntaggedBeatsOtherLanguages(t *testing.T) {
	t.Parallel()
	nq := `<urn:d> <http://purl.org/dc/terms/title> "Tittel"@nb .
<urn:d> <http://purl.org/dc/terms/title> "Plain" .
<urn:d> <http://purl.org/dc/terms/title> "Aaa"@de .
`
	for langs, want := range map[string]string{"en": "Plain", "nb": "Tittel", "de,nb": "Aaa"} {
		out, _, err := Transform([]byte(nq), "urn:d", strings.Split(langs, ","))
		require.NoError(t, err)
		require.Contains(t, string(out), `"title": "`+want+`"`, langs)
	}
	// No untagged literal and no preferred language: the first by tag, then value.
	out, _, err := Transform([]byte(`<urn:d> <http://purl.org/dc/terms/title> "Z"@nb .
<urn:d> <http://purl.org/dc/terms/title> "Y"@fr .
`), "urn:d", nil)
	require.NoError(t, err)
	require.Contains(t, string(out), `"title": "Y"`)
}

// The same graph gives byte-identical output whatever the order of its triples and whether its
// nodes are blank nodes or skolem IRIs.
func TestTransformDeterministic(t *testing.T) {
	t.Parallel()
	full := readFixture(t, "full.nq")
	want, _, err := Transform(full, fullIRI, nil)
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSpace(string(full)), "\n")
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
		got, _, err := Transform([]byte(strings.Join(lines, "")+"\n"), fullIRI, nil)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
	blank := regexp.MustCompile(`<https://data\.example\.no/dataset/1/\.well-known/genid/(\w+)>`).ReplaceAll(full, []byte("_:$1"))
	require.NotEqual(t, string(full), string(blank))
	got, _, err := Transform(blank, fullIRI, nil)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
}

// A record with nothing but its type still transforms; the validator names what is missing.
func TestTransformMinimal(t *testing.T) {
	t.Parallel()
	out, warnings, err := Transform([]byte(`<urn:x:1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Dataset> .`+"\n"), "urn:x:1", nil)
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.JSONEq(t, `{"@type": "dcat:Dataset", "identifier": "urn:x:1", "accessLevel": "public"}`, string(out))
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	problems, err := v.Validate(out)
	require.NoError(t, err)
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Message)
	}
	for _, f := range []string{"title", "description", "keyword", "modified", "publisher", "contactPoint"} {
		require.Contains(t, strings.Join(msgs, "\n"), "'"+f+"'")
	}
}

func TestTransformErrors(t *testing.T) {
	t.Parallel()
	_, _, err := Transform([]byte("this is not N-Quads\n"), "urn:d", nil)
	require.ErrorIs(t, err, ErrParse)
	_, _, err = Transform([]byte(`<urn:other> <http://purl.org/dc/terms/title> "T" .`+"\n"), "urn:d", nil)
	require.ErrorIs(t, err, ErrNoDataset)
	require.Contains(t, err.Error(), "<urn:d>")
	require.False(t, errors.Is(err, ErrParse))
}

// warnings.nq holds one lossy case per field; each gives a warning and a sound value.
func TestTransformWarnings(t *testing.T) {
	t.Parallel()
	out, warnings, err := Transform(readFixture(t, "warnings.nq"), "https://example.org/d", nil)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	byField := map[string][]string{}
	for _, w := range warnings {
		byField[w.Field] = append(byField[w.Field], w.Message)
	}
	t.Logf("%s\n%q", out, byField)

	require.NotContains(t, got, "issued")
	require.Contains(t, byField["issued"][0], `"01.02.2020" is not a date`)
	require.Equal(t, "2021-06-30", got["modified"], "an xsd:date loses its time zone")
	require.NotContains(t, byField, "modified")

	require.Equal(t, "https://example.org/place/trondheim", got["spatial"], "a projected geometry is dropped, the place IRI kept")
	require.Contains(t, byField["spatial"][0], "EPSG/0/25833")

	require.NotContains(t, got, "temporal")
	require.Contains(t, byField["temporal"][0], "only a start (2020-01-01)")

	require.Equal(t, "public", got["accessLevel"])
	require.Equal(t, "Åpne data med vilkår", got["rights"])
	require.Contains(t, byField["accessLevel"][0], "not an EU access-right")

	require.Equal(t, map[string]any{"@type": "vcard:Contact", "fn": "Kundesenter", "hasEmail": "mailto:post@example.org"}, got["contactPoint"],
		"the contact point with an email wins; a literal email gets mailto:")
	require.Contains(t, byField["contactPoint"][0], "2 contact points")

	require.NotContains(t, got, "accrualPeriodicity")
	require.Contains(t, byField["accrualPeriodicity"][0], "frequency/NEVER")

	require.NotContains(t, got, "license")
	require.Equal(t, []string{"the licence has no IRI; dropped"}, byField["license"])

	dist := got["distribution"].([]any)[0].(map[string]any)
	require.Equal(t, "application/geo+json", dist["mediaType"], "an unusable dcat:mediaType gives way to the EU file type's")
	require.Equal(t, "GEOJSON", dist["format"])
	require.Contains(t, byField["distribution[0].mediaType"][0], `"csv please" is not a media type`)
	require.Contains(t, byField["distribution[0].accessURL"][0], "2 values")
	require.Equal(t, "https://example.org/a1", dist["accessURL"])

	require.Equal(t, []any{"en", "se"}, got["language"])
	require.Equal(t, []string{"<https://example.org/lang/klingon-ish> is not a language code; dropped"}, byField["language"])

	require.Equal(t, map[string]any{"@type": "org:Organization", "name": "https://example.org/org/1"}, got["publisher"])
	require.Contains(t, byField["publisher"][0], "has no name")
	require.Len(t, warnings, 11, "one per lossy choice: %q", byField)
}

func TestAccessLevel(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]string{"PUBLIC": "public", "RESTRICTED": "restricted public", "NON_PUBLIC": "non-public", "": "public"} {
		nq := `<urn:d> <http://purl.org/dc/terms/title> "T" .` + "\n"
		if code != "" {
			nq += `<urn:d> <http://purl.org/dc/terms/accessRights> <http://publications.europa.eu/resource/authority/access-right/` + code + "> .\n"
		}
		out, warnings, err := Transform([]byte(nq), "urn:d", nil)
		require.NoError(t, err)
		require.Empty(t, warnings)
		require.Contains(t, string(out), `"accessLevel": "`+want+`"`, code)
	}
}

func TestIsoDate(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"2020-01-02": "2020-01-02", "2020-01-02Z": "2020-01-02", "2020-01-02+02:00": "2020-01-02",
		"2020-01-02T10:11:12": "2020-01-02T10:11:12", "2020-01-02T10:11:12.5Z": "2020-01-02T10:11:12.5Z",
		"2020-01-02 10:11": "2020-01-02T10:11", "2020": "2020", "2020-07": "2020-07", " 2020-02-29 ": "2020-02-29", "2021-02-29": "",
		"01.02.2020": "", "2020-13-01": "", "2020-02-30": "", "yesterday": "", "": "", "20200102": "",
	} {
		got, ok := isoDate(in)
		require.Equal(t, want, got, in)
		require.Equal(t, want != "", ok, in)
	}
}

func TestLanguageTag(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"<http://publications.europa.eu/resource/authority/language/ENG>":       "en",
		"<https://publications.europa.eu/resource/authority/language/NNO>":      "nn",
		"<http://publications.europa.eu/resource/authority/language/SMJ>":       "smj",
		"<http://publications.europa.eu/resource/authority/language/MUL>":       "mul",
		"<http://id.loc.gov/vocabulary/iso639-1/de>":                            "de",
		"<http://lexvo.org/id/iso639-3/fra>":                                    "fr",
		`"en-GB"`:                                                               "en-gb",
		"<http://publications.europa.eu/resource/authority/language/OP_DATPRO>": "",
		"<https://example.org/lang/xx>":                                         "",
	} {
		term := parseTerm(t, in)
		got, ok := languageTag(term)
		require.Equal(t, want, got, in)
		require.Equal(t, want != "", ok, in)
	}
}

func TestGeometry(t *testing.T) {
	t.Parallel()
	const wkt, geojson = "^^<http://www.opengis.net/ont/geosparql#wktLiteral>", "^^<http://www.opengis.net/ont/geosparql#geoJSONLiteral>"
	for in, want := range map[string]string{
		`"POLYGON((10 60, 11 60, 11 61, 10 61, 10 60))"` + wkt:                                              "10,60,11,61",
		`"<http://www.opengis.net/def/crs/OGC/1.3/CRS84> MULTIPOLYGON(((-1.5 2,3 4)),((5 -6, 7 8)))"` + wkt: "-1.5,-6,7,8",
		`"<http://www.opengis.net/def/crs/EPSG/0/4326> POLYGON((60 10, 61 11))"` + wkt:                      "10,60,11,61",
		`"POINT Z (10.4 63.4 12)"` + wkt:                                                                    `{"type":"Point","coordinates":[10.4,63.4]}`,
		`"POLYGON ((1 2, 3 4))"`:                                                                            "1,2,3,4",
		`"{ \"type\": \"Point\", \"coordinates\": [1, 2] }"` + geojson:                                      `{"type":"Point","coordinates":[1,2]}`,
		`"<http://www.opengis.net/def/crs/EPSG/0/25833> POINT(270000 7040000)"` + wkt:                       "",
		`"POLYGON EMPTY"` + wkt:                                                                             "",
		`"POLYGON((a b))"` + wkt:                                                                            "",
		`"{not json"` + geojson:                                                                             "",
		`"Trondheim"`:                                                                                       "",
	} {
		m := &mapper{}
		got, ok := m.geometry(parseTerm(t, in))
		require.Equal(t, want, got, in)
		require.Equal(t, want != "", ok, in)
		if want == "" && in != `"Trondheim"` {
			require.Len(t, m.warnings, 1, in)
		}
	}
}

// parseTerm reads one N-Triples object term.
func parseTerm(t *testing.T, nt string) (term rdfTerm) {
	t.Helper()
	g := parseGraph(t, "<urn:s> <urn:p> "+nt+" .\n")
	objs := g.objects(rdfIRI("urn:s"), "urn:p")
	require.Len(t, objs, 1)
	return objs[0]
}

func TestSamePrecision(t *testing.T) {
	t.Parallel()
	for _, tc := range [][4]string{
		{"1951", "2023-12-31", "1951-01-01", "2023-12-31"},
		{"2020-01-01", "2023", "2020-01-01", "2023-12-31"},
		{"2020-03", "2023-02", "2020-03", "2023-02"},
		{"2020-03-05", "2023-02", "2020-03-05", "2023-02-28"},
		{"2020-03-05", "2024-02", "2020-03-05", "2024-02-29"},
		{"2020", "2021", "2020", "2021"},
		{"2020-01-01", "2021-01-01T00:00:00Z", "2020-01-01", "2021-01-01T00:00:00Z"},
	} {
		s, e := samePrecision(tc[0], tc[1])
		require.Equal(t, [2]string{tc[2], tc[3]}, [2]string{s, e}, tc)
	}
}
