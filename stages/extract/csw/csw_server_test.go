package csw_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// cswRequest is what a test CSW server was asked.
type cswRequest struct {
	Method, Request, OutputSchema, ElementSet, Constraint string
	Start, MaxRecords                                     int
}

// cswServer is a CSW a test starts: it answers GetCapabilities with capabilities and GetRecords
// with pages(request), each "{{URL}}" replaced by its own URL; it records every request.
type cswServer struct {
	*httptest.Server
	mu           sync.Mutex
	requests     []cswRequest
	capabilities func() string
	pages        func(r cswRequest) (string, int) // body and HTTP status
}

var (
	postStart   = regexp.MustCompile(`startPosition="(\d+)"`)
	postMax     = regexp.MustCompile(`maxRecords="(\d+)"`)
	postSchema  = regexp.MustCompile(`outputSchema="([^"]+)"`)
	postElement = regexp.MustCompile(`ElementSetName>(\w+)<`)
	postFilter  = regexp.MustCompile(`<csw:Constraint.*</csw:Constraint>`)
	matchedAttr = regexp.MustCompile(`numberOfRecordsMatched="(\d+)"`)
)

func newCSWServer(t *testing.T, capabilities func() string, pages func(r cswRequest) (string, int)) *cswServer {
	t.Helper()
	s := &cswServer{capabilities: capabilities, pages: pages}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *cswServer) serve(w http.ResponseWriter, r *http.Request) {
	req := cswRequest{Method: r.Method}
	q := map[string]string{}
	for k, v := range r.URL.Query() {
		q[strings.ToLower(k)] = v[0]
	}
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		req.Request = "GetRecords"
		if m := postStart.FindSubmatch(body); m != nil {
			req.Start, _ = strconv.Atoi(string(m[1]))
		}
		if m := postMax.FindSubmatch(body); m != nil {
			req.MaxRecords, _ = strconv.Atoi(string(m[1]))
		}
		if m := postSchema.FindSubmatch(body); m != nil {
			req.OutputSchema = string(m[1])
		}
		if m := postElement.FindSubmatch(body); m != nil {
			req.ElementSet = string(m[1])
		}
		req.Constraint = string(postFilter.Find(body))
	} else {
		req.Request, req.OutputSchema, req.ElementSet = q["request"], q["outputschema"], q["elementsetname"]
		req.Start, _ = strconv.Atoi(q["startposition"])
		req.MaxRecords, _ = strconv.Atoi(q["maxrecords"])
		req.Constraint = q["constraint"]
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/xml")
	if strings.EqualFold(req.Request, "GetCapabilities") {
		_, _ = io.WriteString(w, strings.ReplaceAll(s.capabilities(), "{{URL}}", s.URL))
		return
	}
	body, status := s.pages(req)
	w.WriteHeader(status)
	_, _ = io.WriteString(w, strings.ReplaceAll(body, "{{URL}}", s.URL))
}

// Requests returns the GetRecords requests so far.
func (s *cswServer) Requests() []cswRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []cswRequest
	for _, r := range s.requests {
		if r.Request == "GetRecords" {
			out = append(out, r)
		}
	}
	return out
}

// Reset forgets the requests so far.
func (s *cswServer) Reset() {
	s.mu.Lock()
	s.requests = nil
	s.mu.Unlock()
}

// cswTestdata reads a recorded answer in testdata/csw.
func cswTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "csw", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// recordedCSW serves the recorded answers of product (testdata/csw/<product>-capabilities.xml
// and <product>-getrecords-<startPosition>.xml, or <product>-fgdc-getrecords-<n>.xml when FGDC
// is asked for); a page it has no recording of is a 404.
func recordedCSW(t *testing.T, product string) *cswServer {
	caps := cswTestdata(t, product+"-capabilities.xml")
	return newCSWServer(t, func() string { return caps }, func(r cswRequest) (string, int) {
		name := fmt.Sprintf("%s-getrecords-%d.xml", product, r.Start)
		if strings.Contains(r.OutputSchema, "csdgm") {
			name = fmt.Sprintf("%s-fgdc-getrecords-%d.xml", product, r.Start)
		}
		b, err := os.ReadFile(filepath.Join("testdata", "csw", name))
		if err == nil {
			return string(b), http.StatusOK
		}
		// Past the last page: no record, the count of the first page (as GeoNetwork answers).
		first, err := os.ReadFile(filepath.Join("testdata", "csw", strings.Replace(name, "-"+strconv.Itoa(r.Start)+".xml", "-1.xml", 1)))
		if m := matchedAttr.FindSubmatch(first); err == nil && m != nil && r.Start > 1 {
			n, _ := strconv.Atoi(string(m[1]))
			return searchResults(n, 0, nil), http.StatusOK
		}
		return "no such page", http.StatusNotFound
	})
}

