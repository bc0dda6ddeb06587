package portal

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
)

// corpusJSON reads a corpus file.
func corpusJSON(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(corpustest.Path(t, name))
	require.NoError(t, err)
	return b
}

// items splits the array member of a corpus response into its items.
func items(t *testing.T, body []byte, member string) []json.RawMessage {
	t.Helper()
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(body, &env))
	var out []json.RawMessage
	require.NoError(t, json.Unmarshal(env[member], &out))
	return out
}

// mapFunc is a platform's mapping (Socrata, ArcGIS, OpenDataSoft, CKAN).
type mapFunc func(item []byte, identifier, publisherName string) ([]byte, []Warning, error)

// mapEach maps every item of the array member of corpus file name, under the identifier ident
// makes of the item's idMember, with the publisher name pub; check gets the identifier, the
// item and its DCAT-US. It returns the items, len of them want.
func mapEach(t *testing.T, name, member string, want int, idMember string, ident func(string) string, mapItem mapFunc,
	pub string, check func(id string, item json.RawMessage, dcat []byte)) []json.RawMessage {
	t.Helper()
	list := items(t, corpusJSON(t, name), member)
	require.Len(t, list, want)
	for _, it := range list {
		var probe map[string]any
		require.NoError(t, json.Unmarshal(it, &probe))
		idValue, _ := probe[idMember].(string)
		id := ident(idValue)
		dcat, _, err := mapItem(it, id, pub)
		require.NoError(t, err)
		check(id, it, dcat)
	}
	return list
}

func same(s string) string { return s }

// mapFile maps corpus file name, a single item, under the identifier id and no publisher
// name, and checks its problems (mapped).
func mapFile(t *testing.T, mapItem mapFunc, name, id string, want ...string) map[string]any {
	t.Helper()
	dcat, _, err := mapItem(corpusJSON(t, name), id, "")
	require.NoError(t, err)
	return mapped(t, dcat, want...)
}

// mapped decodes a DCAT-US result and checks it against the non-federal schema: its problems,
// as "path: message", must be want (none: valid).
func mapped(t *testing.T, dcat []byte, want ...string) map[string]any {
	t.Helper()
	got := problems(t, dcat)
	if len(want) == 0 {
		assert.Empty(t, got, "DCAT-US:\n%s", dcat)
	} else {
		assert.Equal(t, want, got, "DCAT-US:\n%s", dcat)
	}
	var d map[string]any
	require.NoError(t, json.Unmarshal(dcat, &d))
	return d
}

// problems are the non-federal schema's problems with dcat, as "path: message".
func problems(t *testing.T, dcat []byte) []string {
	t.Helper()
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	ps, err := v.Validate(dcat)
	require.NoError(t, err)
	var out []string
	for _, p := range ps {
		out = append(out, p.Path+": "+p.Message)
	}
	return out
}

// Problems of items that lack a required field (left out, never a placeholder).
const (
	noContact      = "$: 'contactPoint' is a required property"
	noContactEmail = "$.contactPoint: 'hasEmail' is a required property"
	noPubContact   = "$: 'publisher' and 'contactPoint' are required properties"
)

func warned(ws []Warning, field string) bool {
	for _, w := range ws {
		if w.Field == field {
			return true
		}
	}
	return false
}

