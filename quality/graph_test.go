package quality

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/rdf"
)

// graphDataset is the dataset IRI of the Turtle fixtures.
const graphDataset = "https://ex.eu/ds"

// graphPrefixes start every Turtle fixture; the dataset is typed so that a fixture with nothing
// else still describes it.
const graphPrefixes = `@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix vcard: <http://www.w3.org/2006/vcard/ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix gsp: <http://www.opengis.net/ont/geosparql#> .
@prefix ft: <http://publications.europa.eu/resource/authority/file-type/> .
@prefix ar: <http://publications.europa.eu/resource/authority/access-right/> .
@prefix lic: <http://publications.europa.eu/resource/authority/licence/> .
@prefix iana: <http://www.iana.org/assignments/media-types/> .
@prefix : <https://ex.eu/> .
:ds a dcat:Dataset .
`

// recordGraph returns the record graph of the Turtle fixture as EXTRACT stores it: skolemized,
// canonical N-Quads.
func recordGraph(t *testing.T, turtle string) []byte {
	t.Helper()
	var ts []rdf.Triple
	require.NoError(t, rdf.Parse(strings.NewReader(graphPrefixes+turtle), rdf.Turtle, "", func(tr rdf.Triple) error {
		ts = append(ts, tr)
		return nil
	}))
	nq, _, err := dcatap.Canonical(dcatap.Skolemize(graphDataset, ts))
	require.NoError(t, err)
	return nq
}

// graphCase is a DCAT-AP record whose points on one indicator, and in all, are computed by hand.
type graphCase struct {
	name     string
	metric   Metric
	turtle   string
	links    map[string]LinkResult
	findings *bool // nil: true, so that compliance (30) stays out of the sum
	points   float64
	total    float64
	unknown  int
}

func graphCases() []graphCase { return append(graphDatasetCases(), graphDistributionCases()...) }

// graphDatasetCases are the cases of the dataset-level indicators.
func graphDatasetCases() []graphCase {
	no := false
	return []graphCase{
		{name: "keyword", metric: KeywordAvailability, turtle: `:ds dcat:keyword "water"@en .`, points: 30, total: 30},
		{name: "keyword blank", metric: KeywordAvailability, turtle: `:ds dcat:keyword " " .`},
		{name: "theme", metric: CategoryAvailability,
			turtle: `:ds dcat:theme <http://publications.europa.eu/resource/authority/data-theme/ENVI> .`, points: 30, total: 30},
		{name: "spatial location", metric: SpatialAvailability,
			turtle: `:ds dct:spatial [ a dct:Location ; dcat:bbox "POLYGON((2 48,3 48,3 49,2 49,2 48))"^^gsp:wktLiteral ] .`,
			points: 20, total: 20},
		// a node that says nothing but its type is no spatial coverage
		{name: "spatial empty node", metric: SpatialAvailability, turtle: `:ds dct:spatial [ a dct:Location ] .`},
		{name: "temporal", metric: TemporalAvailability,
			turtle: `:ds dct:temporal [ a dct:PeriodOfTime ; dcat:startDate "2020-01-01"^^xsd:date ] .`, points: 20, total: 20},
		{name: "contact point", metric: ContactPointAvailability,
			turtle: `:ds dcat:contactPoint [ a vcard:Organization ; vcard:fn "Data team" ] .`, points: 20, total: 20},
		{name: "contact point of a type only", metric: ContactPointAvailability, turtle: `:ds dcat:contactPoint [ a vcard:Kind ] .`},
		// a publisher named by an IRI the record graph says nothing more of
		{name: "publisher IRI", metric: PublisherAvailability, turtle: `:ds dct:publisher <https://ex.eu/org> .`, points: 10, total: 10},
		// present 10, from the EU access-right table 5
		{name: "access rights EU", metric: AccessRightsVocabularyAlignment, turtle: `:ds dct:accessRights ar:PUBLIC .`,
			points: 5, total: 15},
		// a literal, even one DCAT-US would map, is present but from no vocabulary
		{name: "access rights literal", metric: AccessRightsVocabularyAlignment, turtle: `:ds dct:accessRights "public" .`,
			total: 10},
		{name: "access rights statement", metric: AccessRightsAvailability,
			turtle: `:ds dct:accessRights [ a dct:RightsStatement ; rdfs:label "Open to all" ] .`, points: 10, total: 10},
		{name: "compliant", metric: DCATAPCompliance, turtle: ``, findings: &no, points: 30, total: 30},
		// the dataset's own date counts in full, even without a distribution
		{name: "issued on the dataset", metric: DateIssuedAvailability, turtle: `:ds dct:issued "2020-01-01"^^xsd:date .`,
			points: 5, total: 5},
	}
}

