package csw

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
)

// TestExceptionOfErrorAnswer (issue 34 item 17): the OWS ExceptionReport a CSW sends with an
// HTTP error status is quoted in the job error, however it comes: declared in another
// encoding than UTF-8, longer than the 64 KiB of an error answer fetch keeps (a Java stack
// trace: read as far as it goes), or as an OGC ServiceExceptionReport (the WMS-style report
// some catalogues send). Its text is made one line and cut at 500 characters. An answer that
// is no report is none.
func TestExceptionOfErrorAnswer(t *testing.T) {
	t.Parallel()
	trace := "java.lang.NullPointerException\n" + strings.Repeat("\tat org.geoportal.csw.Discovery.query(Discovery.java:88)\n", 3000)
	for name, tc := range map[string]struct{ page, want string }{
		"latin1": {`<?xml version="1.0" encoding="ISO-8859-1"?><ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows" ` +
			`version="1.2.0"><ows:Exception exceptionCode="InvalidParameterValue" locator="startPosition"><ows:ExceptionText>` +
			"Param\xe8tre invalide</ows:ExceptionText></ows:Exception></ows:ExceptionReport>",
			`HTTP 400: the server answered with an OWS ExceptionReport: exceptionCode "InvalidParameterValue" (locator "startPosition"): "Paramètre invalide"`},
		"truncated trace": {(`<?xml version="1.0" encoding="UTF-8"?><ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows">` +
			`<ows:Exception exceptionCode="NoApplicableCode"><ows:ExceptionText>` + trace + `</ows:ExceptionText></ows:Exception></ows:ExceptionReport>`)[:64<<10],
			`HTTP 400: the server answered with an OWS ExceptionReport: exceptionCode "NoApplicableCode": "java.lang.NullPointerException ` +
				`at org.geoportal.csw.Discovery.query(Discovery.java:88) at `},
		"service exception": {`<?xml version="1.0"?><ServiceExceptionReport version="1.2.0" xmlns="http://www.opengis.net/ogc">` +
			`<ServiceException code="InvalidParameterValue">  maxRecords must be 100 or less </ServiceException></ServiceExceptionReport>`,
			`HTTP 400: the server answered with an OWS ExceptionReport: exceptionCode "InvalidParameterValue": "maxRecords must be 100 or less"`},
	} {
		err := exceptionOf(&fetch.Error{URL: "https://csw.example.gov/csw", StatusCode: 400, Page: []byte(tc.page)})
		require.NotNil(t, err, name)
		require.Contains(t, err.Error(), tc.want, name)
		if name == "truncated trace" {
			require.True(t, strings.HasSuffix(err.Error(), `…"`), "cut: %s", err)
			require.Less(t, len(err.Error()), 700, name)
		}
	}
	require.Nil(t, exceptionOf(&fetch.Error{StatusCode: 400, Page: []byte("<html><body>Bad request</body></html>")}))
	require.Nil(t, exceptionOf(&fetch.Error{StatusCode: 400, Page: []byte("ExceptionReport, but not XML")}))
}