func TestSocrataDiscoveryCorpus(t *testing.T) {
	results := mapEach(t, "socrata/discovery-api-catalog-v1-datasets.json", "results", 7, "permalink", same, Socrata,
		"Source Org", func(id string, r json.RawMessage, dcat []byte) {
			var d map[string]any
			if strings.Contains(string(r), "Common-Core_Contact-Email") {
				d = mapped(t, dcat)
			} else {
				d = mapped(t, dcat, noContact) // Boston, Howard County, NYC: no contact in the item
			}
			assert.Equal(t, id, d["identifier"])
			assert.Equal(t, id, d["landingPage"])
		})

	// data.cms.gov: Common-Core fields from the domain metadata.
	dcat, warnings, err := Socrata(results[2], "https://data.cms.gov/d/qcn7-gc3g", "")
	require.NoError(t, err)
	d := mapped(t, dcat)
	assert.Equal(t, "Order and Referring", d["title"])
	assert.Equal(t, map[string]any{"@type": "vcard:Contact", "fn": "CMS", "hasEmail": "mailto:cardinal.williams@cms.hhs.gov"}, d["contactPoint"])
	assert.Equal(t, []any{"009:38"}, d["bureauCode"])
	assert.Equal(t, []any{"009:000"}, d["programCode"])
	assert.Equal(t, "2018-08-30T21:24:19Z", d["modified"])
	assert.Equal(t, "2013-12-18T18:27:02Z", d["issued"])
	assert.Equal(t, "https://creativecommons.org/publicdomain/mark/1.0/", d["license"])
	assert.Equal(t, []any{"order and referring"}, d["keyword"])
	assert.Equal(t, []any{"health", "Medicare - Enrollment"}, d["theme"])
	assert.Equal(t, "CMS", d["publisher"].(map[string]any)["name"])
	dists := d["distribution"].([]any)
	require.Len(t, dists, 3)
	assert.Equal(t, "https://data.cms.gov/api/views/qcn7-gc3g/rows.csv?accessType=DOWNLOAD", dists[0].(map[string]any)["downloadURL"])
	assert.Equal(t, "https://data.cms.gov/resource/qcn7-gc3g.json", dists[2].(map[string]any)["accessURL"])
	assert.False(t, warned(warnings, "contactPoint"))

	// data.ny.gov: Common-Core_Publisher wins over attribution.
	dcat, _, err = Socrata(results[1], "https://data.ny.gov/d/kwxv-fwze", "")
	require.NoError(t, err)
	d = mapped(t, dcat)
	assert.Equal(t, "State of New York", d["publisher"].(map[string]any)["name"])
	assert.Equal(t, "mailto:opendata@its.ny.gov", d["contactPoint"].(map[string]any)["hasEmail"])

	// Howard County's item has no attribution: the source's organization names the publisher.
	dcat, warnings, err = Socrata(results[3], "https://opendata.howardcountymd.gov/d/qccx-65fg", "Howard County")
	require.NoError(t, err)
	d = mapped(t, dcat, noContact)
	assert.Equal(t, "Howard County", d["publisher"].(map[string]any)["name"])
	assert.True(t, warned(warnings, "publisher"))
	dcat, _, err = Socrata(results[3], "https://opendata.howardcountymd.gov/d/qccx-65fg", "")
	require.NoError(t, err)
	mapped(t, dcat, "$: 'publisher' and 'contactPoint' are required properties")
}

func TestSocrataViews(t *testing.T) {
	d := mapFile(t, Socrata, "portals/socrata/views-seattle-3k2p-39jp-911-incident-response.json",
		"https://data.seattle.gov/d/3k2p-39jp", noContact)
	assert.Equal(t, "Seattle Police Department 911 Incident Response", d["title"])
	assert.Equal(t, "2015-06-03T16:56:08Z", d["modified"]) // rowsUpdatedAt 1433350568, epoch seconds
	assert.Equal(t, "2014-01-21T19:53:59Z", d["issued"])   // publicationDate 1390334039
	assert.Equal(t, "http://creativecommons.org/publicdomain/zero/1.0/legalcode", d["license"])
	assert.Equal(t, "R/PT1H", d["accrualPeriodicity"]) // custom_fields Refresh Frequency: hourly
	assert.Equal(t, []any{"Public Safety"}, d["theme"])
	assert.Equal(t, "https://data.seattle.gov/d/3k2p-39jp", d["landingPage"])
	assert.Len(t, d["distribution"], 3)

	// A geo view with a shapefile blob and no columns: geo exports and the blob, no CSV.
	d = mapFile(t, Socrata, "portals/socrata/views-wa-ecology-3rgj-95q8-geo-blob-no-columns.json",
		"https://data.wa.gov/d/3rgj-95q8", noContact)
	var urls []string
	for _, x := range d["distribution"].([]any) {
		dist := x.(map[string]any)
		urls = append(urls, dist["downloadURL"].(string))
		assert.NotContains(t, dist["downloadURL"], "rows.csv")
	}
	assert.Contains(t, urls, "https://data.wa.gov/api/views/3rgj-95q8/files/bCcUN2kEX5mTN1tobXLjpH1_yt6GyN-7JsR3Ibxx0xA?download=true&filename=EM_shapstate.zip")
	assert.Equal(t, []any{"effectiveness monitoring", "tmdls", "water quality", "ecology"}, d["keyword"])
	assert.Equal(t, "Department of Ecology", d["publisher"].(map[string]any)["name"])

	// sodapy's partly synthetic view has no name, description, tags, publisher or contact: all
	// left out, so VALIDATE names them.
	mapFile(t, Socrata, "socrata/views-api-metadata.json", "https://data.example.gov/d/songs",
		"$: 'title', 'description', 'keyword', 'publisher' and 'contactPoint' are required properties")
}