// graphDistributionCases are the cases of the indicators judged per distribution.
func graphDistributionCases() []graphCase {
	return []graphCase{
		// d1 OK, d2 broken, d3 (downloadURL only: judged by it) OK: 50×2/3; downloadURL on 1 of
		// 3: 20/3 present and 30/3 OK. 100/3 + 20/3 + 30/3 = 50.
		{name: "accessURL status", metric: AccessURLStatusCode,
			turtle: `:ds dcat:distribution :d1, :d2, :d3 .
				:d1 dcat:accessURL <http://a/> . :d2 dcat:accessURL <http://b/> . :d3 dcat:downloadURL <http://c/> .`,
			links:  map[string]LinkResult{"http://a/": ok200, "http://b/": broken404, "http://c/": ok200},
			points: 50.0 * 2 / 3, total: 50},
		{name: "accessURL not checked", metric: AccessURLStatusCode,
			turtle: `:ds dcat:distribution [ dcat:accessURL <http://a/> ], [ dcat:accessURL <http://u/> ] .`,
			links:  map[string]LinkResult{"http://a/": ok200}, points: 25, total: 25, unknown: 1},
		// two accessURLs: the distribution is judged by the first in N-Triples order, the one
		// TRANSFORM writes and CHECK checks (<http://a/>)
		{name: "accessURL of two", metric: AccessURLStatusCode,
			turtle: `:ds dcat:distribution [ dcat:accessURL <http://b/>, <http://a/> ] .`,
			links:  map[string]LinkResult{"http://a/": ok200, "http://b/": broken404}, points: 50, total: 50},
		// a downloadURL that is a literal is no URL: not present, and the accessURL indicator
		// has nothing to judge by
		{name: "downloadURL literal", metric: DownloadURLAvailability,
			turtle: `:ds dcat:distribution [ dcat:downloadURL "http://a/" ] .`,
			links:  map[string]LinkResult{"http://a/": ok200}},
		// downloadURL on 2 of 2: 20; OK on 1 of 2: 15; the accessURLs are broken.
		{name: "downloadURL status", metric: DownloadURLStatusCode,
			turtle: `:ds dcat:distribution [ dcat:accessURL <http://p/> ; dcat:downloadURL <http://a/> ],
				[ dcat:accessURL <http://p/> ; dcat:downloadURL <http://b/> ] .`,
			links:  map[string]LinkResult{"http://a/": ok200, "http://b/": broken404, "http://p/": broken404},
			points: 15, total: 15 + 20},
		// format on 1 of 4: 5; PDF is an EU file type: aligned 10/4; neither open nor machine-readable.
		{name: "format", metric: FormatAvailability,
			turtle: `:ds dcat:distribution [ dct:format ft:PDF ], [ dct:title "b" ], [ dct:title "c" ], [ dct:title "d" ] .`,
			points: 5, total: 7.5},
		// a literal format: present 20, not aligned (DCAT-AP wants the file type's IRI); CSV
		// still tells the format: open 20, machine-readable 20.
		{name: "format literal", metric: FormatMediaTypeVocabularyAlignment,
			turtle: `:ds dcat:distribution [ dct:format "CSV" ] .`, total: 60},
		// mediaType on 2 of 2: 10; the IANA IRI aligned, the literal not: 5; text/csv is CSV:
		// open 20, machine-readable 20.
		{name: "media type", metric: FormatMediaTypeVocabularyAlignment,
			turtle: `:ds dcat:distribution [ dcat:mediaType iana:text\/csv ], [ dcat:mediaType "text/csv" ] .`,
			points: 5, total: 55},
		// format (an IANA IRI) 20, mediaType 10, not aligned (application/unknown is no IANA
		// media type), CSV by the format: open 20, machine-readable 20.
		{name: "media type not in IANA", metric: FormatMediaTypeVocabularyAlignment,
			turtle: `:ds dcat:distribution [ dct:format iana:text\/csv ; dcat:mediaType iana:application\/unknown ] .`,
			total:  70},
		// EU file type and IANA media type: 20 + 10 + 10, XLSX is machine-readable but
		// proprietary: 20.
		{name: "machine-readable", metric: FormatMediaTypeMachineReadable,
			turtle: `:ds dcat:distribution [ dct:format ft:XLSX ;
				dcat:mediaType <http://www.iana.org/assignments/media-types/application/vnd.openxmlformats-officedocument.spreadsheetml.sheet> ] .`,
			points: 20, total: 60},
		// a format node: present, nothing else
		{name: "format node", metric: FormatAvailability,
			turtle: `:ds dcat:distribution [ dct:format [ a dct:MediaTypeOrExtent ; rdfs:label "CSV" ] ] .`,
			points: 20, total: 20},
		// licence on 1 of 2: 10, known: 5
		{name: "licence EU", metric: KnownLicence,
			turtle: `:ds dcat:distribution [ dct:license lic:CC_BY_4_0 ], [ dct:title "b" ] .`, points: 5, total: 15},
		// the dataset's licence holds for its distributions: 20 + 10
		{name: "licence of the dataset", metric: LicenceAvailability,
			turtle: `:ds dct:license <https://creativecommons.org/licenses/by/4.0/> ;
				dcat:distribution [ dct:title "a" ], [ dct:title "b" ] .`, points: 20, total: 30},
		{name: "licence unknown", metric: KnownLicence, turtle: `:ds dcat:distribution [ dct:license "see the site" ] .`,
			total: 20},
		{name: "rights", metric: RightsAvailability,
			turtle: `:ds dcat:distribution [ dct:rights [ a dct:RightsStatement ; rdfs:label "x" ] ], [ dct:title "b" ] .`,
			points: 2.5, total: 2.5},
		{name: "byte size", metric: ByteSizeAvailability,
			turtle: `:ds dcat:distribution [ dcat:byteSize "1024"^^xsd:nonNegativeInteger ], [ dct:title "b" ] .`,
			points: 2.5, total: 2.5},
		{name: "modified on a distribution", metric: DateModifiedAvailability,
			turtle: `:ds dcat:distribution [ dct:modified "2020-01-01"^^xsd:date ], [ dct:title "b" ] .`,
			points: 2.5, total: 2.5},
	}
}

