package portal

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/stages/extract/portal/portaltest"
)

const base = "https://portal.example.org"

func nonFederal(t *testing.T) *dcatus.Validator {
	t.Helper()
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	return v
}

// corpusCKAN maps every corpus CKAN package, by package id.
func corpusCKAN(t *testing.T) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for _, p := range portaltest.CorpusPackages(t) {
		id := portaltest.PackageID(t, p)
		raw, _, err := CKAN(p, base+"/dataset/"+id, "")
		require.NoError(t, err)
		var d map[string]any
		require.NoError(t, json.Unmarshal(raw, &d))
		out[id] = d
	}
	return out
}

func TestCKANCorpusValidatesWhereItHasTheFields(t *testing.T) {
	t.Parallel()
	v := nonFederal(t)
	// The packages that lack a required field, and what they lack.
	lacking := map[string]string{
		"62513382-3b26-4bc8-9096-40b6ce8383c0": "'publisher' is a required property",                     // demo.ckan.org, organization null
		"9c3036b8-f6ac-4a4e-9036-5a3cc90c3900": "'publisher' and 'contactPoint' are required properties", // demo.ckan.org
		"17be64bb-da74-4195-9bb8-565c39846af2": "'contactPoint' is a required property",                  // demo.ckan.org
		"accc72af-077d-40d8-b280-9112a5d5cf4d": "'publisher' is a required property",                     // CKAN 2015: no organization, no email
	}
	valid := 0
	for _, p := range portaltest.CorpusPackages(t) {
		id := portaltest.PackageID(t, p)
		raw, _, err := CKAN(p, base+"/dataset/"+id, "")
		require.NoError(t, err)
		problems, err := v.Validate(raw)
		require.NoError(t, err)
		if want, ok := lacking[id]; ok {
			require.NotEmpty(t, problems, id)
			require.Equal(t, want, problems[0].Message, id)
			continue
		}
		require.Empty(t, problems, "%s: %s", id, raw)
		valid++
	}
	require.Equal(t, 9, valid, "DataSud's 7, EnviDat's and catalog.data.gov's package validate")
}

func TestCKANMappingFieldByField(t *testing.T) {
	t.Parallel()
	got := corpusCKAN(t)["cfa98601-185f-4194-bc0f-119fc23a194b"] // DataSud, a CKAN-compatible API
	want := map[string]any{
		"@type":       "dcat:Dataset",
		"title":       "Canispaces - Ville de Gap",
		"description": "Lieux réservés aux déjections canines de la Ville de Gap\n\nPlus d'information sur la [propreté canine à Gap ](https://www.ville-gap.fr/la-proprete-canine/)",
		"keyword":     []any{"chien", "canispace"},
		"modified":    "2025-07-16", // date-only metadata_modified
		"issued":      "2025-07-16T08:11:44.531453+00:00",
		"publisher":   map[string]any{"@type": "org:Organization", "name": "Communauté d'Agglomération de Gap-Tallard-Durance"},
		"contactPoint": map[string]any{"@type": "vcard:Contact", "fn": "Ville de Gap",
			"hasEmail": "mailto:voirie@ville-gap.fr"}, // no maintainer: the author
		"identifier":  base + "/dataset/cfa98601-185f-4194-bc0f-119fc23a194b",
		"accessLevel": "public",
		"license":     "https://www.etalab.gouv.fr/licence-ouverte-open-licence/", // license_id lov2
		"theme":       []any{"Environnement et climat", "Équipements, bâtiments et logement"},
		"landingPage": base + "/dataset/canispaces----ville-de-gap",
		"distribution": []any{
			map[string]any{"@type": "dcat:Distribution", "title": "canispace_05061", "description": "canispace_05061",
				"downloadURL": "https://www.datasud.fr/fr/dataset/datasets/4539/resource/6176/download/",
				"mediaType":   "application/zip", "format": "Shapefile (zip)"},
			map[string]any{"@type": "dcat:Distribution", "title": "communaute-dagglomeration-de-gap-tallard-durance:canispace_05061",
				"accessURL": "https://www.datasud.fr/geoserver/communaute-dagglomeration-de-gap-tallard-durance/ows",
				"format":    "OGC:WMS"},
			map[string]any{"@type": "dcat:Distribution", "title": "communaute-dagglomeration-de-gap-tallard-durance:canispace_05061",
				"accessURL": "https://www.datasud.fr/geoserver/communaute-dagglomeration-de-gap-tallard-durance/ows?service=WFS&version=1.0.0&request=GetFeature&typeName=communaute-dagglomeration-de-gap-tallard-durance:canispace_05061&maxFeatures=50&outputFormat=application/json",
				"format":    "OGC:WFS"},
		},
	}
	require.Equal(t, want, got)
}