func TestSocrataDerivedViewIsNotADataset(t *testing.T) {
	_, _, err := Socrata([]byte(`{"id":"abcd-1234","name":"filtered","modifyingViewUid":"wxyz-9876"}`), "https://d.example.gov/d/abcd-1234", "")
	require.ErrorIs(t, err, ErrNotDataset)
	_, _, err = Socrata([]byte(`{"resource":{"id":"abcd-1234","name":"f","type":"filter","parent_fxf":["wxyz-9876"]}}`), "https://d.example.gov/d/abcd-1234", "")
	require.ErrorIs(t, err, ErrNotDataset)
	_, _, err = Socrata([]byte(`[1,2]`), "https://d.example.gov/d/abcd-1234", "")
	require.ErrorIs(t, err, ErrNotItem)
}

func TestSocrataCommonCoreCustomFields(t *testing.T) {
	view := `{"id":"abcd-1234","name":"Spending","description":"d","tags":["money"],"createdAt":1400000000,
	 "metadata":{"custom_fields":{"Common Core":{"Contact Email":"a@b.gov","Contact Name":"A B","Bureau Code":"015:11, bad",
	 "Program Code":"015:001","Temporal":"2019-01-01/2019-12-31","Publisher":"Agency","Frequency":"weird"}}},
	 "columns":[{"id":1}]}`
	dcat, warnings, err := Socrata([]byte(view), "https://d.example.gov/d/abcd-1234", "")
	require.NoError(t, err)
	d := mapped(t, dcat)
	assert.Equal(t, []any{"015:11"}, d["bureauCode"])
	assert.Equal(t, "2019-01-01/2019-12-31", d["temporal"])
	assert.Equal(t, "Agency", d["publisher"].(map[string]any)["name"])
	assert.True(t, warned(warnings, "bureauCode"))
	assert.True(t, warned(warnings, "accrualPeriodicity"))
	assert.Equal(t, "2014-05-13T16:53:20Z", d["modified"]) // only createdAt: it is the modification date too
}

func TestArcGISPortalSearchCorpus(t *testing.T) {
	itemPage := func(id string) string { return "https://www.arcgis.com/home/item.html?id=" + id }
	results := mapEach(t, "portals/arcgis/arcgis-online-search-hub-sites-page1-nextstart-101.json", "results", 100, "id",
		itemPage, ArcGIS, "", func(id string, _ json.RawMessage, dcat []byte) {
			assert.Equal(t, id, mapped(t, dcat, noContactEmail)["identifier"])
		})
	dcat, _, err := ArcGIS(results[0], "https://www.arcgis.com/home/item.html?id=4f29e28b4c0b4a52a512e7106dd1245e", "")
	require.NoError(t, err)
	d := mapped(t, dcat, noContactEmail)
	assert.Equal(t, "U.S. Forest Service - Geospatial Data Discovery", d["title"])
	assert.Equal(t, "-130.052734374797,21.748919905305574,-68.00195312481351,51.59729623826938", d["spatial"])
	assert.Equal(t, "2022-08-25T22:10:55Z", d["modified"]) // 1661465455000 ms
	assert.Equal(t, "2018-08-28T19:49:26Z", d["issued"])
	assert.Equal(t, []any{"Weather and Climate", "Ecosystems", "Vegetation", "Administrative Boundaries", "Recreation",
		"Transportation", "Forest Management", "Lands and Realty", "Facilities and Infrastructure", "Fire and Aviation", "Hydrography"}, d["theme"])
	assert.Equal(t, "USDA NRE US Forest Service, Chief Information Office, Enterprise Data Warehouse", d["publisher"].(map[string]any)["name"])
	assert.Equal(t, "USFSEnterpriseContent", d["contactPoint"].(map[string]any)["fn"])
	assert.Equal(t, []any{"en"}, d["language"])
	assert.Len(t, d["rights"], 255) // the disclaimer, cut to DCAT-US's 255 characters
	assert.Equal(t, "https://data-usfs.hub.arcgis.com", d["distribution"].([]any)[0].(map[string]any)["accessURL"])
}

