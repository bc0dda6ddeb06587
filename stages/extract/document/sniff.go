package document

import (
	"bytes"
	"fmt"
	"io"
	"regexp"

	"github.com/harvester-dev/harvester/harvest"
)

// Kinds of document sniffDocument tells apart.
const (
	docJSON   = "JSON"
	docXML    = "XML"
	docRDFXML = "RDF/XML"
	docTurtle = "Turtle or N-Triples (RDF)"
)

// utf8BOM is the byte order mark some publishers put before a document.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

var (
	turtleStart = regexp.MustCompile(`^(?i:@prefix|@base|prefix|base)\s`)
	nTriple     = regexp.MustCompile(`^(_:\S+|<[^>\s]*>)\s+<[^>\s]*>\s`)
	rdfRoot     = regexp.MustCompile(`^<(?:[A-Za-z_][\w.-]*:)?RDF[\s>/]`)
)

// sniffDocument names what the start of a document (its first KiB or so) looks like: JSON,
// XML, RDF/XML (an rdf:RDF root), Turtle or N-Triples, or "" when it cannot tell. A BOM, white
// space, and before an XML root its declaration, comments and doctype are passed over.
func sniffDocument(head []byte) string {
	head = bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	switch {
	case len(head) == 0:
		return ""
	case head[0] == '{' || head[0] == '[':
		return docJSON
	case turtleStart.Match(head), nTriple.Match(head):
		return docTurtle
	case head[0] != '<':
		return ""
	}
	for {
		var closing []byte
		switch {
		case bytes.HasPrefix(head, []byte("<?")):
			closing = []byte("?>")
		case bytes.HasPrefix(head, []byte("<!--")):
			closing = []byte("-->")
		case bytes.HasPrefix(head, []byte("<!")):
			closing = []byte(">")
		}
		end := bytes.Index(head, closing)
		if closing == nil || end < 0 {
			break
		}
		head = bytes.TrimLeft(head[end+len(closing):], " \t\r\n")
	}
	if rdfRoot.Match(head) {
		return docRDFXML
	}
	return docXML
}

// readHead returns the first 4 KiB of f, from its start.
func readHead(f io.ReadSeeker) []byte {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	head, _ := io.ReadAll(io.LimitReader(f, 4<<10))
	return head
}

// wrongKind explains a document of kind where the schema type expects another, or returns nil:
// RDF in any syntax is for an rdf source (the message says how to harvest it); JSON or XML for
// the other schema family names the schema types that read it.
func wrongKind(kind string, schema harvest.SchemaType) error {
	switch {
	case kind == docRDFXML || kind == docTurtle:
		return fmt.Errorf("the document is %s: harvest an RDF document (DCAT-AP) as --source-type rdf --schema-type %s",
			kind, harvest.SchemaDCATAP)
	case kind == docJSON && schema.IsXML():
		what := "ISO 19115 XML"
		if schema == harvest.SchemaFGDC {
			what = "FGDC CSDGM XML"
		}
		return fmt.Errorf("the document is JSON, not %s, as schema type %q expects: for a DCAT-US "+
			"data.json use schema type %q or %q", what, schema, harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal)
	case kind == docXML && !schema.IsXML():
		return fmt.Errorf("the document is XML, not a DCAT-US catalog (JSON), as schema type %q expects: "+
			"for ISO 19115 XML use schema type %q or %q, for FGDC CSDGM XML %q", schema, harvest.SchemaISO19115_1,
			harvest.SchemaISO19115_2, harvest.SchemaFGDC)
	}
	return nil
}