func TestCKANJSONInsideStrings(t *testing.T) {
	t.Parallel()
	var got map[string]any
	for _, d := range corpusCKAN(t) { // EnviDat's package, by its organization
		if pub, _ := d["publisher"].(map[string]any); pub != nil && pub["name"] == "Snow Avalanches and Prevention" {
			got = d
		}
	}
	require.NotNil(t, got, "EnviDat's package")
	require.Equal(t, map[string]any{"@type": "vcard:Contact", "fn": "Avalanche Warning Service SLF",
		"hasEmail": "mailto:data@slf.ch"}, got["contactPoint"], "the maintainer is a JSON object inside a string")
	require.Equal(t, "5.95587,45.81802,10.49203,47.80838", got["spatial"], "a GeoJSON string becomes its bounding box")
}

func TestCKANHarvestedFromDataJSON(t *testing.T) {
	t.Parallel()
	got := corpusCKAN(t)["97b952cd-262c-4f7e-b0a0-b40c39ce9457"] // catalog.data.gov's USDA package
	require.Equal(t, []any{"005:18"}, got["bureauCode"], "an array extra")
	require.Equal(t, []any{"005:040"}, got["programCode"])
	// ckanext-datajson kept the data.json's own fields in extras: they win over the columns.
	require.Equal(t, "372bcb63-d926-4d0c-acc2-857246e36d34", got["identifier"], "the original identifier, not the package's")
	require.Equal(t, "2018-10-30", got["modified"], "the record's modified, not metadata_modified")
	require.Equal(t, "https://creativecommons.org/publicdomain/zero/1.0/", got["license"], "the license extra, not license_url")
	require.Equal(t, "USDA NAL", got["publisher"].(map[string]any)["name"], "the publisher extra, not the organization")
	require.Equal(t, []any{"en"}, got["language"])
}

// TestCKANResourceAccessURL: a resource with an accessURL member (ckanext-datajson writes it
// beside a downloadURL; Harvester's CKAN API always) gives both URLs back as they were.
func TestCKANResourceAccessURL(t *testing.T) {
	t.Parallel()
	raw, _, err := CKAN([]byte(`{"id": "1", "title": "T", "resources": [
		{"url": "https://x.gov/a.csv", "accessURL": "https://x.gov/a", "mimetype": "text/csv"},
		{"url": "https://x.gov/api", "accessURL": "https://x.gov/api", "mimetype": "application/json"},
		{"url": "https://x.gov/b.csv", "mimetype": "text/csv"}]}`), base+"/dataset/1", "")
	require.NoError(t, err)
	var d struct{ Distribution []map[string]any }
	require.NoError(t, json.Unmarshal(raw, &d))
	require.Equal(t, "https://x.gov/a.csv", d.Distribution[0]["downloadURL"])
	require.Equal(t, "https://x.gov/a", d.Distribution[0]["accessURL"])
	require.Equal(t, "https://x.gov/api", d.Distribution[1]["accessURL"], "an accessURL with a media type stays one")
	require.NotContains(t, d.Distribution[1], "downloadURL")
	require.Equal(t, "https://x.gov/b.csv", d.Distribution[2]["downloadURL"])
}

func TestCKANNoOrganization(t *testing.T) {
	t.Parallel()
	pkgs := portaltest.CorpusPackages(t)
	var old json.RawMessage
	for _, p := range pkgs {
		if portaltest.PackageID(t, p) == "accc72af-077d-40d8-b280-9112a5d5cf4d" {
			old = p
		}
	}
	raw, warnings, err := CKAN(old, base+"/dataset/accc72af-077d-40d8-b280-9112a5d5cf4d", "Mes Cachets")
	require.NoError(t, err)
	var d map[string]any
	require.NoError(t, json.Unmarshal(raw, &d))
	require.Equal(t, map[string]any{"@type": "org:Organization", "name": "Mes Cachets"}, d["publisher"],
		"the source's organization names the publisher")
	require.Len(t, warnings, 1)
	require.Equal(t, "publisher", warnings[0].Field)
	require.NotContains(t, d, "distribution", "no resources")
	require.NotContains(t, d, "license", `"notspecified" has no URL`)
	require.Equal(t, []any{"intermittent du spectacle", "économie"}, d["keyword"])
}

