package dublincore

import (
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/internal/pycswtest"
)

// recordElement matches one record of a pycsw GetRecords response: pycsw writes them with the
// csw (2.0.2) or csw30 (3.0) prefix and declares the namespaces on the response's root.
var recordElement = regexp.MustCompile(`(?s)<(csw|csw30):(Record|SummaryRecord|BriefRecord)>.*?</(csw|csw30):(Record|SummaryRecord|BriefRecord)>`)

// declarations are the response root's namespace declarations a record cut out of it needs.
const declarations = ` xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:csw30="http://www.opengis.net/cat/csw/3.0"` +
	` xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/"` +
	` xmlns:ows="http://www.opengis.net/ows" xmlns:ows20="http://www.opengis.net/ows/2.0">`

// Every record of a real pycsw server, as its GetRecords returns it in Dublin Core (the 10
// csw:Record documents as loaded and the 3 ISO records as pycsw renders them), in CSW 2.0.2
// and 3.0 and each element set, maps to valid DCAT-US 1.1 non-federal with the record's
// identifier, title and bounding box.
func TestPycswServerRecords(t *testing.T) {
	s := pycswtest.Start(t)
	for _, version := range []string{"2.0.2", "3.0.0"} {
		for _, set := range []string{"full", "summary", "brief"} {
			q := url.Values{
				"service": {"CSW"}, "version": {version}, "request": {"GetRecords"}, "typeNames": {"csw:Record"},
				"resultType": {"results"}, "elementSetName": {set}, "maxRecords": {"100"},
			}
			if version == "2.0.2" {
				q.Set("outputSchema", NamespaceCSW202)
			}
			recs := recordElement.FindAllSubmatch(s.Get(t, q), -1)
			require.Len(t, recs, len(pycswtest.SampleIdentifiers), version+" "+set)
			var ids []any
			for _, r := range recs {
				open := "<" + string(r[1]) + ":" + string(r[2])
				doc := append([]byte(open+declarations), r[0][len(open)+1:]...)
				out, _, err := Transform(doc, "", "Source Org")
				require.NoError(t, err, "%s", doc)
				require.Empty(t, validate(t, out), "%s %s: %s", version, set, out)
				d := decode(t, out)
				require.NotEmpty(t, d["title"])
				if d["identifier"] != "urn:uuid:0c1e7a52-3b7e-4f4a-9d1a-5e0f2c6b8a07" { // the one without a box
					require.NotEmpty(t, d["spatial"], "%s", doc)
				}
				if d["identifier"] == pycswtest.SampleIdentifiers[0] { // its box, written latitude first
					require.Equal(t, "-71.1,41.2,-66.9,45.1", d["spatial"], "%s %s", version, set)
				}
				ids = append(ids, d["identifier"])
			}
			require.ElementsMatch(t, pycswtest.SampleIdentifiers, ids, version+" "+set)
		}
	}
}
