package fgdc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// dataset is the DCAT-US a test reads back.
type dataset struct {
	dcatus.Dataset
	raw map[string]any
}

// transformValid transforms b, checks the result validates as DCAT-US 1.1 non-federal and
// returns it with the warnings.
func transformValid(t *testing.T, b []byte, identifier string) (*dataset, []Warning) {
	t.Helper()
	out, warnings, err := Transform(b, identifier, "Example Organization")
	require.NoError(t, err)
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	problems, err := v.Validate(out)
	require.NoError(t, err)
	require.Empty(t, problems, "%s", out)
	var ds dataset
	require.NoError(t, json.Unmarshal(out, &ds.Dataset))
	require.NoError(t, json.Unmarshal(out, &ds.raw))
	return &ds, warnings
}

func readCorpus(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(corpustest.Path(t, filepath.Join("iso19115", name)))
	require.NoError(t, err)
	return b
}

func warned(warnings []Warning, field string) bool {
	for _, w := range warnings {
		if w.Field == field {
			return true
		}
	}
	return false
}

// A USGS map service record of catalog.data.gov's FGDC WAF test: a DOCTYPE naming a remote
// DTD (never fetched), a title wrapped over two lines, no point of contact.
func TestCorpusWatershedMapService(t *testing.T) {
	t.Parallel()
	const id = "https://example.gov/waf/fgdc_metadata_1.xml"
	ds, warnings := transformValid(t, readCorpus(t, "fgdc-catalog-data-gov-metadata-1.xml"), id)
	require.Empty(t, warnings)
	require.Equal(t, id, ds.Identifier)
	require.Equal(t, "USGS Watershed Boundary Dataset (WBD) Overlay Map Service from The National Map - "+
		"National Geospatial Data Asset (NGDA) Watershed Boundary Dataset (WBD)", ds.Title)
	require.Contains(t, ds.Description, "The Watershed Boundary Dataset (WBD) from The National Map (TNM) defines the\nperimeter of drainage areas")
	require.Len(t, ds.Keyword, 48)
	require.Equal(t, []string{"National Geospatial Data Asset", "NGDA", "Water Inland Theme", "inlandWaters"}, ds.Keyword[:4])
	require.Equal(t, []string{"US", "United States"}, ds.Keyword[46:])
	require.Equal(t, "-179.999,17.625,-65,71.5", ds.Spatial)
	require.Equal(t, "2016/2016", ds.Temporal, "a single date")
	require.Equal(t, "2017", ds.Modified, "the publication date, at its precision")
	require.Equal(t, "2017", ds.Issued)
	require.Equal(t, "USGS - National Geospatial Technical Operations Center (NGTOC)", ds.Publisher.Name)
	require.Equal(t, &dcatus.ContactPoint{Type: dcatus.TypeContact,
		FN: "U.S. Geological Survey, National Geospatial Technical Operations Center", HasEmail: "mailto:tnm_help@usgs.gov"},
		ds.ContactPoint, "the metadata contact, as there is no point of contact")
	require.Equal(t, "public", ds.AccessLevel)
	require.Empty(t, ds.Rights, "accconst None")
	require.Equal(t, "https://viewer.nationalmap.gov", ds.LandingPage)
	require.Equal(t, []dcatus.Distribution{
		{Type: dcatus.TypeDistribution, Title: "USGS TNM Hydrography (NHD) Map Service", Format: "NHD Map Service (ArcGIS)",
			AccessURL: "https://hydro.nationalmap.gov/arcgis/rest/services/wbd/MapServer", MediaType: "text/html"},
		{Type: dcatus.TypeDistribution, Title: "USGS TNM Hydrography (NHD) Map Service", Format: "NHD Map Service (WMS)",
			AccessURL: "https://hydro.nationalmap.gov/arcgis/services/wbd/MapServer/WMSServer?request=GetCapabilities&service=WMS",
			MediaType: "application/xml"},
		{Type: dcatus.TypeDistribution, DownloadURL: "https://nhd.usgs.gov/NHDv2.2_poster_052714.pdf", MediaType: "application/pdf"},
		{Type: dcatus.TypeDistribution, AccessURL: "https://viewer.nationalmap.gov", MediaType: "text/html"},
	}, ds.Distribution)
	require.Equal(t, []string{"geospatial"}, ds.Theme)
	require.NotContains(t, ds.raw, "bureauCode", "non-federal: no bureau or program code")
}