func TestCKANEdgeCases(t *testing.T) {
	t.Parallel()
	raw, warnings, err := CKAN([]byte(`{"id": 7, "name": "n", "private": true, "tags": ["a", {"display_name": "b"}],
		"extras": [{"key": "spatial", "value": "{\"type\":\"Point\",\"coordinates\":[1.5,2]}"},
		{"key": "temporal_start", "value": "2020-01-01"}, {"key": "temporal_end", "value": "2020-12-31"}],
		"resources": [{"url": "mailto:x@y", "name": "r"}, {"url": "https://x/y.csv", "mimetype": "CSV"},
		{"url": "ftp://x/y", "name": "f"}]}`),
		base+"/dataset/7", "")
	require.NoError(t, err)
	var d map[string]any
	require.NoError(t, json.Unmarshal(raw, &d))
	require.Equal(t, "n", d["title"], "no title: the name")
	require.Equal(t, "non-public", d["accessLevel"])
	require.Equal(t, []any{"a", "b"}, d["keyword"])
	require.Equal(t, "1.5,2,1.5,2", d["spatial"])
	require.Equal(t, "2020-01-01/2020-12-31", d["temporal"])
	require.Equal(t, base+"/dataset/n", d["landingPage"])
	dist := d["distribution"].([]any)
	require.Equal(t, map[string]any{"@type": "dcat:Distribution", "title": "r"}, dist[0])
	require.Equal(t, map[string]any{"@type": "dcat:Distribution", "accessURL": "https://x/y.csv"}, dist[1],
		"a mimetype that is not a media type is left out, and the URL is an access URL")
	require.Equal(t, map[string]any{"@type": "dcat:Distribution", "title": "f", "accessURL": "ftp://x/y"}, dist[2],
		"an ftp URL is kept (federal distributions have them)")
	require.Len(t, warnings, 1)
	require.Contains(t, warnings[0].Message, `"mailto:x@y" is not an http(s) or ftp URL`)

	_, _, err = CKAN([]byte(`[1]`), base+"/dataset/x", "")
	require.True(t, errors.Is(err, ErrNotItem), "%v", err)
}

func TestDKANCorpusUnwrapsAndValidates(t *testing.T) {
	t.Parallel()
	v := nonFederal(t)
	items := portaltest.CorpusDKANItems(t)
	wrapped := 0
	for _, it := range items {
		if strings.Contains(string(it), `"%Ref:downloadURL"`) {
			wrapped++
		}
		var k struct{ Identifier string }
		require.NoError(t, json.Unmarshal(it, &k))
		raw, _, err := DKAN(it, base+"/dataset/"+k.Identifier)
		require.NoError(t, err)
		problems, err := v.Validate(raw)
		require.NoError(t, err)
		require.Empty(t, problems, "%s", raw)
		require.NotContains(t, string(raw), `"%`, "DKAN's own members are dropped")
		var d map[string]any
		require.NoError(t, json.Unmarshal(raw, &d))
		require.Equal(t, base+"/dataset/"+k.Identifier, d["identifier"])
		if k.Identifier == "cedcd327-4e5d-43f9-8eb1-c11850fa7c55" {
			require.Equal(t, []any{"bike-lanes", "streets", "infrastructure"}, d["keyword"])
			require.Equal(t, []any{"Transportation", "City Planning"}, d["theme"])
			require.Equal(t, map[string]any{"@type": "org:Organization", "name": "State Economic Council"}, d["publisher"])
			dist := d["distribution"].([]any)[0].(map[string]any)
			require.Equal(t, "text/csv", dist["mediaType"])
			require.NotContains(t, dist, "identifier", "the wrapper's identifier goes with the wrapper")
		}
	}
	require.Equal(t, 1, wrapped, "one item is in its show-reference-ids form")
	_, _, err := DKAN([]byte(`"x"`), base+"/dataset/x")
	require.ErrorIs(t, err, ErrNotItem)
}

func TestSpatial(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`"{\"type\": \"Polygon\", \"coordinates\": [[[-10, 5], [20, 5], [20, 30], [-10, 5]]]}"`:                                  `-10,5,20,30`,
		`{"type": "MultiPoint", "coordinates": [[1, 2], [3, -4]]}`:                                                               `1,-4,3,2`,
		`{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 1]}}]}`: `1,1,1,1`,
		`"Florida"`: `Florida`,
	} {
		got, ok := Spatial(json.RawMessage(in))
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{``, `null`, `""`, `[]`} {
		_, ok := Spatial(json.RawMessage(in))
		require.False(t, ok, in)
	}
}

func TestLicenseURL(t *testing.T) {
	t.Parallel()
	require.Equal(t, "https://x.example/l", LicenseURL("https://x.example/l", "cc-by"))
	require.Equal(t, "https://creativecommons.org/licenses/by/4.0/", LicenseURL("", "CC-BY"))
	require.Equal(t, "https://opendatacommons.org/licenses/by/1.0/", LicenseURL("", "https://opendatacommons.org/licenses/by/1.0/"))
	require.Empty(t, LicenseURL("", "notspecified"))
}