// isoRecord is a small valid ISO 19139 record of identifier id.
func isoRecord(id, title string) string {
	return `<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd" xmlns:gco="http://www.isotc211.org/2005/gco">
<gmd:fileIdentifier><gco:CharacterString>` + id + `</gco:CharacterString></gmd:fileIdentifier>
<gmd:contact><gmd:CI_ResponsibleParty><gmd:organisationName><gco:CharacterString>Test Agency</gco:CharacterString></gmd:organisationName>
<gmd:contactInfo><gmd:CI_Contact><gmd:address><gmd:CI_Address><gmd:electronicMailAddress><gco:CharacterString>data@example.gov</gco:CharacterString></gmd:electronicMailAddress></gmd:CI_Address></gmd:address></gmd:CI_Contact></gmd:contactInfo>
<gmd:role><gmd:CI_RoleCode codeList="x" codeListValue="pointOfContact">pointOfContact</gmd:CI_RoleCode></gmd:role></gmd:CI_ResponsibleParty></gmd:contact>
<gmd:dateStamp><gco:Date>2026-10-01</gco:Date></gmd:dateStamp>
<gmd:identificationInfo><gmd:MD_DataIdentification><gmd:citation><gmd:CI_Citation><gmd:title><gco:CharacterString>` + title +
		`</gco:CharacterString></gmd:title></gmd:CI_Citation></gmd:citation>
<gmd:abstract><gco:CharacterString>` + title + `, a record of a test catalogue.</gco:CharacterString></gmd:abstract>
<gmd:pointOfContact><gmd:CI_ResponsibleParty><gmd:organisationName><gco:CharacterString>Test Agency</gco:CharacterString></gmd:organisationName>
<gmd:contactInfo><gmd:CI_Contact><gmd:address><gmd:CI_Address><gmd:electronicMailAddress><gco:CharacterString>data@example.gov</gco:CharacterString></gmd:electronicMailAddress></gmd:CI_Address></gmd:address></gmd:CI_Contact></gmd:contactInfo>
<gmd:role><gmd:CI_RoleCode codeList="x" codeListValue="pointOfContact">pointOfContact</gmd:CI_RoleCode></gmd:role></gmd:CI_ResponsibleParty></gmd:pointOfContact>
<gmd:descriptiveKeywords><gmd:MD_Keywords><gmd:keyword><gco:CharacterString>test</gco:CharacterString></gmd:keyword></gmd:MD_Keywords></gmd:descriptiveKeywords>
</gmd:MD_DataIdentification></gmd:identificationInfo></gmd:MD_Metadata>`
}

// searchResults is a GetRecords answer holding records.
func searchResults(matched, next int, records []string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<csw:GetRecordsResponse xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"><csw:SearchStatus timestamp="2026-11-30T10:00:00"/>
<csw:SearchResults numberOfRecordsMatched="%d" numberOfRecordsReturned="%d" elementSet="full" nextRecord="%d">
%s</csw:SearchResults></csw:GetRecordsResponse>`, matched, len(records), next, strings.Join(records, "\n"))
}

// exceptionReport is an OWS ExceptionReport.
func exceptionReport(code, text string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows" version="1.2.0">` +
		`<ows:Exception exceptionCode="` + code + `"><ows:ExceptionText>` + text + `</ows:ExceptionText></ows:Exception></ows:ExceptionReport>`
}
