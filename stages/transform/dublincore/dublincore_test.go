package dublincore

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/internal/pycswtest"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// validate returns the DCAT-US 1.1 non-federal problems of a transformed record.
func validate(t *testing.T, dcat []byte) []dcatus.Problem {
	t.Helper()
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	problems, err := v.Validate(dcat)
	require.NoError(t, err)
	return problems
}

func decode(t *testing.T, dcat []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(dcat, &m))
	return m
}

func fields(ws []Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Field+": "+w.Message)
	}
	return out
}

// full is a csw:Record with every element the mapping reads.
const full = `<?xml version="1.0" encoding="UTF-8"?>
<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:dct="http://purl.org/dc/terms/" xmlns:ows="http://www.opengis.net/ows">
  <dc:identifier>urn:uuid:a1</dc:identifier>
  <dc:title>Coastal Wetlands</dc:title>
  <dc:type>dataset</dc:type>
  <dc:subject>wetlands</dc:subject>
  <dc:subject> coastal </dc:subject>
  <dc:subject>wetlands</dc:subject>
  <dc:format>application/x-shapefile</dc:format>
  <dc:creator>Mapping Team (maps@example.gov)</dc:creator>
  <dc:publisher>Example Coastal Agency</dc:publisher>
  <dc:rights>Restricted: registered users only</dc:rights>
  <dct:license>https://creativecommons.org/publicdomain/zero/1.0/</dct:license>
  <dc:language>eng</dc:language>
  <dc:language>fr-ca</dc:language>
  <dct:abstract>Tidal wetlands.</dct:abstract>
  <dc:description>Not used: the abstract wins.</dc:description>
  <dct:modified>2024-03-01</dct:modified>
  <dct:issued>2020-01-15T10:00:00Z</dct:issued>
  <dct:temporal>start=2019-01-01; end=2021-12-31; scheme=W3C-DTF</dct:temporal>
  <dct:references scheme="WWW:DOWNLOAD-1.0-http--download">https://data.example.gov/wetlands/get?id=1</dct:references>
  <dct:references scheme="WWW:DOWNLOAD-1.0-http--download">https://data.example.gov/wetlands/all.zip</dct:references>
  <dct:references scheme="OGC:WMS-1.3.0-http-get-map">https://maps.example.gov/wms?service=WMS&amp;request=GetCapabilities</dct:references>
  <dct:references scheme="WWW:LINK-1.0-http--link">https://data.example.gov/wetlands/</dct:references>
  <dct:references>not a url</dct:references>
  <dc:relation>https://doi.example.org/10.1/xyz</dc:relation>
  <ows:BoundingBox crs="urn:ogc:def:crs:EPSG::4326">
    <ows:LowerCorner>41.2 -71.1</ows:LowerCorner>
    <ows:UpperCorner>45.1 -66.9</ows:UpperCorner>
  </ows:BoundingBox>
</csw:Record>`

