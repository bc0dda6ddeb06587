package dublincore

import (
	"errors"
	"fmt"
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

// parse reads a CSW Dublin Core record (xmltree.Parse, nesting capped at MaxDepth). Only the
// root's children (and a bounding box's corners) are read; any other nesting is skipped.
// encoding/xml never fetches DTDs or external entities and, in Strict mode, refuses entities
// beyond XML's predefined five. A root element that is not a record is reported as such even
// when the document is malformed further on.
func parse(raw []byte) (*record, error) {
	doc, _, err := iso.ToUTF8(raw)
	if err != nil {
		return nil, err
	}
	root, err := xmltree.Parse(doc, xmltree.Limits{MaxDepth: MaxDepth})
	var xe *xmltree.Error
	switch {
	case errors.As(err, &xe) && xe.Root != nil && !IsRecord(xe.Root.Space, xe.Root.Local):
		return nil, notDublinCore(xe.Root)
	case errors.Is(err, xmltree.ErrLimit):
		return nil, fmt.Errorf("%w: elements nested deeper than %d", ErrMalformedXML, MaxDepth)
	case err != nil:
		return nil, xmltree.Rewrap(err, ErrMalformedXML, ErrMalformedXML)
	case !IsRecord(root.Space, root.Local):
		return nil, notDublinCore(root)
	}
	rec := &record{root: root.Local, props: map[string][]property{}}
	for _, c := range root.Children {
		if p, box := start(c); p != nil {
			p.text = strings.TrimSpace(c.Text.String())
			name := prefix(c.Space) + ":" + c.Local
			rec.props[name] = append(rec.props[name], *p)
		} else if box != nil {
			rec.boxes = append(rec.boxes, *box)
		}
	}
	return rec, nil
}

// start reads a property (a Dublin Core element or term) or a bounding box, a child of the
// root; both nil for an element of another namespace (ignored).
func start(n *xmltree.Node) (*property, *boundingBox) {
	switch n.Space {
	case nsDC, nsDCT:
		p := &property{}
		for _, a := range n.Attrs {
			if a.Name.Local == "scheme" {
				p.scheme = strings.TrimSpace(a.Value)
			}
		}
		return p, nil
	case nsOWS, nsOWS2:
		if n.Local != "BoundingBox" && n.Local != "WGS84BoundingBox" {
			return nil, nil
		}
		b := &boundingBox{wgs84: n.Local == "WGS84BoundingBox"}
		for _, a := range n.Attrs {
			if a.Name.Local == "crs" {
				b.crs = strings.TrimSpace(a.Value)
			}
		}
		for _, c := range n.Children {
			if c.Space != nsOWS && c.Space != nsOWS2 {
				continue
			}
			switch c.Local {
			case "LowerCorner":
				b.lower = strings.TrimSpace(c.Text.String())
			case "UpperCorner":
				b.upper = strings.TrimSpace(c.Text.String())
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
func notDublinCore(n *xmltree.Node) error {
	what := ""
	switch {
	case n.Local == "metadata" && n.Space == "":
		what = ", an FGDC CSDGM record"
	case n.Local == "MD_Metadata" || n.Local == "MI_Metadata":
		what = ", an ISO 19115 record"
	}
	return fmt.Errorf("%w: the root element is {%s}%s%s", ErrNotDublinCore, n.Space, n.Local, what)
}
