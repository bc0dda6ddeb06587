package quality

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// indicatorCase is a record whose points on one indicator, and in all, are computed by hand.
type indicatorCase struct {
	name     string
	metric   Metric
	dcat     string
	links    map[string]LinkResult
	findings *bool // nil: true, so that compliance (30) stays out of the sum
	points   float64
	total    float64
	unknown  int
}

var ok200, broken404 = LinkResultOf(200), LinkResultOf(404)

func indicatorCases() []indicatorCase {
	no := false
	return []indicatorCase{
		{name: "keyword list", metric: KeywordAvailability, dcat: `{"keyword":["water"]}`, points: 30, total: 30},
		{name: "keyword string", metric: KeywordAvailability, dcat: `{"keyword":"water"}`, points: 30, total: 30},
		{name: "keyword blank", metric: KeywordAvailability, dcat: `{"keyword":["", " "]}`, points: 0, total: 0},
		{name: "theme 1.1", metric: CategoryAvailability, dcat: `{"theme":["Environment"]}`, points: 30, total: 30},
		{name: "category 3.0", metric: CategoryAvailability, dcat: `{"category":[{"prefLabel":"Climate"}]}`, points: 30, total: 30},
		{name: "spatial bbox", metric: SpatialAvailability, dcat: `{"spatial":"-77,38,-76,39"}`, points: 20, total: 20},
		{name: "spatial 3.0 location", metric: SpatialAvailability, dcat: `{"spatial":[{"@type":"Location","bbox":"-77,38,-76,39"}]}`, points: 20, total: 20},
		{name: "temporal 1.1", metric: TemporalAvailability, dcat: `{"temporal":"2020-01-01/2020-12-31"}`, points: 20, total: 20},
		{name: "temporal 3.0", metric: TemporalAvailability, dcat: `{"temporal":[{"startDate":"2020-01-01"}]}`, points: 20, total: 20},
		// a OK, b broken, c (downloadURL only: judged by it) OK: 50×2/3; downloadURL on 1 of 3:
		// 20/3 present and 30/3 OK. 100/3 + 20/3 + 30/3 = 50.
		{name: "accessURL status", metric: AccessURLStatusCode,
			dcat:   `{"distribution":[{"accessURL":"http://a/"},{"accessURL":"http://b/"},{"downloadURL":"http://c/"}]}`,
			links:  map[string]LinkResult{"http://a/": ok200, "http://b/": broken404, "http://c/": ok200},
			points: 50.0 * 2 / 3, total: 50},
		{name: "accessURL not checked", metric: AccessURLStatusCode,
			dcat:   `{"distribution":[{"accessURL":"http://a/"},{"accessURL":" http://u/ "}]}`,
			links:  map[string]LinkResult{"http://a/": ok200},
			points: 25, total: 25, unknown: 1},
		// downloadURL on 2 of 4: 20×2/4 = 10; OK on 1 of 4: 30/4 = 7.5; accessURL (by the
		// downloadURLs) OK on 1 of 4: 12.5.
		{name: "downloadURL present and status", metric: DownloadURLAvailability,
			dcat:   `{"distribution":[{"downloadURL":"http://a/"},{"downloadURL":"http://b/"},{},{"title":"x"}]}`,
			links:  map[string]LinkResult{"http://a/": ok200, "http://b/": broken404},
			points: 10, total: 10 + 7.5 + 12.5},
		{name: "downloadURL status", metric: DownloadURLStatusCode,
			dcat:   `{"distribution":[{"accessURL":"http://p/","downloadURL":"http://a/"},{"accessURL":"http://p/","downloadURL":"http://b/"}]}`,
			links:  map[string]LinkResult{"http://a/": ok200, "http://b/": broken404, "http://p/": broken404},
			points: 15, total: 15 + 20},
		// format on 1 of 4: 5; PDF is an EU file type: aligned 10/4; neither open nor machine-readable.
		{name: "format", metric: FormatAvailability, dcat: `{"distribution":[{"format":"PDF"},{},{},{}]}`, points: 5, total: 7.5},
		// mediaType on 2 of 2: 10; IANA on 1 of 2: 5; text/csv is CSV: open 10, machine-readable 10.
		{name: "mediaType", metric: MediaTypeAvailability,
			dcat: `{"distribution":[{"mediaType":"text/csv; charset=utf-8"},{"mediaType":"application/unknown"}]}`, points: 10, total: 35},
		{name: "vocabulary alignment both", metric: FormatMediaTypeVocabularyAlignment,
			dcat: `{"distribution":[{"format":"csv","mediaType":"text/csv"},{"format":"Esri REST","mediaType":"text/html"}]}`, points: 5,
			// format 20, mediaType 10, aligned 5, open 20 (CSV, HTML), machine-readable 10 (CSV)
			total: 20 + 10 + 5 + 20 + 10},
		// XLSX machine-readable only, ZIP open only.
		{name: "non-proprietary", metric: FormatMediaTypeNonProprietary, dcat: `{"distribution":[{"format":"XLSX"},{"format":".zip"}]}`, points: 10, total: 20 + 10 + 10 + 10},
		{name: "machine-readable", metric: FormatMediaTypeMachineReadable, dcat: `{"distribution":[{"format":"Shapefile"},{"format":"http://publications.europa.eu/resource/authority/file-type/PNG"}]}`, points: 10, total: 20 + 10 + 10 + 10},
		{name: "compliance", metric: DCATAPCompliance, dcat: `{}`, findings: &no, points: 30, total: 30},
		{name: "compliance, not an object", metric: DCATAPCompliance, dcat: `"x"`, findings: &no, points: 30, total: 30},
		{name: "licence 1.1 CC BY", metric: KnownLicence, dcat: `{"license":"https://creativecommons.org/licenses/by/4.0/","distribution":[{},{}]}`, points: 10, total: 30},
		{name: "licence 1.1 CC0 legalcode", metric: KnownLicence, dcat: `{"license":"http://creativecommons.org/publicdomain/zero/1.0/legalcode","distribution":[{}]}`, points: 10, total: 30},
		{name: "licence ODbL", metric: KnownLicence, dcat: `{"license":"http://opendatacommons.org/licenses/odbl/1.0/","distribution":[{}]}`, points: 10, total: 30},
		{name: "licence EU IRI", metric: KnownLicence, dcat: `{"license":"http://publications.europa.eu/resource/authority/licence/CC_BY_4_0","distribution":[{}]}`, points: 10, total: 30},
		{name: "licence US public domain", metric: LicenceAvailability, dcat: `{"license":"http://www.usa.gov/publicdomain/label/1.0/","distribution":[{}]}`, points: 20, total: 20},
		{name: "licence 3.0 per distribution", metric: LicenceAvailability, dcat: `{"distribution":[{"license":"https://creativecommons.org/licenses/by-sa/4.0/"},{}]}`, points: 10, total: 15},
		{name: "licence without distribution", metric: LicenceAvailability, dcat: `{"license":"https://creativecommons.org/licenses/by/4.0/"}`, points: 0, total: 0},
		{name: "accessLevel public", metric: AccessRightsVocabularyAlignment, dcat: `{"accessLevel":"public"}`, points: 5, total: 15},
		{name: "accessLevel restricted public", metric: AccessRightsVocabularyAlignment, dcat: `{"accessLevel":"restricted public"}`, points: 5, total: 15},
		{name: "accessLevel free text", metric: AccessRightsAvailability, dcat: `{"accessLevel":"open to all"}`, points: 10, total: 10},
		{name: "accessRights 3.0", metric: AccessRightsVocabularyAlignment, dcat: `{"accessRights":"Non-Public"}`, points: 5, total: 15},
		{name: "contactPoint", metric: ContactPointAvailability, dcat: `{"contactPoint":{"@type":"vcard:Contact","fn":"Data Desk"}}`, points: 20, total: 20},
		{name: "contactPoint only @type", metric: ContactPointAvailability, dcat: `{"contactPoint":{"@type":"vcard:Contact","fn":""}}`, points: 0, total: 0},
		{name: "publisher", metric: PublisherAvailability, dcat: `{"publisher":{"@type":"org:Organization","name":"GSA"}}`, points: 10, total: 10},
		{name: "rights 1.1", metric: RightsAvailability, dcat: `{"rights":"Public domain","distribution":[{},{}]}`, points: 5, total: 5},
		{name: "rights 3.0", metric: RightsAvailability, dcat: `{"distribution":[{"rights":["Public domain"]},{"rights":null}]}`, points: 2.5, total: 2.5},
		{name: "byteSize", metric: ByteSizeAvailability, dcat: `{"distribution":[{"byteSize":"1024"},{}]}`, points: 2.5, total: 2.5},
		{name: "issued on the dataset", metric: DateIssuedAvailability, dcat: `{"issued":"2020-01-01"}`, points: 5, total: 5},
		{name: "issued on a distribution", metric: DateIssuedAvailability, dcat: `{"distribution":[{"issued":"2020-01-01"},{},{},{}]}`, points: 1.25, total: 1.25},
		{name: "modified on the dataset", metric: DateModifiedAvailability, dcat: `{"modified":"R/P1D","distribution":[{},{}]}`, points: 5, total: 5},
		{name: "modified on a distribution", metric: DateModifiedAvailability, dcat: `{"distribution":[{"modified":"2020"},{}]}`, points: 2.5, total: 2.5},
	}
}

