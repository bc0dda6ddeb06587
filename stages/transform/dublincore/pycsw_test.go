package dublincore

import (
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/internal/pycswtest"
)

// recordElement matches one record of a pycsw GetRecords response (pycsw writes them with the
// csw prefix and declares the namespaces on the response's root).
var recordElement = regexp.MustCompile(`(?s)<csw:(Record|SummaryRecord|BriefRecord)>.*?</csw:(Record|SummaryRecord|BriefRecord)>`)

const declarations = ` xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/" xmlns:ows="http://www.opengis.net/ows">`

// Every record of a real pycsw server, as its GetRecords returns it in Dublin Core (the 10
// csw:Record documents as loaded and the 3 ISO records as pycsw renders them), in each element
// set, maps to valid DCAT-US 1.1 non-federal with the record's identifier.
func TestPycswServerRecords(t *testing.T) {
	s := pycswtest.Start(t)
	for _, set := range []string{"full", "summary", "brief"} {
		body := s.Get(t, url.Values{
			"service": {"CSW"}, "version": {"2.0.2"}, "request": {"GetRecords"}, "typeNames": {"csw:Record"},
			"resultType": {"results"}, "elementSetName": {set}, "maxRecords": {"100"},
			"outputSchema": {"http://www.opengis.net/cat/csw/2.0.2"},
		})
		recs := recordElement.FindAll(body, -1)
		require.Len(t, recs, len(pycswtest.SampleIdentifiers), set)
		var ids []any
		for _, r := range recs {
			name := recordElement.FindSubmatch(r)[1]
			doc := append([]byte("<csw:"+string(name)+declarations), r[len(name)+6:]...)
			out, _, err := Transform(doc, "", "Source Org")
			require.NoError(t, err, "%s", doc)
			require.Empty(t, validate(t, out), "%s: %s", set, out)
			d := decode(t, out)
			require.NotEmpty(t, d["title"])
			ids = append(ids, d["identifier"])
		}
		require.ElementsMatch(t, pycswtest.SampleIdentifiers, ids, set)
	}
}
