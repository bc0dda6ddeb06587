package csw

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// cswCapabilities is what a harvest reads of a CSW GetCapabilities document (OGC 07-006r1
// §10.5, OWS Common 06-121r3 §7): the service versions, and GetRecords' endpoints and
// parameter values.
type cswCapabilities struct {
	XMLName    xml.Name
	Version    string         `xml:"version,attr"`
	Versions   []string       `xml:"ServiceIdentification>ServiceTypeVersion"`
	Operations []owsOperation `xml:"OperationsMetadata>Operation"`
	Parameters []owsParameter `xml:"OperationsMetadata>Parameter"` // for every operation
}

type owsOperation struct {
	Name       string         `xml:"name,attr"`
	Get        []owsLink      `xml:"DCP>HTTP>Get"`
	Post       []owsLink      `xml:"DCP>HTTP>Post"`
	Parameters []owsParameter `xml:"Parameter"`
}

type owsLink struct {
	Href string `xml:"http://www.w3.org/1999/xlink href,attr"`
}

// owsParameter is an ows:Parameter: its values directly (OWS 1.0, CSW 2.0.2) or in
// AllowedValues (OWS 1.1/2.0, CSW 3.0).
type owsParameter struct {
	Name    string   `xml:"name,attr"`
	Values  []string `xml:"Value"`
	Allowed []string `xml:"AllowedValues>Value"`
}

// cswService is how a harvest talks to one CSW, decided from its capabilities and the source's
// settings.
type cswService struct {
	version      string // "2.0.2" or "3.0.0"
	namespace    string // cswNS202 or cswNS30
	endpoint     string // GetRecords' URL for the binding
	post         bool   // binding post (an XML request) rather than get (KVP)
	outputSchema string
	constraints  []string // the constraint languages offered (FILTER, CQL_TEXT); nil when not said
}

// values is the parameter's values, whichever way they are given.
func (p *owsParameter) values() []string {
	out := make([]string, 0, len(p.Values)+len(p.Allowed))
	for _, v := range append(slices.Clone(p.Values), p.Allowed...) {
		out = append(out, strings.TrimSpace(v))
	}
	return out
}

// param returns the values of GetRecords' parameter name (case-insensitive), or of the
// OperationsMetadata's, nil when neither names it.
func (c *cswCapabilities) param(op *owsOperation, name string) []string {
	for _, list := range [][]owsParameter{op.Parameters, c.Parameters} {
		for i := range list {
			if strings.EqualFold(list[i].Name, name) {
				return list[i].values()
			}
		}
	}
	return nil
}

// cswBaseURL is the CSW endpoint a source's URL names: without the query parameters of a
// request (service, request, version, acceptversions…: harvest.CSWRequestParam) the user may
// have pasted with it, as harvest.CSWBaseURL drops them from the stored URL.
func cswBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("CSW URL %q: not an absolute http(s) URL", raw)
	}
	q := u.Query()
	for k := range q {
		if harvest.CSWRequestParam(k) {
			q.Del(k)
		}
	}
	u.RawQuery, u.Fragment = q.Encode(), ""
	return u, nil
}

// withQuery is u with q's parameters added.
func withQuery(u *url.URL, q url.Values) string {
	c := *u
	all := c.Query()
	for k, vs := range q {
		all[k] = vs
	}
	c.RawQuery = all.Encode()
	return c.String()
}

// cswCapabilitiesFetch GETs and reads base's capabilities (service=CSW, request=GetCapabilities,
// acceptversions 2.0.2 then 3.0.0). Its error names the request: a *fetch.Error, a document
// that is not XML, an OWS ExceptionReport (*CSWExceptionError), or not CSW capabilities.
func cswCapabilitiesFetch(ctx context.Context, fc fetch.Config, base *url.URL, limit int) (*cswCapabilities, string, error) {
	u := withQuery(base, url.Values{"service": {"CSW"}, "request": {"GetCapabilities"},
		"acceptversions": {"2.0.2,3.0.0"}})
	fc.MaxBytes = min(fc.MaxBytes, int64(limit))
	f, err := fetch.Get(ctx, fc, u)
	if errors.Is(err, fetch.ErrTooLarge) {
		return nil, u, fmt.Errorf("GetCapabilities %s: the document is over %d bytes (--max-record-bytes)", u, limit)
	}
	if exc := exceptionOf(err); exc != nil {
		return nil, u, fmt.Errorf("GetCapabilities %s: %w", u, exc)
	}
	if err != nil {
		return nil, u, err
	}
	defer f.Close()
	caps, err := readCapabilities(f)
	if err != nil {
		return nil, u, fmt.Errorf("GetCapabilities %s: %w", u, err)
	}
	return caps, u, nil
}