// TestIndicators scores one record per case and holds the indicator's points, the total and
// the unknown links to the hand-computed ones.
func TestIndicators(t *testing.T) {
	t.Parallel()
	seen := map[Metric]bool{}
	for _, c := range indicatorCases() {
		seen[c.metric] = true
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			findings := c.findings == nil || *c.findings
			s := Assess(Input{DCAT: json.RawMessage(c.dcat), Findings: findings, Links: c.links})
			is, ok := s.Indicator(c.metric)
			require.True(t, ok)
			require.InDelta(t, c.points, is.Points, 1e-9, "%s: %+v", c.metric, is)
			require.InDelta(t, c.total, s.Points, 1e-9, "total: %s", describe(s))
			require.Equal(t, c.unknown, is.Unknown)
			require.Equal(t, MaxPoints, s.Max)
		})
	}
	for _, in := range Indicators {
		require.True(t, seen[in.Metric], "no case for %s", in.Metric)
	}
}

// describe lists the indicators that scored, for failure messages.
func describe(s Score) string {
	var b strings.Builder
	for _, is := range s.Indicators {
		if is.Points != 0 {
			fmt.Fprintf(&b, "%s=%.4g ", is.Metric, is.Points)
		}
	}
	return b.String()
}

// fullRecord is a DCAT-US 1.1 dataset that meets every indicator, with links a and d.
const fullRecord = `{
  "@type": "dcat:Dataset", "title": "T", "description": "D", "keyword": ["k"], "theme": ["t"],
  "spatial": "-77,38,-76,39", "temporal": "2020/2021", "issued": "2020-01-01", "modified": "2021-01-01",
  "publisher": {"@type": "org:Organization", "name": "GSA"},
  "contactPoint": {"@type": "vcard:Contact", "fn": "Desk", "hasEmail": "mailto:d@example.gov"},
  "identifier": "x", "accessLevel": "public", "license": "https://creativecommons.org/licenses/by/4.0/",
  "rights": "none",
  "distribution": [
    {"@type": "dcat:Distribution", "accessURL": "http://h/a", "downloadURL": "http://h/d.csv",
     "mediaType": "text/csv", "format": "CSV", "byteSize": "10"},
    {"@type": "dcat:Distribution", "accessURL": "http://h/a2", "downloadURL": "http://h/d.json",
     "mediaType": "application/json", "format": "JSON", "byteSize": "20"}
  ]
}`

