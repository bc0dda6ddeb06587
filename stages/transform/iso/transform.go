// Package iso transforms ISO 19115 geospatial metadata records (19115-1/19139 gmd:MD_Metadata,
// 19115-2 gmi:MI_Metadata, 19115-3 mdb:MD_Metadata) into DCAT-US 1.1 dataset objects, natively
// in Go, in place of the MDTranslator service ("iso19115_2_datagov" reader, "dcat_us" writer)
// and the post-processing Data.gov's Harvesting 2.0 applies to its output (identifier forced
// to the record URL, placeholders for missing required fields, theme "geospatial", landing
// page added as a distribution, media types guessed).
package iso

import (
	"fmt"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// Warning is a non-fatal note about a transformed record (a placeholder was used, a value was
// dropped…).
type Warning = dcatus.Warning

// Data.gov's placeholders for missing required fields (datagov-harvester, TRANSFORM).
const (
	PlaceholderContactName  = "Not provided - Contact data.gov"
	PlaceholderContactEmail = "mailto:datagovsupport@gsa.gov"
	PlaceholderDescription  = "No description was provided."
	PlaceholderKeyword      = "__"
	// PlaceholderPublisher names the publisher when neither the record nor the source's
	// organization does.
	PlaceholderPublisher = "Not provided"
)

// Transform turns one ISO 19115 record (19115-1 gmd:MD_Metadata, 19115-2 gmi:MI_Metadata, or
// 19115-3 mdb:MD_Metadata) into a DCAT-US 1.1 dataset object (JSON, keys in a stable order,
// meant to validate against Data.gov's non-federal dataset schema).
//
// identifier is the record's identifier (the file's URL, as Data.gov uses). publisher.name is
// the organisation the record names: the citation's publisher, any publisher, the contacts'
// organisation, else a party given by reference (an empty gmd:contact, gmd:pointOfContact or
// gmd:citedResponsibleParty with an xlink:title: its publisher, else the first). When the
// record names none, publisherName, the name of the harvest source's organization (as Data.gov
// uses), fills it; empty: PlaceholderPublisher. Missing required fields get Data.gov's
// placeholders, each with a Warning.
//
// Input: a UTF-8 BOM and whitespace before the XML declaration are tolerated; ISO-8859-1,
// Windows-1252 and ASCII declarations are decoded as declared (but UTF-8 bytes under an
// ISO-8859-1 or Windows-1252 declaration are read as UTF-8, with a warning); a UTF-16 byte
// order mark is decoded. A description over DCAT-US's 10,000 characters is cut at a word,
// with a warning. DTDs and external entities are
// never fetched and no entity is expanded beyond XML's predefined five.
//
// Errors wrap ErrEncoding (bytes invalid in the declared encoding, with the byte offset),
// ErrMalformedXML (with line and column), ErrNotISO19115 (FGDC CSDGM, which package fgdc
// maps, ISO 19110 or another root element; the message names what was found) or ErrInvalidISO (a 19115-1/-2 record that
// breaks an ISO 19139 structural rule: an unknown gmd/gmi element under the root, or a
// required gmd:role, CI_Date gmd:date or gmd:dateType missing or empty without a
// gco:nilReason; the message lists the element paths). 19115-3 records are not checked.
func Transform(xml []byte, identifier, publisherName string) (dcat []byte, warnings []Warning, err error) {
	doc, _, err := toUTF8(xml)
	if err != nil {
		return nil, nil, err
	}
	root, err := parse(doc)
	if err != nil {
		return nil, nil, err
	}
	if err := checkRoot(root); err != nil {
		return nil, nil, err
	}
	if err := checkISO19139(root); err != nil {
		return nil, nil, err
	}
	m := &mapper{root: root}
	if w := CharsetWarning(xml); w != "" {
		m.Warn("encoding", "%s", w)
	}
	dcat, err = m.dataset(identifier, publisherName).Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode DCAT-US: %w", err)
	}
	return dcat, m.Warnings, nil
}

// checkRoot accepts the three ISO 19115 record roots and names anything else.
func checkRoot(root *node) error {
	const (
		gmd = "http://www.isotc211.org/2005/gmd"
		gmi = "http://www.isotc211.org/2005/gmi"
		gfc = "http://www.isotc211.org/2005/gfc"
	)
	switch {
	case root.Local == "MD_Metadata" && root.Space == gmd,
		root.Local == "MI_Metadata" && root.Space == gmi,
		root.Local == "MD_Metadata" && strings.HasPrefix(root.Space, "http://standards.iso.org/iso/19115/-3/mdb/"),
		root.Local == "MI_Metadata" && strings.HasPrefix(root.Space, "http://standards.iso.org/iso/19115/-2/gmi/"):
		return nil
	case root.Local == "metadata" && root.Space == "":
		return fmt.Errorf("%w: the root element is <metadata>, an FGDC CSDGM record, not ISO 19115 (package fgdc maps it)", ErrNotISO19115)
	case root.Local == "FC_FeatureCatalogue" && (root.Space == gfc || strings.Contains(root.Space, "/19110/")):
		return fmt.Errorf("%w: the root element is {%s}FC_FeatureCatalogue, an ISO 19110 feature catalogue, not a metadata record; it is not supported yet", ErrNotISO19115, root.Space)
	}
	if root.Space == "" {
		return fmt.Errorf("%w: the root element is <%s> (no namespace), an unknown metadata standard; it is not supported yet", ErrNotISO19115, root.Local)
	}
	return fmt.Errorf("%w: the root element is {%s}%s, an unknown metadata standard; it is not supported yet", ErrNotISO19115, root.Space, root.Local)
}
