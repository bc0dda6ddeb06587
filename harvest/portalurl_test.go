package harvest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNormalizeSourceURL: a portal written as its base, with a trailing "/", or as the API
// endpoint EXTRACT reads is one URL, per platform; a CSW endpoint pasted as a request (its
// CSW parameters in any case) is the endpoint, other parameters kept; other source types keep
// their path and query.
func TestNormalizeSourceURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		t    SourceType
		in   []string
		want string
	}{
		{SourceCKAN, []string{"https://Catalog.example.org", "https://catalog.example.org/",
			"https://catalog.example.org/api/3/action/package_search", "https://catalog.example.org/api/3/action/package_list",
			"https://catalog.example.org/api/3", "https://catalog.example.org/api", "https://catalog.example.org//",
			"https://catalog.example.org/api/3/action/package_search?rows=10&fq=x#top"}, "https://catalog.example.org/"},
		{SourceCKAN, []string{"https://www.datasud.fr/fr/indexer/service/ckan/", "https://www.datasud.fr/fr/indexer/service/ckan/api/3/action/package_search"},
			"https://www.datasud.fr/fr/indexer/service/ckan"},
		{SourceDKAN, []string{"https://dkan.example.org/", "https://dkan.example.org/api/1/metastore/schemas/dataset/items?show-reference-ids"},
			"https://dkan.example.org/"},
		{SourceSocrata, []string{"https://data.example.gov", "https://data.example.gov/api/views", "https://data.example.gov/api/catalog/v1?domains=data.example.gov",
			"https://DATA.example.gov/browse?category=x", "https://data.example.gov/d/abcd-1234"}, "https://data.example.gov/"},
		{SourceArcGIS, []string{"https://hub.example.gov", "https://hub.example.gov/data.json", "https://hub.example.gov/api/feed/dcat-us/1.1.json",
			"https://hub.example.gov/api/search/v1/collections/dataset/items?limit=10", "https://hub.example.gov/home/index.html"}, "https://hub.example.gov/"},
		{SourceArcGIS, []string{"https://gis.example.gov/portal/sharing/rest", "https://gis.example.gov/portal/sharing/rest/search?q=x&f=json"},
			"https://gis.example.gov/portal/sharing/rest"},
		{SourceOpenDataSoft, []string{"https://ods.example.com/", "https://ods.example.com/api/v2/catalog/datasets", "https://ods.example.com/api/records/1.0/search?dataset=x",
			"https://ods.example.com/api/explore/v2.1/catalog/datasets?limit=10", "https://ods.example.com/explore/?sort=modified"}, "https://ods.example.com/"},
		{SourceDocument, []string{"https://example.gov/api/3/action/package_search"}, "https://example.gov/api/3/action/package_search"},
		{SourceCSW, []string{"https://gis.example.gov/csw", "https://gis.example.gov/csw?SERVICE=CSW&REQUEST=GetCapabilities&VERSION=2.0.2",
			"https://GIS.example.gov/csw?service=csw&request=GetCapabilities&acceptVersions=2.0.2,3.0.0&sections=All#top",
			"https://gis.example.gov/csw?%73ervice=CSW&Request=GetRecords&typeNames=csw:Record&ElementSetName=full&resultType=results" +
				"&outputSchema=http://www.isotc211.org/2005/gmd&startPosition=1&maxRecords=10&constraintLanguage=CQL_TEXT&constraint=x",
			"https://gis.example.gov/csw?request=GetRecordById&id=abc&outputFormat=application/xml&", "https://gis.example.gov/csw?"},
			"https://gis.example.gov/csw"},
		{SourceCSW, []string{"https://gis.example.gov/geonetwork/srv/eng/csw?portal=a&SERVICE=CSW&b=%20", "https://gis.example.gov/geonetwork/srv/eng/csw?portal=a&b=%20"},
			"https://gis.example.gov/geonetwork/srv/eng/csw?portal=a&b=%20"},
		{SourceWAF, []string{"https://example.gov/waf/?service=CSW"}, "https://example.gov/waf/?service=CSW"},
	} {
		for _, in := range tc.in {
			got, err := NormalizeSourceURL(tc.t, in)
			require.NoError(t, err, in)
			require.Equal(t, tc.want, got, "%s %s", tc.t, in)
			again, err := NormalizeSourceURL(tc.t, got)
			require.NoError(t, err)
			require.Equal(t, got, again, "idempotent")
		}
	}
	_, err := NormalizeSourceURL(SourceCKAN, "ftp://catalog.example.org")
	require.ErrorContains(t, err, "not an absolute http or https URL")
}