func allLinks(r LinkResult) map[string]LinkResult {
	return map[string]LinkResult{"http://h/a": r, "http://h/d.csv": r, "http://h/a2": r, "http://h/d.json": r}
}

func TestFullRecordScoresEverything(t *testing.T) {
	t.Parallel()
	s := Assess(Input{DCAT: json.RawMessage(fullRecord), Links: allLinks(ok200)})
	require.InDelta(t, float64(MaxPoints), s.Points, 1e-9, describe(s))
	require.Equal(t, Excellent, s.Rating)
	for _, d := range s.Dimensions {
		require.InDelta(t, float64(d.Max), d.Points, 1e-9, d.Dimension)
	}
}

// TestLinksMakeEightyPoints is the pair: two datasets that differ only in whether their
// URLs (each distribution with both an accessURL and a downloadURL) answer 200 or 404 score
// exactly 80 points apart (accessUrlStatusCode 50 + downloadUrlStatusCode 30).
func TestLinksMakeEightyPoints(t *testing.T) {
	t.Parallel()
	good := Assess(Input{DCAT: json.RawMessage(fullRecord), Links: allLinks(ok200)})
	bad := Assess(Input{DCAT: json.RawMessage(fullRecord), Links: allLinks(broken404)})
	unchecked := Assess(Input{DCAT: json.RawMessage(fullRecord)})
	require.Equal(t, 80.0, good.Points-bad.Points)
	require.Equal(t, bad.Points, unchecked.Points, "an unchecked link scores as a broken one")
	is, _ := unchecked.Indicator(AccessURLStatusCode)
	require.Equal(t, 2, is.Unknown)
	require.Equal(t, Excellent, good.Rating)
	require.Equal(t, Good, bad.Rating)
}

