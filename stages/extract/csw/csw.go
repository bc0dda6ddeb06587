package csw

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/harvester-dev/harvester/fetch"
)

// cswQuery is what one GetRecords listing asks for besides its page.
type cswQuery struct {
	elementSet string    // "full" or "brief"
	since      time.Time // when not zero: only records modified on or after its date (dct:modified)
	cql        string    // the source's constraint setting (CQL text), "" for none
}

// cswRequest builds the GetRecords request of the page at startPosition start (1-based) of
// size records: the URL and, for the post binding, the XML body (resultType results in 2.0.2;
// CSW 3.0's schema has no resultType, results are its answer). where names the request in
// errors: "GetRecords GET <URL>", or "POST <endpoint> GetRecords startPosition=N".
func (s *cswService) cswRequest(q *cswQuery, start, size int) (u string, body []byte, where string, err error) {
	if !s.post {
		v := url.Values{"service": {"CSW"}, "version": {s.version}, "request": {"GetRecords"},
			"typeNames": {"csw:Record"}, "resultType": {"results"}, "elementSetName": {q.elementSet},
			"outputSchema": {s.outputSchema}, "startPosition": {strconv.Itoa(start)}, "maxRecords": {strconv.Itoa(size)}}
		if cql := q.cqlText(); cql != "" {
			v.Set("constraintLanguage", "CQL_TEXT")
			v.Set("constraint_language_version", "1.1.0")
			v.Set("constraint", cql)
		}
		base, err := url.Parse(s.endpoint)
		if err != nil {
			return "", nil, "", fmt.Errorf("GetRecords endpoint %q: %w", s.endpoint, err)
		}
		u = withQuery(base, v)
		return u, nil, "GetRecords GET " + u, nil
	}
	var b bytes.Buffer
	if s.version == "2.0.2" {
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<csw:GetRecords xmlns:csw="%s" `+
			`xmlns:ogc="http://www.opengis.net/ogc" xmlns:dc="http://purl.org/dc/elements/1.1/" `+
			`xmlns:dct="http://purl.org/dc/terms/" service="CSW" version="2.0.2" resultType="results" `+
			`startPosition="%d" maxRecords="%d" outputSchema="%s">`, cswNS202, start, size, escapeAttr(s.outputSchema))
	} else {
		fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<csw:GetRecords xmlns:csw="%s" `+
			`xmlns:fes="http://www.opengis.net/fes/2.0" xmlns:dc="http://purl.org/dc/elements/1.1/" `+
			`xmlns:dct="http://purl.org/dc/terms/" service="CSW" version="3.0.0" `+
			`startPosition="%d" maxRecords="%d" outputSchema="%s">`, cswNS30, start, size, escapeAttr(s.outputSchema))
	}
	fmt.Fprintf(&b, `<csw:Query typeNames="csw:Record"><csw:ElementSetName>%s</csw:ElementSetName>`, q.elementSet)
	b.WriteString(q.constraintXML(s.version))
	b.WriteString(`</csw:Query></csw:GetRecords>`)
	return s.endpoint, b.Bytes(), fmt.Sprintf("POST %s GetRecords startPosition=%d", s.endpoint, start), nil
}

// cqlText is the query's constraint as CQL text, "" for none.
func (q *cswQuery) cqlText() string {
	modified := "dct:modified >= '" + q.since.UTC().Format(time.DateOnly) + "'"
	switch {
	case q.since.IsZero():
		return q.cql
	case q.cql == "":
		return modified
	}
	return q.cql + " AND " + modified // no parentheses: pycsw's CQL refuses them (cswSince leaves out a cql with OR)
}

// constraintXML is the query's csw:Constraint for a POST: an OGC Filter (Filter Encoding 1.1
// for CSW 2.0.2, 2.0 for 3.0) on dct:modified, or CQL text when the source sets a constraint.
func (q *cswQuery) constraintXML(version string) string {
	switch {
	case q.cql != "":
		var b bytes.Buffer
		_ = xml.EscapeText(&b, []byte(q.cqlText()))
		return `<csw:Constraint version="1.1.0"><csw:CqlText>` + b.String() + `</csw:CqlText></csw:Constraint>`
	case q.since.IsZero():
		return ""
	case version == "2.0.2":
		return `<csw:Constraint version="1.1.0"><ogc:Filter><ogc:PropertyIsGreaterThanOrEqualTo>` +
			`<ogc:PropertyName>dct:modified</ogc:PropertyName><ogc:Literal>` + q.since.UTC().Format(time.DateOnly) +
			`</ogc:Literal></ogc:PropertyIsGreaterThanOrEqualTo></ogc:Filter></csw:Constraint>`
	}
	return `<csw:Constraint version="2.0.0"><fes:Filter><fes:PropertyIsGreaterThanOrEqualTo>` +
		`<fes:ValueReference>dct:modified</fes:ValueReference><fes:Literal>` + q.since.UTC().Format(time.DateOnly) +
		`</fes:Literal></fes:PropertyIsGreaterThanOrEqualTo></fes:Filter></csw:Constraint>`
}

// escapeAttr escapes s for a double-quoted attribute value.
func escapeAttr(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s))
	return strings.ReplaceAll(b.String(), `"`, "&#34;")
}