func TestArcGISHubRecord(t *testing.T) {
	d := mapFile(t, ArcGIS, "portals/arcgis/hub-search-dataset-record-geojson-qa.json",
		"https://qa-pre-a-hub.hub.arcgis.com/datasets/f4bcc1035b7d46cba95e977f4affb6be_0", noContactEmail)
	assert.Equal(t, "Tahoe places of interest", d["title"])
	assert.Equal(t, "QA Premium Alpha Hub", d["publisher"].(map[string]any)["name"])
	assert.Equal(t, "-121.118,38.7754,-119.009,39.359", d["spatial"])
	assert.Equal(t, "https://qa-pre-a-hub.hub.arcgis.com/datasets/qa-pre-a-hub::tahoe-places-of-interest", d["landingPage"])
	assert.Equal(t, []any{"en-US"}, d["language"])
	dists := d["distribution"].([]any)
	assert.Equal(t, "https://servicesqa.arcgis.com/Xj56SBi2udA78cC9/arcgis/rest/services/Tahoe_Things/FeatureServer/0", dists[0].(map[string]any)["accessURL"])
	assert.Equal(t, "Esri REST", dists[0].(map[string]any)["format"])
	assert.Greater(t, len(dists), 1)    // additionalResources
	assert.NotContains(t, d, "license") // structuredLicense {type: none}
}

func TestOpenDataSoftV1Corpus(t *testing.T) {
	const site = "https://etalab-sandbox.opendatasoft.com"
	datasets := mapEach(t, "portals/opendatasoft/ods-v1-datasets-search-etalab-sandbox-attachments.json", "datasets", 4,
		"datasetid", func(id string) string { return site + "/datasets/" + id }, OpenDataSoft, "Etalab",
		func(id string, _ json.RawMessage, dcat []byte) {
			for _, p := range problems(t, dcat) { // only required fields the item lacks
				assert.Regexp(t, `^\$: .* required propert(y|ies)$`, p)
			}
			d := mapped(t, dcat, problems(t, dcat)...)
			assert.Equal(t, site+"/explore/dataset/"+strings.TrimPrefix(id, site+"/datasets/")+"/", d["landingPage"])
		})
	// test-b: keyword and theme are strings; attachments use odsfile://.
	dcat, _, err := OpenDataSoft(datasets[0], "https://etalab-sandbox.opendatasoft.com/datasets/test-b", "")
	require.NoError(t, err)
	d := mapped(t, dcat, "$: 'description', 'publisher' and 'contactPoint' are required properties")
	assert.Equal(t, []any{"keyword1"}, d["keyword"])
	assert.Equal(t, []any{"Spatial planning, Town planning, Buildings, Equipment, Housing"}, d["theme"])
	var urls []string
	for _, x := range d["distribution"].([]any) {
		urls = append(urls, x.(map[string]any)["downloadURL"].(string))
	}
	api := "https://etalab-sandbox.opendatasoft.com/api/explore/v2.1/catalog/datasets/test-b"
	assert.Equal(t, []string{api + "/exports/csv", api + "/exports/json", api + "/exports/geojson",
		api + "/attachments/documentation_pdf", api + "/attachments/extra_xls", api + "/alternative_exports/gtfs_zip"}, urls)
	for _, u := range urls {
		assert.False(t, strings.HasPrefix(u, "odsfile:"))
	}
	// test-a: lists, an HTML description, a license name, references.
	dcat, _, err = OpenDataSoft(datasets[2], "https://etalab-sandbox.opendatasoft.com/datasets/test-a", "")
	require.NoError(t, err)
	d = mapped(t, dcat, noContact)
	assert.Equal(t, []any{"keyword1", "keyword2"}, d["keyword"])
	assert.Equal(t, []any{"Culture, Heritage", "Environment"}, d["theme"])
	assert.Equal(t, "https://www.etalab.gouv.fr/licence-ouverte-open-licence/", d["license"])
	assert.Equal(t, "test", d["publisher"].(map[string]any)["name"])
	assert.Equal(t, []any{"http://example.com"}, d["references"])
	assert.Equal(t, "2015-04-09T10:28:45Z", d["modified"])
	// test-c has no records: no exports.
	dcat, _, err = OpenDataSoft(datasets[1], "https://etalab-sandbox.opendatasoft.com/datasets/test-c", "")
	require.NoError(t, err)
	assert.NotContains(t, mapped(t, dcat, "$: 'description', 'keyword', 'publisher' and 'contactPoint' are required properties"), "distribution")
}