func TestRatingBands(t *testing.T) {
	t.Parallel()
	for points, want := range map[float64]Rating{405: Excellent, 351: Excellent, 350.5: Excellent, 350: Good,
		221: Good, 220: Sufficient, 121: Sufficient, 120.5: Sufficient, 120: Bad, 0: Bad} {
		require.Equal(t, want, RatingOf(points), points)
	}
	require.Equal(t, "https://piveau.eu/ns/scoring#enough", Sufficient.IRI())
}

// TestOddShapes scores records of shapes harvested data has, and shapes it should not have,
// without a panic, and with what can be read of them.
func TestOddShapes(t *testing.T) {
	t.Parallel()
	dists := make([]map[string]any, 10_000)
	for i := range dists {
		dists[i] = map[string]any{"downloadURL": fmt.Sprintf("http://h/%d", i), "format": "CSV"}
	}
	many, err := json.Marshal(map[string]any{"description": strings.Repeat("é", 1<<19), "keyword": "one", "distribution": dists})
	require.NoError(t, err)
	s := Assess(Input{DCAT: many, Links: map[string]LinkResult{"http://h/0": ok200}})
	is, _ := s.Indicator(FormatAvailability)
	require.Equal(t, 10_000, is.Of)
	require.Equal(t, 20.0, is.Points)
	is, _ = s.Indicator(AccessURLStatusCode)
	require.Equal(t, 1, is.Met)
	require.Equal(t, 9_999, is.Unknown)
	is, _ = s.Indicator(KeywordAvailability)
	require.Equal(t, 30.0, is.Points)

	single := Assess(Input{DCAT: json.RawMessage(`{"distribution":{"format":"CSV"}}`)})
	is, _ = single.Indicator(FormatAvailability)
	require.Equal(t, 1, is.Of, "a distribution object not in a list is one distribution")
	require.Equal(t, 20.0, is.Points)

	for _, raw := range []string{``, `null`, `[]`, `"text"`, `{`, `42`, `{"distribution":"http://x"}`,
		`{"distribution":[null, 1, "x", [], {"accessURL": 7, "format": ["CSV"], "license": {"a": 1}}]}`,
		`{"keyword":{"a":null},"theme":[[]],"publisher":"GSA","contactPoint":[{"fn":"A"}],"accessLevel":["public"],"license":["x"]}`,
		`{"spatial":0,"temporal":false,"issued":{},"modified":[null],"rights":[],"accessRights":{"@id":"http://publications.europa.eu/resource/authority/access-right/PUBLIC"}}`,
	} {
		s := Assess(Input{DCAT: json.RawMessage(raw), Findings: true})
		require.Len(t, s.Indicators, len(Indicators), raw)
		require.GreaterOrEqual(t, s.Points, 0.0, raw)
		require.LessOrEqual(t, s.Points, float64(MaxPoints), raw)
	}
	// What the loose reading keeps: a string publisher and a 3.0 accessRights object's IRI.
	s = Assess(Input{DCAT: json.RawMessage(`{"publisher":"GSA","accessRights":{"@id":"http://publications.europa.eu/resource/authority/access-right/PUBLIC"}}`), Findings: true})
	require.Equal(t, 10.0+10+5, s.Points, describe(s))
}

