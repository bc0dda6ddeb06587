package csw

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// capsDoc is a capabilities document of versions, GetRecords endpoints and output schemas.
func capsDoc(version, versions, get, post, schemas string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><csw:Capabilities xmlns:csw="http://www.opengis.net/cat/csw/` + version +
		`" xmlns:ows="http://www.opengis.net/ows/1.1" xmlns:xlink="http://www.w3.org/1999/xlink" version="` + version + `">` +
		`<ows:ServiceIdentification>`)
	for _, v := range strings.Fields(versions) {
		b.WriteString(`<ows:ServiceTypeVersion>` + v + `</ows:ServiceTypeVersion>`)
	}
	b.WriteString(`</ows:ServiceIdentification><ows:OperationsMetadata><ows:Operation name="GetRecords"><ows:DCP><ows:HTTP>`)
	if get != "" {
		b.WriteString(`<ows:Get xlink:href="` + get + `"/>`)
	}
	if post != "" {
		b.WriteString(`<ows:Post xlink:href="` + post + `"/>`)
	}
	b.WriteString(`</ows:HTTP></ows:DCP><ows:Parameter name="outputSchema"><ows:AllowedValues>`)
	for _, s := range strings.Fields(schemas) {
		b.WriteString(`<ows:Value>` + s + `</ows:Value>`)
	}
	b.WriteString(`</ows:AllowedValues></ows:Parameter></ows:Operation></ows:OperationsMetadata></csw:Capabilities>`)
	return b.String()
}

// TestCSWService: the version (2.0.2 first, else 3.0), output schema (gmd for ISO, csdgm for
// FGDC, else Dublin Core), binding (post when offered; a binding setting the server does not
// offer is an error) and endpoint (an advertised endpoint on another host is not used) a
// harvest picks from capabilities, and the requests it builds.
func TestCSWService(t *testing.T) {
	t.Parallel()
	base, err := cswBaseURL("https://catalog.example.gov/csw?service=CSW&request=GetCapabilities&map=x")
	require.NoError(t, err)
	require.Equal(t, "https://catalog.example.gov/csw?map=x", base.String(), "a pasted request's parameters go")
	read := func(doc string) *cswCapabilities {
		f := pageFile(t, doc)
		c, err := readCapabilities(f)
		require.NoError(t, err)
		return c
	}
	both := read(capsDoc("2.0.2", "2.0.2 3.0.0", "https://catalog.example.gov/csw", "https://catalog.example.gov/csw/post",
		cswNS202+" "+cswSchemaGMD+" "+cswSchemaFGDC))
	s, err := both.service(base, harvest.SchemaISO19115_2, nil)
	require.NoError(t, err)
	require.Equal(t, &cswService{version: "2.0.2", namespace: cswNS202, endpoint: "https://catalog.example.gov/csw/post",
		post: true, outputSchema: cswSchemaGMD}, s)
	s, err = both.service(base, harvest.SchemaFGDC, map[string]string{"binding": "get"})
	require.NoError(t, err)
	require.Equal(t, cswSchemaFGDC, s.outputSchema)
	require.False(t, s.post)

	only30 := read(capsDoc("3.0", "3.0.0", "http://10.0.0.5:8080/csw", "", cswNS30))
	s, err = only30.service(base, harvest.SchemaISO19115_1, nil)
	require.NoError(t, err)
	require.Equal(t, &cswService{version: "3.0.0", namespace: cswNS30, endpoint: base.String(), outputSchema: cswNS30}, s,
		"Dublin Core when gmd is not offered; the advertised internal address is not used")
	_, err = only30.service(base, harvest.SchemaISO19115_1, map[string]string{"binding": "post"})
	require.EqualError(t, err, "binding=post, but the capabilities offer no POST endpoint for GetRecords")

	u, body, where, err := s.cswRequest(&cswQuery{elementSet: "brief", since: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}, 11, 10)
	require.NoError(t, err)
	require.Nil(t, body)
	parsed, err := url.Parse(u)
	require.NoError(t, err)
	q := parsed.Query()
	require.Equal(t, "x", q.Get("map"))
	require.Equal(t, "3.0.0", q.Get("version"))
	require.Equal(t, "11", q.Get("startPosition"))
	require.Equal(t, "brief", q.Get("elementSetName"))
	require.Equal(t, "dct:modified >= '2026-12-02'", q.Get("constraint"))
	require.Equal(t, "CQL_TEXT", q.Get("constraintLanguage"))
	require.Equal(t, "GetRecords GET "+u, where)

	s.post, s.version, s.namespace = true, "3.0.0", cswNS30
	_, body, where, err = s.cswRequest(&cswQuery{elementSet: "full", since: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)}, 1, 10)
	require.NoError(t, err)
	require.Contains(t, string(body), `xmlns:csw="http://www.opengis.net/cat/csw/3.0"`)
	require.Contains(t, string(body), `<fes:ValueReference>dct:modified</fes:ValueReference><fes:Literal>2026-12-02</fes:Literal>`)
	require.Contains(t, where, "startPosition=1")

	_, err = readCapabilities(pageFile(t, `<html><title>Login</title></html>`))
	require.EqualError(t, err, `the server sent an HTML page (title "Login") where CSW capabilities (XML) were expected`)
	_, err = readCapabilities(pageFile(t, `<WMS_Capabilities version="1.3.0"/>`))
	require.EqualError(t, err, "not CSW capabilities: the root element is WMS_Capabilities")
}