func TestFullRecord(t *testing.T) {
	out, warnings, err := Transform([]byte(full), "urn:uuid:a1", "Source Org")
	require.NoError(t, err)
	require.Empty(t, validate(t, out), string(out))
	d := decode(t, out)
	require.Equal(t, "Coastal Wetlands", d["title"])
	require.Equal(t, "Tidal wetlands.", d["description"])
	require.Equal(t, []any{"wetlands", "coastal"}, d["keyword"])
	require.Equal(t, "2024-03-01T00:00:00.000+00:00", d["modified"])
	require.Equal(t, "2020-01-15T10:00:00.000+00:00", d["issued"])
	require.Equal(t, "2019-01-01T00:00:00+00:00/2021-12-31T00:00:00+00:00", d["temporal"])
	require.Equal(t, map[string]any{"@type": "org:Organization", "name": "Example Coastal Agency"}, d["publisher"])
	require.Equal(t, map[string]any{"@type": "vcard:Contact", "fn": "Mapping Team (maps@example.gov)", "hasEmail": "mailto:maps@example.gov"}, d["contactPoint"])
	require.Equal(t, "urn:uuid:a1", d["identifier"])
	require.Equal(t, "restricted public", d["accessLevel"])
	require.Equal(t, "Restricted: registered users only", d["rights"])
	require.Equal(t, "https://creativecommons.org/publicdomain/zero/1.0/", d["license"])
	require.Equal(t, []any{"en", "fr-CA"}, d["language"])
	require.Equal(t, "-71.1,41.2,-66.9,45.1", d["spatial"])
	require.Equal(t, "https://data.example.gov/wetlands/", d["landingPage"])
	require.Equal(t, []any{"https://doi.example.org/10.1/xyz"}, d["references"])
	require.Equal(t, []any{"geospatial"}, d["theme"])
	require.Equal(t, []any{
		map[string]any{"@type": "dcat:Distribution", "downloadURL": "https://data.example.gov/wetlands/get?id=1", "mediaType": "application/x-shapefile"},
		map[string]any{"@type": "dcat:Distribution", "downloadURL": "https://data.example.gov/wetlands/all.zip", "mediaType": "application/zip"},
		map[string]any{"@type": "dcat:Distribution", "accessURL": "https://maps.example.gov/wms?service=WMS&request=GetCapabilities", "mediaType": "application/xml"},
		map[string]any{"@type": "dcat:Distribution", "accessURL": "https://data.example.gov/wetlands/", "mediaType": "text/html"},
	}, d["distribution"])
	require.Equal(t, []string{`distribution: dct:references "not a url" is not a valid URL; dropped`}, fields(warnings))
}

// A record with nothing but its root maps with Data.gov's placeholders, each warned, and
// fails validation only for its missing title.
func TestEmptyRecord(t *testing.T) {
	for _, ns := range []string{NamespaceCSW202, NamespaceCSW30} {
		for _, root := range []string{"Record", "SummaryRecord", "BriefRecord"} {
			doc := `<csw:` + root + ` xmlns:csw="` + ns + `"/>`
			out, warnings, err := Transform([]byte(doc), "id-1", "")
			require.NoError(t, err, doc)
			d := decode(t, out)
			require.Equal(t, iso.PlaceholderDescription, d["description"])
			require.Equal(t, []any{iso.PlaceholderKeyword}, d["keyword"])
			require.Equal(t, map[string]any{"@type": "org:Organization", "name": iso.PlaceholderPublisher}, d["publisher"])
			require.Equal(t, map[string]any{"@type": "vcard:Contact", "fn": iso.PlaceholderContactName, "hasEmail": iso.PlaceholderContactEmail}, d["contactPoint"])
			require.Equal(t, "public", d["accessLevel"])
			require.NotEmpty(t, d["modified"])
			require.NotContains(t, d, "title")
			var ws []string
			for _, w := range warnings {
				ws = append(ws, w.Field)
			}
			require.Equal(t, []string{"title", "description", "keyword", "modified", "publisher", "contactPoint", "contactPoint"}, ws)
			problems := validate(t, out)
			require.Len(t, problems, 1)
			require.Contains(t, problems[0].Message, "title")
		}
	}
}

// The source's organization names the publisher when the record names none.
func TestPublisherFromSource(t *testing.T) {
	doc := `<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title><dc:creator>A Person</dc:creator></csw:Record>`
	out, warnings, err := Transform([]byte(doc), "", "Source Org")
	require.NoError(t, err)
	d := decode(t, out)
	require.Equal(t, "Source Org", d["publisher"].(map[string]any)["name"])
	require.Equal(t, "A Person", d["contactPoint"].(map[string]any)["fn"])
	require.Contains(t, fields(warnings), `publisher: the record has no dc:publisher; used "Source Org"`)
	require.Contains(t, fields(warnings), "identifier: the record has no dc:identifier and the harvest gave none")
}

