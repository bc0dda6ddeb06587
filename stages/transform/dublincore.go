package transform

import (
	"bytes"
	"encoding/xml"
	"io"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/transform/dublincore"
)

// isDublinCoreRecord reports whether an XML record's root element is a CSW Dublin Core record
// (csw:Record, csw:SummaryRecord or csw:BriefRecord, CSW 2.0.2 or 3.0: what a CSW server
// returns when it offers no ISO 19139), whatever XML schema type its source declares. Only the
// prolog is read (a UTF-8 BOM and white space skipped, DOCTYPEs never fetched); a document that
// is not XML up to its root is not one (the ISO mapper then says what is wrong).
func isDublinCoreRecord(doc []byte) bool {
	doc = bytes.TrimLeft(bytes.TrimPrefix(doc, []byte("\xEF\xBB\xBF")), " \t\r\n")
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // names are ASCII
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			return dublincore.IsRecord(se.Name.Space, se.Name.Local)
		}
	}
}

// transformDublinCore maps a CSW Dublin Core record (package dublincore).
func transformDublinCore(rec *harvest.Record) ([]byte, []dcatus.Warning, error) {
	return dublincore.Transform(rec.XML, rec.Identifier, rec.PublisherName)
}