// TestGraphIndicators holds each indicator on a DCAT-AP record graph to points computed by hand.
func TestGraphIndicators(t *testing.T) {
	t.Parallel()
	for _, c := range graphCases() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			in := Input{Graph: recordGraph(t, c.turtle), Identifier: graphDataset, Findings: true, Links: c.links,
				DCAT: []byte(`{"keyword":["not read"]}`)}
			if c.findings != nil {
				in.Findings = *c.findings
			}
			s := Assess(in)
			got, ok := s.Indicator(c.metric)
			require.True(t, ok)
			require.InDelta(t, c.points, got.Points, 1e-9, "%s points", c.metric)
			require.Equal(t, c.unknown, got.Unknown, "%s unknown", c.metric)
			require.InDelta(t, c.total, s.Points, 1e-9, "total: %+v", s.Indicators)
		})
	}
}

// graphFull is a DCAT-AP dataset that meets every indicator, its two URLs given by the caller.
func graphFull(access, download string) string {
	return fmt.Sprintf(`:ds dcat:keyword "water" ; dcat:theme <http://publications.europa.eu/resource/authority/data-theme/ENVI> ;
		dct:spatial <http://publications.europa.eu/resource/authority/country/FRA> ;
		dct:temporal [ dcat:startDate "2020-01-01"^^xsd:date ] ;
		dct:accessRights ar:PUBLIC ; dcat:contactPoint [ vcard:hasEmail <mailto:data@ex.eu> ] ;
		dct:publisher <https://ex.eu/org> ; dct:issued "2020-01-01"^^xsd:date ; dct:modified "2021-01-01"^^xsd:date ;
		dcat:distribution [ dcat:accessURL <%s> ; dcat:downloadURL <%s> ; dct:format ft:CSV ;
			dcat:mediaType iana:text\/csv ; dct:license lic:CC_BY_4_0 ; dct:rights [ rdfs:label "open" ] ;
			dcat:byteSize "10"^^xsd:nonNegativeInteger ] .`, access, download)
}

// A graph that meets every indicator scores 405; the same with its links broken 80 less.
func TestGraphFullAndLinks(t *testing.T) {
	t.Parallel()
	nq := recordGraph(t, graphFull("http://a/", "http://b/"))
	in := Input{Graph: nq, Identifier: graphDataset, Links: map[string]LinkResult{"http://a/": ok200, "http://b/": ok200}}
	full := Assess(in)
	require.InDelta(t, float64(MaxPoints), full.Points, 1e-9, "%+v", full.Indicators)
	require.Equal(t, Excellent, full.Rating)
	in.Links = map[string]LinkResult{"http://a/": broken404, "http://b/": broken404}
	require.InDelta(t, 80, full.Points-Assess(in).Points, 1e-9)
}

// A graph that does not parse, or does not describe the identifier, leaves the DCAT-US record
// to be scored.
func TestGraphFallsBackToDCAT(t *testing.T) {
	t.Parallel()
	dcat := []byte(`{"keyword":["water"]}`)
	for name, in := range map[string]Input{
		"no N-Quads":         {Graph: []byte("not n-quads <"), Identifier: graphDataset},
		"another dataset":    {Graph: recordGraph(t, ``), Identifier: "https://ex.eu/other"},
		"no identifier":      {Graph: recordGraph(t, ``)},
		"no graph (DCAT-US)": {},
	} {
		in.DCAT, in.Findings = dcat, true
		s := Assess(in)
		require.InDelta(t, 30, s.Points, 1e-9, name)
	}
}