func TestBoundingBoxAxisOrder(t *testing.T) {
	for _, tc := range []struct{ box, want string }{
		{`<ows:WGS84BoundingBox><ows:LowerCorner>-71.1 41.2</ows:LowerCorner><ows:UpperCorner>-66.9 45.1</ows:UpperCorner></ows:WGS84BoundingBox>`, "-71.1,41.2,-66.9,45.1"},
		{`<ows:BoundingBox crs="urn:x-ogc:def:crs:EPSG:6.11:4326"><ows:LowerCorner>41.2 -71.1</ows:LowerCorner><ows:UpperCorner>45.1 -66.9</ows:UpperCorner></ows:BoundingBox>`, "-71.1,41.2,-66.9,45.1"},
		{`<ows:BoundingBox crs="http://www.opengis.net/def/crs/EPSG/0/4326"><ows:LowerCorner>41.2 -71.1</ows:LowerCorner><ows:UpperCorner>45.1 -66.9</ows:UpperCorner></ows:BoundingBox>`, "-71.1,41.2,-66.9,45.1"},
		{`<ows:BoundingBox crs="urn:ogc:def:crs:OGC:1.3:CRS84"><ows:LowerCorner>-71.1 41.2</ows:LowerCorner><ows:UpperCorner>-66.9 45.1</ows:UpperCorner></ows:BoundingBox>`, "-71.1,41.2,-66.9,45.1"},
		// lat/lon order where lon/lat is declared: out of range as declared, read the other way
		{`<ows:BoundingBox crs="EPSG:4326"><ows:LowerCorner>41.2 -171.1</ows:LowerCorner><ows:UpperCorner>45.1 -166.9</ows:UpperCorner></ows:BoundingBox>`, "-171.1,41.2,-166.9,45.1"},
		// a projected CRS is not a longitude/latitude box; dct:spatial is used instead
		{`<ows:BoundingBox crs="urn:ogc:def:crs:EPSG::26918"><ows:LowerCorner>500000 4500000</ows:LowerCorner><ows:UpperCorner>600000 4600000</ows:UpperCorner></ows:BoundingBox><dct:spatial>Maine</dct:spatial>`, "Maine"},
		{`<ows:WGS84BoundingBox><ows:LowerCorner>a b</ows:LowerCorner><ows:UpperCorner>1 2</ows:UpperCorner></ows:WGS84BoundingBox>`, ""},
	} {
		doc := `<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dct="http://purl.org/dc/terms/" xmlns:ows="http://www.opengis.net/ows">` + tc.box + `</csw:Record>`
		out, _, err := Transform([]byte(doc), "x", "")
		require.NoError(t, err)
		got, _ := decode(t, out)["spatial"].(string)
		require.Equal(t, tc.want, got, tc.box)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		kind error
		msg  string
	}{
		{`<metadata><idinfo/></metadata>`, ErrNotDublinCore, "FGDC"},
		{`<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd"/>`, ErrNotDublinCore, "ISO 19115"},
		{`<Record/>`, ErrNotDublinCore, "{}Record"},
		{`<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"><dc:title xmlns:dc="http://purl.org/dc/elements/1.1/">x</csw:Record>`, ErrMalformedXML, "line 1"},
		{`<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2">&x;</csw:Record>`, ErrMalformedXML, "entity"},
		{"", ErrMalformedXML, "no root"},
		{"<?xml version=\"1.0\"?><csw:Record xmlns:csw=\"http://www.opengis.net/cat/csw/2.0.2\">\xff</csw:Record>", iso.ErrEncoding, "offset"},
	} {
		out, _, err := Transform([]byte(tc.doc), "x", "")
		require.Nil(t, out)
		require.True(t, errors.Is(err, tc.kind), "%q: %v", tc.doc, err)
		require.ErrorContains(t, err, tc.msg)
	}
}

// The sample records the pycsw test server holds (10 csw:Record documents) all map to valid
// DCAT-US 1.1 non-federal; the 3 ISO ones are not Dublin Core.
func TestPycswSampleRecordFiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(pycswtest.RecordsDir(), "*.xml"))
	require.NoError(t, err)
	require.Len(t, files, len(pycswtest.SampleIdentifiers))
	mapped := 0
	for _, f := range files {
		doc, err := os.ReadFile(f)
		require.NoError(t, err)
		out, _, err := Transform(doc, "", "Source Org")
		if strings.HasPrefix(filepath.Base(f), "9e1d3c40") {
			require.ErrorIs(t, err, ErrNotDublinCore, f)
			continue
		}
		require.NoError(t, err, f)
		require.Empty(t, validate(t, out), "%s: %s", f, out)
		require.Contains(t, pycswtest.SampleIdentifiers, decode(t, out)["identifier"])
		mapped++
	}
	require.Equal(t, 10, mapped)
}
