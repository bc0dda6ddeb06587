package transform

import (
	"bytes"
	"encoding/xml"
	"io"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/transform/dublincore"
	"github.com/harvester-dev/harvester/stages/transform/fgdc"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// transformXML maps an XML metadata record by its root element, whatever XML schema type its
// source declares (iso19115_1, iso19115_2 or fgdc: a WAF or a CSW server may mix them): an
// FGDC CSDGM <metadata> by package fgdc; a CSW Dublin Core record (csw:Record, SummaryRecord
// or BriefRecord, CSW 2.0.2 or 3.0: what a CSW server returns when it offers no ISO 19139)
// by package dublincore; anything else by package iso, which maps gmd:MD_Metadata,
// gmi:MI_Metadata and mdb:MD_Metadata and names any other root in its error (ErrNotISO19115).
func transformXML(rec *harvest.Record) ([]byte, []dcatus.Warning, error) {
	space, local := rootElement(rec.XML)
	switch {
	case local == "metadata": // fgdc names a prefixed or namespaced one in its error
		return fgdc.Transform(rec.XML, rec.Identifier, rec.PublisherName)
	case dublincore.IsRecord(space, local):
		return dublincore.Transform(rec.XML, rec.Identifier, rec.PublisherName)
	}
	return iso.Transform(rec.XML, rec.Identifier, rec.PublisherName)
}

// rootElement returns the namespace URI and local name of doc's root element; "", "" when
// the document has none or is not XML up to it (the mapper then says what is wrong). Only
// the prolog is read: a UTF-8 BOM and white space before the XML declaration are skipped,
// the declared encoding is not applied (element names of the metadata standards are ASCII),
// DOCTYPEs are skipped and never fetched.
func rootElement(doc []byte) (space, local string) {
	doc = bytes.TrimLeft(bytes.TrimPrefix(doc, []byte("\xEF\xBB\xBF")), " \t\r\n")
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	for {
		tok, err := d.Token()
		if err != nil {
			return "", ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Space, se.Name.Local
		}
	}
}
