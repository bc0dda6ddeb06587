package harvest

import (
	"net/url"
	"strings"
)

// cswRequestParams are the KVP parameter names (lower-cased) of CSW requests: GetCapabilities
// (OGC 06-121r3 §7.2: service, request, acceptversions, sections, updatesequence,
// acceptformats), GetRecords and GetRecordById (OGC 07-006r1 §10.8.2, §10.9.2; CSW 3.0 OGC
// 12-176r7 §7.3, which keeps those names), and version (pasted by most clients). A csw source's
// URL never carries them: EXTRACT builds its own requests from the endpoint.
var cswRequestParams = map[string]bool{
	"service": true, "request": true, "version": true, "acceptversions": true, "sections": true,
	"updatesequence": true, "acceptformats": true, "namespace": true, "typenames": true, "typename": true,
	"elementsetname": true, "elementname": true, "outputformat": true, "outputschema": true, "resulttype": true,
	"startposition": true, "maxrecords": true, "constraint": true, "constraintlanguage": true,
	"constraint_language_version": true, "sortby": true, "distributedsearch": true, "hopcount": true,
	"responsehandler": true, "requestid": true, "id": true, "recordids": true,
}

// CSWRequestParam reports whether name (any case) is a parameter of a CSW request
// (cswRequestParams), which a csw source's URL drops.
func CSWRequestParam(name string) bool { return cswRequestParams[strings.ToLower(name)] }

// CSWBaseURL is the CSW endpoint a csw source's URL names: raw without its fragment and
// without the query parameters of a CSW request pasted with it (a GetCapabilities URL's
// SERVICE=CSW&REQUEST=GetCapabilities&VERSION=2.0.2; CSWRequestParam, any case); other
// parameters (a GeoNetwork portal's, a token) are kept as written, in their order. So
// "http://host/csw?SERVICE=CSW&REQUEST=GetCapabilities" and "http://host/csw" are one source.
func CSWBaseURL(raw string) string {
	base := strings.TrimSpace(raw)
	if i := strings.IndexByte(base, '#'); i >= 0 {
		base = base[:i]
	}
	path, query, ok := strings.Cut(base, "?")
	if !ok {
		return base
	}
	var kept []string
	for _, kv := range strings.Split(query, "&") {
		name, _, _ := strings.Cut(kv, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if kv != "" && !CSWRequestParam(name) {
			kept = append(kept, kv)
		}
	}
	if len(kept) == 0 {
		return path
	}
	return path + "?" + strings.Join(kept, "&")
}
