package dublincore

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/harvester-dev/harvester/stages/transform/iso"
	"github.com/harvester-dev/harvester/stages/transform/xmltree"
)

// Namespaces of the CSW record schemas (OGC 07-006r1 for 2.0.2, OGC 12-176r7 for 3.0), Dublin
// Core and OWS.
const (
	NamespaceCSW202 = "http://www.opengis.net/cat/csw/2.0.2"
	NamespaceCSW30  = "http://www.opengis.net/cat/csw/3.0"
	nsDC            = "http://purl.org/dc/elements/1.1/"
	nsDCT           = "http://purl.org/dc/terms/"
	nsOWS           = "http://www.opengis.net/ows"
	nsOWS2          = "http://www.opengis.net/ows/2.0"
)

// MaxDepth is the deepest element nesting a record may have. A csw:Record is flat (its
// properties are children of the root, a bounding box's corners grandchildren); a deeper
// document is refused as malformed rather than walked.
const MaxDepth = 64

// IsRecord reports whether an element (its namespace URI and local name) is a CSW Dublin Core
// record root: csw:Record, csw:SummaryRecord or csw:BriefRecord in the CSW 2.0.2 or 3.0
// namespace. TRANSFORM uses it to pick this mapper by a record's root element.
func IsRecord(space, local string) bool {
	if space != NamespaceCSW202 && space != NamespaceCSW30 {
		return false
	}
	return local == "Record" || local == "SummaryRecord" || local == "BriefRecord"
}

// property is one property element of the record: dc:title, dct:references…
type property struct {
	text   string
	scheme string // dct:references/@scheme, the link's protocol
}

// boundingBox is an ows:BoundingBox or ows:WGS84BoundingBox.
type boundingBox struct {
	wgs84        bool
	crs          string
	lower, upper string
}

// record is a parsed csw:Record: its properties by "dc:name" or "dct:name", in document
// order, and its bounding boxes.
type record struct {
	root  string
	props map[string][]property
	boxes []boundingBox
}

// all returns the non-empty texts of the properties named (e.g. "dc:subject"), in order.
func (r *record) all(names ...string) []string {
	var out []string
	for _, n := range names {
		for _, p := range r.props[n] {
			if p.text != "" {
				out = append(out, p.text)
			}
		}
	}
	return out
}

// first returns the first non-empty text of the properties named, tried in order.
func (r *record) first(names ...string) string {
	if v := r.all(names...); len(v) > 0 {
		return v[0]
	}
	return ""
}

// parse reads a CSW Dublin Core record. Only the root's children (and a bounding box's
// corners) are read; any other nesting is skipped. encoding/xml never fetches DTDs or
// external entities and, in Strict mode, refuses entities beyond XML's predefined five.
func parse(raw []byte) (*record, error) {
	doc, _, err := iso.ToUTF8(raw)
	if err != nil {
		return nil, err
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // UTF-8 already
	rec := &record{props: map[string][]property{}}
	var stack []xml.Name
	var text, cornerText strings.Builder // a property's own text; a box corner's
	var cur *property                    // the property being read (depth 2)
	var box *boundingBox                 // the bounding box being read
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed(doc, d, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name)
			switch depth := len(stack); {
			case depth > MaxDepth:
				return nil, malformed(doc, d, fmt.Errorf("elements nested deeper than %d", MaxDepth))
			case depth == 1:
				if !IsRecord(t.Name.Space, t.Name.Local) {
					return nil, notDublinCore(t.Name)
				}
				rec.root = t.Name.Local
			case depth == 2:
				cur, box = rec.start(t)
				text.Reset()
			case depth == 3:
				cornerText.Reset()
			}
		case xml.CharData:
			switch {
			case cur != nil && len(stack) == 2:
				text.Write(t)
			case box != nil && len(stack) == 3:
				cornerText.Write(t)
			}
		case xml.EndElement:
			switch len(stack) {
			case 2:
				if cur != nil {
					cur.text = strings.TrimSpace(text.String())
					name := prefix(t.Name.Space) + ":" + t.Name.Local
					rec.props[name] = append(rec.props[name], *cur)
				}
				if box != nil {
					rec.boxes = append(rec.boxes, *box)
				}
				cur, box = nil, nil
			case 3:
				if box != nil && (t.Name.Space == nsOWS || t.Name.Space == nsOWS2) {
					switch t.Name.Local {
					case "LowerCorner":
						box.lower = strings.TrimSpace(cornerText.String())
					case "UpperCorner":
						box.upper = strings.TrimSpace(cornerText.String())
					}
				}
			}
			stack = stack[:len(stack)-1]
		}
	}
	if rec.root == "" {
		return nil, fmt.Errorf("%w: no root element", ErrMalformedXML)
	}
	return rec, nil
}

// start begins a property (a Dublin Core element or term) or a bounding box at depth 2;
// both nil for an element of another namespace (ignored).
func (r *record) start(t xml.StartElement) (*property, *boundingBox) {
	switch t.Name.Space {
	case nsDC, nsDCT:
		p := &property{}
		for _, a := range t.Attr {
			if a.Name.Local == "scheme" {
				p.scheme = strings.TrimSpace(a.Value)
			}
		}
		return p, nil
	case nsOWS, nsOWS2:
		if t.Name.Local != "BoundingBox" && t.Name.Local != "WGS84BoundingBox" {
			return nil, nil
		}
		b := &boundingBox{wgs84: t.Name.Local == "WGS84BoundingBox"}
		for _, a := range t.Attr {
			if a.Name.Local == "crs" {
				b.crs = strings.TrimSpace(a.Value)
			}
		}
		return nil, b
	}
	return nil, nil
}

func prefix(space string) string {
	if space == nsDCT {
		return "dct"
	}
	return "dc"
}

// notDublinCore names the root found: an ISO or FGDC record is a common mistake to report.
func notDublinCore(n xml.Name) error {
	what := ""
	switch {
	case n.Local == "metadata" && n.Space == "":
		what = ", an FGDC CSDGM record"
	case n.Local == "MD_Metadata" || n.Local == "MI_Metadata":
		what = ", an ISO 19115 record"
	}
	return fmt.Errorf("%w: the root element is {%s}%s%s", ErrNotDublinCore, n.Space, n.Local, what)
}

// malformed wraps a decoder error with the line reached.
func malformed(doc []byte, d *xml.Decoder, err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: line %d: %s", ErrMalformedXML, se.Line, xmltree.ExplainSyntax(se.Msg))
	}
	off := min(int(d.InputOffset()), len(doc))
	return fmt.Errorf("%w: line %d: %v", ErrMalformedXML, 1+bytes.Count(doc[:off], []byte("\n")), err)
}