// The US Topo collection record: a UTF-8 BOM, CRLF line ends, a DOCTYPE, a metadata contact
// whose "e-mail" is a web page, and no online digital form.
func TestCorpusUSTopoCollection(t *testing.T) {
	t.Parallel()
	ds, warnings := transformValid(t, readCorpus(t, "fgdc-usgs-us-topo-collection-bom-doctype.xml"), "https://example.gov/topo.xml")
	// The ISO mapper's rule (issue 34 item 8): a value of an e-mail field that holds no address
	// is skipped with a warning.
	require.Equal(t, []Warning{{Field: "contactPoint", Message: iso.SkippedEmail("http://www.usgs.gov/ask/")}}, warnings)
	require.Equal(t, "USGS US Topo Map Collection", ds.Title)
	require.Contains(t, ds.Description, "Layered GeoPDF 7.5 Minute Quadrangle Map.")
	require.NotContains(t, ds.Description, "\r")
	require.Equal(t, "-179.1666667,17.625,180,71.5", ds.Spatial)
	require.Equal(t, "2009/2013", ds.Temporal)
	require.Equal(t, "2013", ds.Modified)
	require.Equal(t, "irregular", ds.AccrualPeriodicity)
	require.Len(t, ds.Keyword, 16)
	require.Contains(t, ds.Keyword, "U.S. National Grid")
	require.Equal(t, "U.S. Geological Survey", ds.ContactPoint.FN, "the distributor: the metadata contact has no e-mail address")
	require.Equal(t, "mailto:usgsstore@usgs.gov", ds.ContactPoint.HasEmail)
	require.Equal(t, "USGS - National Geospatial Technical Operations Center (NGTOC)", ds.Publisher.Name)
	require.Equal(t, "http://thor-f5.er.usgs.gov/ngtoc/metadata/ustopo/", ds.LandingPage)
	require.Equal(t, []dcatus.Distribution{{Type: dcatus.TypeDistribution,
		AccessURL: "http://thor-f5.er.usgs.gov/ngtoc/metadata/ustopo/", MediaType: "text/html"}}, ds.Distribution)
}

// MDTranslator's own Biological Data Profile test record: taxonomy keywords, a point of
// contact, a DOI as the citation's online linkage, cross references.
func TestCorpusWhiteFrontedGoose(t *testing.T) {
	t.Parallel()
	ds, warnings := transformValid(t, readCorpus(t, "fgdc-usgs-white-fronted-goose.xml"), "https://example.gov/goose.xml")
	require.Empty(t, warnings)
	require.Equal(t, "Greater White-Fronted Goose (Anser albifrons) Microsatellite DNA Data, Alaska, 1989-2006", ds.Title)
	require.Contains(t, ds.Description, "BCA6, BCA9, BCA11, Aaμ1")
	require.Equal(t, "-163.72,57.18,-156.77,63.33", ds.Spatial)
	require.Equal(t, "1989/2006", ds.Temporal)
	require.Equal(t, "2017-04", ds.Modified, "pubdate 201704")
	require.Equal(t, &dcatus.ContactPoint{Type: dcatus.TypeContact, FN: "U.S. Geological Survey, Alaska Science Center",
		HasEmail: "mailto:ascweb@usgs.gov"}, ds.ContactPoint)
	require.Equal(t, "U.S. Geological Survey, Alaska Science Center", ds.Publisher.Name)
	// Theme, then place, then the taxonomy keywords; "Ducks/Geese/Swans" is both a theme and a
	// taxonomy keyword and is kept once.
	require.Equal(t, "population genetic structure", ds.Keyword[0])
	require.Equal(t, []string{"Bristol Bay", "Yukon Delta National Wildlife Refuge", "Kuskokwim River",
		"Innoko National Wildlife Refuge", "Cook Inlet", "animals", "birds"}, ds.Keyword[len(ds.Keyword)-7:])
	require.Len(t, ds.Keyword, 21)
	require.Equal(t, "https://doi.org/10.5066/F71G0JGN", ds.LandingPage)
	require.Equal(t, []dcatus.Distribution{
		{Type: dcatus.TypeDistribution, Title: "Authoritative source for access to data.", Format: "Zip",
			AccessURL: "http://dx.doi.org/10.5066/F71G0JGN", MediaType: "text/html"},
		{Type: dcatus.TypeDistribution, AccessURL: "https://doi.org/10.5066/F71G0JGN", MediaType: "text/html"},
	}, ds.Distribution)
	require.Equal(t, []string{"https://doi.org/10.1002/ece3.2934", "https://alaska.usgs.gov/portal/project.php?project_id=378"},
		ds.References, "the cross reference and the larger work")
	require.Empty(t, ds.AccrualPeriodicity, "None planned")
}