// cswGetRecords sends one GetRecords request and reads its answer (readCSWPage). Its errors
// name the request (where).
func (h *handler) cswGetRecords(ctx context.Context, s *cswService, q *cswQuery, start, size int) (*cswPage, string, error) {
	u, body, where, err := s.cswRequest(q, start, size)
	if err != nil {
		return nil, where, err
	}
	page, err := h.cswSend(ctx, s, u, body, where, cswAsked{start: start, size: size})
	return page, where, err
}

// cswSend sends one request of s's binding (a GET of u, or a POST of body to u) and reads its
// answer (readCSWPage, bounded by what was asked); its errors name the request (where).
func (h *handler) cswSend(ctx context.Context, s *cswService, u string, body []byte, where string, asked cswAsked) (*cswPage, error) {
	fc := h.Fetch()
	fc.Accept = "application/xml, text/xml;q=0.9, */*;q=0.5"
	var (
		f   *os.File
		err error
	)
	if s.post {
		f, err = fetch.Post(ctx, fc, u, "application/xml", body)
	} else {
		f, err = fetch.Get(ctx, fc, u)
	}
	if err != nil {
		if exc := exceptionOf(err); exc != nil {
			return nil, fmt.Errorf("%s: %w", where, exc)
		}
		if s.post {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		return nil, err // a *fetch.Error names the URL
	}
	defer f.Close()
	page, err := readCSWPage(f, h.Config().MaxRecordBytes, asked)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return page, nil
}

// byIDRequest builds the GetRecordById request of the full record id, as cswRequest does.
func (s *cswService) byIDRequest(id string) (u string, body []byte, where string, err error) {
	if !s.post {
		base, err := url.Parse(s.endpoint)
		if err != nil {
			return "", nil, "", fmt.Errorf("GetRecordById endpoint %q: %w", s.endpoint, err)
		}
		u = withQuery(base, url.Values{"service": {"CSW"}, "version": {s.version}, "request": {"GetRecordById"},
			"id": {id}, "elementSetName": {"full"}, "outputSchema": {s.outputSchema}})
		return u, nil, "GET " + u, nil
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<csw:GetRecordById xmlns:csw="%s" service="CSW" `+
		`version="%s" outputSchema="%s"><csw:Id>`, s.namespace, s.version, escapeAttr(s.outputSchema))
	_ = xml.EscapeText(&b, []byte(id))
	b.WriteString(`</csw:Id><csw:ElementSetName>full</csw:ElementSetName></csw:GetRecordById>`)
	return s.endpoint, b.Bytes(), fmt.Sprintf("POST %s GetRecordById id=%q", s.endpoint, id), nil
}

// exceptionOf is the OWS ExceptionReport a CSW sent with an HTTP error status (400 for a
// request it refuses, as OWS Common 06-121r3 §8.6 says), as the *CSWExceptionError that names
// its code and text alongside the status; nil when err is no such answer. fetch keeps the
// first 64 KiB of an error answer: a longer report (a Java stack trace as its text) is read
// as far as it goes.
func exceptionOf(err error) error {
	var fe *fetch.Error
	if !errors.As(err, &fe) || !bytes.Contains(fe.Page, []byte("ExceptionReport")) {
		return nil
	}
	exc := parseExceptionReport(fe.Page)
	if exc == nil {
		return nil
	}
	return fmt.Errorf("HTTP %d: %w", fe.StatusCode, exc)
}

// parseExceptionReport reads the first exception of an OWS ExceptionReport (OWS Common
// 06-121r3 §8: ows:Exception's exceptionCode and locator, its ows:ExceptionText), or of an
// OGC ServiceExceptionReport (ServiceException's code and text, the report of OGC's older
// services that some catalogues send); nil when body is neither. The body may declare any
// encoding (golang.org/x/net/html/charset's labels) and may end early: what was read is kept.
// The text kept is bounded by maxExceptionText bytes.
func parseExceptionReport(body []byte) *CSWExceptionError {
	d := xml.NewDecoder(bytes.NewReader(body))
	d.CharsetReader = charset.NewReaderLabel
	var (
		exc    *CSWExceptionError
		depth  int
		first  int // depth of the first exception, 0 before it
		inText int // depth of the element whose text is the exception's, 0 outside
		done   bool
	)
	for !done {
		tok, err := d.Token()
		if err != nil {
			break // the end, or as far as a truncated or broken answer goes
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case depth == 1 && t.Name.Local != "ExceptionReport" && t.Name.Local != "ServiceExceptionReport":
				return nil
			case depth == 1:
				exc = &CSWExceptionError{}
			case first == 0 && (t.Name.Local == "Exception" || t.Name.Local == "ServiceException"):
				first = depth
				exc.Code = cmp.Or(attr(&t, "exceptionCode"), attr(&t, "code"), "(none given)")
				exc.Locator = attr(&t, "locator")
				if t.Name.Local == "ServiceException" {
					inText = depth
				}
			case first > 0 && t.Name.Local == "ExceptionText" && inText == 0:
				inText = depth
				if exc.Text != "" {
					exc.Text += " " // a second ExceptionText of the exception
				}
			}
		case xml.CharData:
			if inText > 0 && len(exc.Text) < maxExceptionText {
				exc.Text += string(t[:min(len(t), maxExceptionText-len(exc.Text))])
			}
		case xml.EndElement:
			if depth == inText {
				inText = 0
			}
			done = depth == first // the first exception is read
			depth--
		}
	}
	if exc != nil && exc.Code == "" {
		exc.Code = "(none given)"
	}
	return exc
}