// odsV21Item is a catalog/datasets result written from the Explore API v2.1 documentation (no
// real response is in the corpus).
const odsV21Item = `{
  "visibility": "domain", "dataset_id": "gold-prices", "dataset_uid": "da_abc123", "has_records": true,
  "features": ["timeserie", "analyze"], "attachments": [], "alternative_exports": [], "data_visible": true,
  "fields": [{"name": "date", "label": "Date", "type": "date", "annotations": {}}],
  "metas": {
    "default": {"title": "Gold Prices", "description": "<p>Monthly gold prices</p>", "theme": ["Economy, Business, SME, Economic development, Employment"],
      "keyword": ["gold", "prices"], "license": "Open Database License (ODbL)", "license_url": "https://opendatacommons.org/licenses/odbl/",
      "language": "en", "modified": "2023-06-01T12:00:00+00:00", "publisher": "World Gold Council", "records_count": 838,
      "bbox": {"type": "Feature", "geometry": {"type": "Polygon", "coordinates": [[[2.0, 48.5], [2.5, 48.5], [2.5, 49.0], [2.0, 49.0], [2.0, 48.5]]]}, "properties": {}},
      "update_frequency": "monthly"},
    "dcat": {"created": "2019-01-10", "issued": "2019-01-10T08:00:00+00:00", "contact_name": "Data Team", "contact_email": "data@example.org",
      "temporal_coverage_start": "1950-01-01", "temporal_coverage_end": "2023-05-31", "creator": "WGC"}
  }
}`

func TestOpenDataSoftV21(t *testing.T) {
	dcat, warnings, err := OpenDataSoft([]byte(odsV21Item), "https://documentation-resources.opendatasoft.com/datasets/da_abc123", "")
	require.NoError(t, err)
	d := mapped(t, dcat)
	assert.Empty(t, warnings)
	assert.Equal(t, "Gold Prices", d["title"])
	assert.Equal(t, "https://documentation-resources.opendatasoft.com/explore/dataset/gold-prices/", d["landingPage"])
	assert.Equal(t, "2,48.5,2.5,49", d["spatial"])
	assert.Equal(t, "1950-01-01/2023-05-31", d["temporal"])
	assert.Equal(t, "R/P1M", d["accrualPeriodicity"])
	assert.Equal(t, "2019-01-10T08:00:00Z", d["issued"])
	assert.Equal(t, "https://opendatacommons.org/licenses/odbl/", d["license"])
	assert.Equal(t, map[string]any{"@type": "vcard:Contact", "fn": "Data Team", "hasEmail": "mailto:data@example.org"}, d["contactPoint"])
	assert.Len(t, d["distribution"], 2) // CSV and JSON; no "geo" feature

	// The v2.0 shape wraps the same dataset as {dataset: …}.
	dcat2, _, err := OpenDataSoft([]byte(`{"links": [], "dataset": `+odsV21Item+`}`), "https://documentation-resources.opendatasoft.com/datasets/da_abc123", "")
	require.NoError(t, err)
	assert.JSONEq(t, string(dcat), string(dcat2))
}