// readCapabilities reads a capabilities document; an ExceptionReport is a *CSWExceptionError.
func readCapabilities(f *os.File) (*cswCapabilities, error) {
	if title, ok := fetch.HTMLPage(f); ok {
		return nil, fmt.Errorf("the server sent an HTML page (title %q) where CSW capabilities (XML) were expected", title)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	body, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	d := xml.NewDecoder(bytes.NewReader(body))
	d.CharsetReader = charsetReader
	var caps cswCapabilities
	if err := d.Decode(&caps); err != nil {
		return nil, fmt.Errorf("not a well-formed XML document: %w", err)
	}
	switch caps.XMLName.Local {
	case "Capabilities":
	case "ExceptionReport":
		if exc := parseExceptionReport(body); exc != nil {
			return nil, exc
		}
		return nil, &CSWExceptionError{Code: "(unreadable)"}
	default:
		return nil, fmt.Errorf("not CSW capabilities: the root element is %s", xmlName(caps.XMLName))
	}
	return &caps, nil
}

// service decides how to harvest the CSW whose capabilities c are, for a source at base with
// schema type schema and the settings in options (binding: post or get). CSW 2.0.2 is used
// when offered, else 3.0.0. The output schema is ISO 19139 (gmd) for an ISO source when
// offered, FGDC CSDGM for an fgdc source when offered, else Dublin Core (csw:Record). A
// GetRecords endpoint on another host than base's (a server behind a proxy often advertises
// its internal address) is not used: base is, for that binding.
func (c *cswCapabilities) service(base *url.URL, schema harvest.SchemaType, options map[string]string) (*cswService, error) {
	i := slices.IndexFunc(c.Operations, func(op owsOperation) bool { return strings.EqualFold(op.Name, "GetRecords") })
	if i < 0 {
		return nil, errors.New("the capabilities offer no GetRecords operation")
	}
	op := &c.Operations[i]
	versions := append(slices.Clone(c.Versions), c.Version)
	s := &cswService{}
	switch {
	case slices.Contains(versions, "2.0.2"):
		s.version, s.namespace = "2.0.2", cswNS202
	case slices.ContainsFunc(versions, func(v string) bool { return strings.HasPrefix(v, "3.0") }):
		s.version, s.namespace = "3.0.0", cswNS30
	default:
		return nil, fmt.Errorf("the capabilities offer CSW versions %q, none of 2.0.2 and 3.0", versions)
	}
	schemas := c.param(op, "outputSchema")
	s.outputSchema = s.namespace
	switch {
	case schema.IsISO() && slices.Contains(schemas, cswSchemaGMD):
		s.outputSchema = cswSchemaGMD
	case schema == harvest.SchemaFGDC && slices.Contains(schemas, cswSchemaFGDC):
		s.outputSchema = cswSchemaFGDC
	case schema == harvest.SchemaFGDC && slices.Contains(schemas, cswSchemaFGDC2):
		s.outputSchema = cswSchemaFGDC2
	}
	s.constraints = c.param(op, "CONSTRAINTLANGUAGE")
	gets, posts := hrefs(op.Get), hrefs(op.Post)
	switch options["binding"] {
	case "post":
		if len(posts) == 0 {
			return nil, errors.New("binding=post, but the capabilities offer no POST endpoint for GetRecords")
		}
		s.post = true
	case "get":
		if len(gets) == 0 {
			return nil, errors.New("binding=get, but the capabilities offer no GET endpoint for GetRecords")
		}
	case "":
		s.post = len(posts) > 0
		if !s.post && len(gets) == 0 {
			return nil, errors.New("the capabilities offer no GET or POST endpoint for GetRecords")
		}
	}
	list := gets
	if s.post {
		list = posts
	}
	s.endpoint = base.String()
	if u, err := url.Parse(list[0]); err == nil && u.Scheme == base.Scheme && extract.SameHost(u, base) {
		s.endpoint = u.String()
	}
	return s, nil
}

// hrefs are the links' non-empty hrefs.
func hrefs(links []owsLink) []string {
	var out []string
	for _, l := range links {
		if h := strings.TrimSpace(l.Href); h != "" {
			out = append(out, h)
		}
	}
	return out
}
