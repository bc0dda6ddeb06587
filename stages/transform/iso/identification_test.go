package iso

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatus"
)

// transformDataset maps record and checks that the result validates as DCAT-US 1.1
// non-federal.
func transformDataset(t *testing.T, record []byte) (*dcatus.Dataset, []Warning) {
	t.Helper()
	out, warnings, err := Transform(record, "https://example.gov/waf/record.xml", "Example Organization")
	require.NoError(t, err)
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	problems, err := v.Validate(out)
	require.NoError(t, err)
	require.Empty(t, problems, "%s", out)
	var ds dcatus.Dataset
	require.NoError(t, json.Unmarshal(out, &ds))
	return &ds, warnings
}

// distributionURLs are the access and download URLs of a dataset's distributions, in order.
func distributionURLs(ds *dcatus.Dataset) []string {
	var out []string
	for _, d := range ds.Distribution {
		out = append(out, d.AccessURL+d.DownloadURL)
	}
	return out
}

// Every identificationInfo is read (issue 34 item 6): a service's endpoint
// (srv:SV_ServiceIdentification/srv:containsOperations/…/srv:connectPoint) is a distribution:
// its accessURL, even when it ends in a file extension (an OPeNDAP URL of a NetCDF
// aggregation is a service, not a file), its format the protocol's name (the online
// resource's protocol, else the service type). The title and abstract stay the data
// identification's, though the service identifications come after it.
func TestServiceEndpointsAreDistributions(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/thredds-service-opendap.xml")
	require.NoError(t, err)
	ds, _ := transformDataset(t, b)
	require.Equal(t, "Example Nearshore Sensor 99: Harbor Dock", ds.Title)
	require.Contains(t, ds.Description, "measured every four minutes")
	require.Contains(t, ds.Distribution, dcatus.Distribution{Type: dcatus.TypeDistribution, Title: "OPeNDAP",
		Description: "THREDDS OPeNDAP", AccessURL: "https://data.example.org/thredds/dodsC/nearshore/ns99agg.nc", Format: "OPeNDAP"})
	require.Contains(t, ds.Distribution, dcatus.Distribution{Type: dcatus.TypeDistribution, Title: "OGC-WMS",
		AccessURL: "https://data.example.org/thredds/wms/nearshore/ns99agg?service=WMS&version=1.3.0&request=GetCapabilities",
		MediaType: "application/xml", Format: "WMS"})
	require.Contains(t, distributionURLs(ds), "https://data.example.org/thredds/catalog/nearshore/catalog.html?dataset=NS99agg")
}

// A record whose only identification is a service's maps it: its title, and its endpoint.
func TestServiceOnlyRecord(t *testing.T) {
	t.Parallel()
	body := `<x:identificationInfo><srv:SV_ServiceIdentification xmlns:srv="http://www.isotc211.org/2005/srv">` +
		`<x:citation><x:CI_Citation><x:title><gco:CharacterString>Ocean color WMS</gco:CharacterString></x:title></x:CI_Citation></x:citation>` +
		`<x:abstract><gco:CharacterString>Map layers.</gco:CharacterString></x:abstract>` +
		`<srv:serviceType><gco:LocalName>OGC:WMS</gco:LocalName></srv:serviceType>` +
		`<srv:containsOperations><srv:SV_OperationMetadata><srv:connectPoint><x:CI_OnlineResource>` +
		`<x:linkage><x:URL>https://maps.example.gov/wms</x:URL></x:linkage></x:CI_OnlineResource></srv:connectPoint>` +
		`</srv:SV_OperationMetadata></srv:containsOperations></srv:SV_ServiceIdentification></x:identificationInfo>`
	ds, _ := transformDataset(t, isoRecord("gmd:MD_Metadata", body))
	require.Equal(t, "Ocean color WMS", ds.Title)
	require.Equal(t, []dcatus.Distribution{{Type: dcatus.TypeDistribution, AccessURL: "https://maps.example.gov/wms", Format: "WMS"}},
		ds.Distribution)
}

// A party's own web page (a CI_OnlineResource in a named responsible party's contact
// information) says who the party is; it is neither a distribution nor the landing page
// (issue 34 item 7).
func TestContactWebPagesAreNotDistributions(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/thredds-service-opendap.xml")
	require.NoError(t, err)
	ds, _ := transformDataset(t, b)
	require.Empty(t, ds.LandingPage, "the citation's only link is its originator's faculty page")
	urls := distributionURLs(ds)
	require.NotContains(t, urls, "https://people.example.org/faculty/kealoha.html", "the contacts' page")
	require.NotContains(t, urls, "https://ocean.example.org", "the distributor's page")
	require.Len(t, urls, 3, "%v", urls)

	// NOAA NCEI's water column sonar record: its contact, point of contact and distributor
	// each give NCEI's contact page; the thesauri's publishers (GCMD, IHO) their own pages.
	ds, _ = transformDataset(t, readCorpus(t, "catalog-data-gov-noaa-wcsd-leading-whitespace-gmi.xml"))
	require.Equal(t, []string{
		"https://www.ngdc.noaa.gov/maps/water_column_sonar/index.html?surveys=AL0001&instruments=EK500",
		"https://registry.opendata.aws/ncei-wcsd-archive/",
		"https://www.ngdc.noaa.gov/mgg/wcd/",
	}, distributionURLs(ds))

	// NOAA InPort gives its citation's links through a party that names no one (ISO 19139's
	// CI_Citation has no online resource of its own): they stay the landing page and
	// distributions.
	ds, _ = transformDataset(t, readCorpus(t, "datagov-valid-iso2-gmi.xml"))
	require.Equal(t, "https://www.fisheries.noaa.gov/inport/item/47598", ds.LandingPage)
	require.Contains(t, distributionURLs(ds), "https://www.fisheries.noaa.gov/inportserve/waf/noaa/nos/ocm/dmp/pdf/47598.pdf")
	require.NotContains(t, distributionURLs(ds), "https://forum.earthdata.nasa.gov/app.php/tag/GCMD%2BKeywords",
		"the keyword thesaurus's custodian's page")
}

// rights says what an access restriction is: the code otherRestrictions gives way to its
// constraint's otherConstraints text (issue 34 item 7).
func TestRightsFromOtherConstraints(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]string{
		"datagov-valid-iso1-gmd.xml": "Access Constraints: None.; PUBLIC",
		"datagov-valid-iso2-gmi.xml": "Access Constraints: None; unclassified",
	} {
		ds, _ := transformDataset(t, readCorpus(t, file))
		require.Equal(t, want, ds.Rights, file)
	}
	b, err := os.ReadFile("testdata/thredds-service-opendap.xml")
	require.NoError(t, err)
	ds, _ := transformDataset(t, b)
	require.Equal(t, "no limitations", ds.Rights)

	// NCEI's two access constraints are 424 and 73 characters: cut at a word to DCAT-US's 255,
	// with a warning.
	ds, warnings := transformDataset(t, readCorpus(t, "catalog-data-gov-noaa-wcsd-leading-whitespace-gmi.xml"))
	require.Regexp(t, `^Distribution liability: NOAA and NCEI make no warranty, .*…$`, ds.Rights)
	require.LessOrEqual(t, len([]rune(ds.Rights)), 255)
	require.Contains(t, warnings, Warning{Field: "rights", Message: "the access constraints are 499 characters, over the 255 DCAT-US allows; cut to " +
		"253 at a word, ending in \"…\""})
}