// The Biological Data Profile's elements, in a hand-written ISO-8859-1 record: taxonomy
// keywords, stratum and temporal keywords, multiple dates, a description of the geographic
// extent standing in for a bounding box that lies (north of the pole), a restriction.
func TestBiologicalDataProfile(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/bdp-taxonomy.xml")
	require.NoError(t, err)
	ds, warnings := transformValid(t, b, "https://example.org/bdp.xml")
	require.Equal(t, "Salmon spawning survey, Café Creek, 2001-2003", ds.Title)
	require.Equal(t, []string{"salmon", "spawning", "Oregon", "riverbed", "autumn", "Oncorhynchus", "Café salmon"}, ds.Keyword)
	require.Equal(t, "2001-09-01/2003-09-15", ds.Temporal, "the earliest to the latest of the dates, in any order")
	require.Equal(t, "2004-01-02", ds.Modified, "unpublished: the metadata date")
	require.Empty(t, ds.Issued)
	require.Equal(t, "Café Creek watershed, Oregon", ds.Spatial, "the box lies (north 95): the place named instead")
	require.Equal(t, "R/P1Y", ds.AccrualPeriodicity)
	require.Equal(t, &dcatus.ContactPoint{Type: dcatus.TypeContact, FN: "Ana Ruiz", HasEmail: "mailto:ana.ruiz@example.org"}, ds.ContactPoint)
	require.Equal(t, "Fish and Wildlife Research Institute", ds.Publisher.Name, "the originator: no publisher, no distributor")
	require.Equal(t, "public", ds.AccessLevel)
	require.Equal(t, "Restricted to agency staff until the survey report is published.", ds.Rights)
	require.Equal(t, "https://creativecommons.org/publicdomain/zero/1.0/", ds.License)
	require.Empty(t, ds.Distribution)
	for _, f := range []string{"spatial", "modified", "accessLevel"} {
		require.True(t, warned(warnings, f), "a warning for %s: %v", f, warnings)
	}
}

// The Remote Sensing Extensions' elements: platform and instrument names as keywords, the
// documentation as references, a box across the 180th meridian, a range up to "Present", a
// network address that is not a URL, a download and a page.
func TestRemoteSensingExtensions(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/rse-landsat.xml")
	require.NoError(t, err)
	ds, warnings := transformValid(t, b, "https://example.gov/rse.xml")
	require.Equal(t, "Landsat 8 OLI/TIRS scene over the western Aleutians", ds.Title)
	require.Equal(t, []string{"imageryBaseMapsEarthCover", "Landsat 8", "L8", "Operational Land Imager", "OLI"}, ds.Keyword)
	require.Equal(t, []string{"https://www.usgs.gov/landsat-8-data-users-handbook", "https://doi.org/10.1016/j.rse.2014.02.001"}, ds.References)
	require.Equal(t, "172.4,51.0,-175.2,53.1", ds.Spatial, "kept: CSDGM's way to cross the 180th meridian")
	require.Regexp(t, `^2020-06-12/\d{4}-\d{2}-\d{2}$`, ds.Temporal, "Present is today")
	require.Equal(t, "2020-06-20T10:30:00Z", ds.Modified)
	require.Equal(t, "USGS Earth Resources Observation and Science Center", ds.Publisher.Name, "the distributor: no publish")
	require.Equal(t, "mailto:custserv@usgs.gov", ds.ContactPoint.HasEmail)
	require.Equal(t, "USGS Earth Resources Observation and Science Center", ds.ContactPoint.FN)
	require.Empty(t, ds.AccrualPeriodicity, "As needed")
	require.Empty(t, ds.Rights)
	require.Empty(t, ds.License)
	require.Equal(t, []dcatus.Distribution{
		{Type: dcatus.TypeDistribution, Title: "Landsat 8 Level-1 product", Format: "GeoTIFF",
			DownloadURL: "https://landsat.usgs.gov/data/LC08_L1TP_073011_20200612.tar.gz", MediaType: "application/gzip"},
		{Type: dcatus.TypeDistribution, Title: "Landsat 8 Level-1 product", Format: "Web page",
			AccessURL: "https://earthexplorer.usgs.gov/", MediaType: "text/html"},
		{Type: dcatus.TypeDistribution, AccessURL: "https://earthexplorer.usgs.gov/scene/LC08_L1TP_073011_20200612", MediaType: "text/html"},
	}, ds.Distribution)
	require.True(t, warned(warnings, "spatial"), "the meridian crossing is a warning: %v", warnings)
	require.True(t, warned(warnings, "distribution"), "the address that is not a URL: %v", warnings)
}

// The white-fronted goose record with theme keywords added up to 1,001: the first 1,000 are
// kept, in the record's order, with a warning; the record is not refused (issue 34 item 17).
func TestCorpusRecordWith1001Keywords(t *testing.T) {
	t.Parallel()
	b := readCorpus(t, "fgdc-usgs-white-fronted-goose.xml")
	ds, _ := transformValid(t, b, "https://example.gov/goose.xml")
	own := ds.Keyword
	var extra strings.Builder
	extra.WriteString("<keywords><theme><themekt>None</themekt>")
	for i := range 1001 - len(own) { // before the record's own keywords
		fmt.Fprintf(&extra, "<themekey>added keyword %d</themekey>", i)
	}
	extra.WriteString("</theme>")
	b = bytes.Replace(b, []byte("<keywords>"), []byte(extra.String()), 1)
	ds, warnings := transformValid(t, b, "https://example.gov/goose.xml")
	require.Equal(t, 1000, len(ds.Keyword))
	added := 1001 - len(own)
	require.Equal(t, "added keyword 0", ds.Keyword[0])
	require.Equal(t, own[:len(own)-1], ds.Keyword[added:], "the record's own keywords follow the added theme; its last is dropped")
	require.Equal(t, []Warning{{Field: "keyword", Message: "the record has 1001 keywords, over the 1000 DCAT-US allows; kept the first 1000"}}, warnings)
}