func TestAggregate(t *testing.T) {
	t.Parallel()
	full := Assess(Input{DCAT: json.RawMessage(fullRecord), Links: allLinks(ok200)})
	empty := Assess(Input{DCAT: json.RawMessage(`{}`), Findings: true})
	sum := Aggregate([]Score{full, empty, full, empty})
	require.Equal(t, 4, sum.Datasets)
	require.Equal(t, 202.5, sum.Mean)
	require.Equal(t, Sufficient, sum.Rating)
	require.Equal(t, map[Rating]int{Excellent: 2, Bad: 2}, sum.Ratings)
	for _, d := range sum.Dimensions {
		require.Equal(t, 0.5, d.Share, d.Dimension)
	}
	require.Equal(t, 0.5, sum.Indicators[0].Share)
	require.Equal(t, 15.0, sum.Indicators[0].Lost)
	top := sum.Costliest(2)
	require.Equal(t, []Metric{AccessURLStatusCode, KeywordAvailability}, []Metric{top[0].Metric, top[1].Metric})
	require.Empty(t, Aggregate([]Score{full}).Costliest(3), "nothing lost, nothing listed")

	none := Aggregate(nil)
	require.Equal(t, 0.0, none.Mean)
	require.Equal(t, Bad, none.Rating)
	require.Len(t, none.Indicators, len(Indicators))
}

func TestFileTypeOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"CSV": "CSV", ".csv": "CSV", "json-ld": "JSON_LD", "Esri Shapefile": "SHP",
		"text/csv;charset=UTF-8": "CSV", "https://www.iana.org/assignments/media-types/application/json": "JSON",
		"https://publications.europa.eu/resource/authority/file-type/xlsx": "XLSX", "Esri REST": "", "API": "", "": "",
		"application/unknown": "", "pdf": "PDF"} {
		require.Equal(t, want, fileTypeOf(in), in)
	}
}

// TestCombine: summaries of batches combine into the summary of all their datasets.
func TestCombine(t *testing.T) {
	t.Parallel()
	full := Assess(Input{DCAT: json.RawMessage(fullRecord), Links: allLinks(ok200)})
	empty := Assess(Input{DCAT: json.RawMessage(`{}`), Findings: true})
	half := Assess(Input{DCAT: json.RawMessage(fullRecord), Links: allLinks(broken404)})
	want := Aggregate([]Score{full, empty, half, full})
	got := Combine(Aggregate([]Score{full}), Aggregate(nil), Aggregate([]Score{empty, half, full}))
	require.Equal(t, want.Datasets, got.Datasets)
	require.Equal(t, want.Ratings, got.Ratings)
	require.Equal(t, want.Rating, got.Rating)
	require.InDelta(t, want.Mean, got.Mean, 1e-9)
	for i := range want.Dimensions {
		require.InDelta(t, want.Dimensions[i].Share, got.Dimensions[i].Share, 1e-9)
	}
	for i := range want.Indicators {
		require.InDelta(t, want.Indicators[i].Lost, got.Indicators[i].Lost, 1e-9)
	}
	require.Equal(t, Aggregate(nil), Combine())
}
