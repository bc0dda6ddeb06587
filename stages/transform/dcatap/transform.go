// Package dcatap transforms one DCAT-AP record graph (a dcat:Dataset and the resources it
// points at, as EXTRACT splits and skolemizes it) into a DCAT-US 1.1 dataset object, the JSON
// SYNC writes to the dataset table and the search index. The mapping, field by field, is in
// docs/source-types.md ("DCAT-AP → DCAT-US mapping"). It reads DCAT-AP 2.1.1 and 3.0.0 and DCAT-AP-NO
// 2.0 terms (DCAT 2/3, Dublin Core, vCard, FOAF, SKOS, LOCN, W3C Time, schema.org dates).
package dcatap

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/rdf"
)

// Warning is a non-fatal note about a lossy choice in a transformed record (an unparseable
// date dropped, one contact point kept of several…); picking one language of several is not
// a warning.
type Warning = dcatus.Warning

// DefaultLanguages is the language preference when none is configured.
var DefaultLanguages = []string{"en"}

// Error kinds returned by Transform, wrapped with detail; test them with errors.Is.
var (
	// ErrParse means the record body is not N-Quads; the message gives the parser's reason.
	ErrParse = errors.New("record graph does not parse as N-Quads")
	// ErrNoDataset means the record graph has no triple whose subject is the identifier.
	ErrNoDataset = errors.New("record graph does not describe the dataset")
)

var errStop = errors.New("stop")

// Transform turns one DCAT-AP record graph into a DCAT-US 1.1 dataset object (JSON, keys in a
// stable order, two-space indent). nquads is the record graph in N-Quads (EXTRACT's canonical
// N-Quads; N-Triples is N-Quads too; graph names are ignored); identifier is the dataset IRI,
// the subject the object describes and its DCAT-US identifier. langs is the language
// preference for language-tagged literals, most wanted first ("en", "nb", "en-GB"; a tag
// matches itself and its sub-tags); nil or empty means DefaultLanguages.
//
// Every single-valued text field takes one literal: the first preferred language that has
// one, else an untagged literal, else the first by tag then value. Keywords keep every
// keyword of the first preferred language that has any, plus untagged ones; all keywords when
// none is in a preferred language. The output is the same for the same graph whatever the
// order of its triples.
//
// A record without a title, description, publisher or contact point still transforms: the
// field is left out and VALIDATE reports it. Lossy choices (an unparseable date, a geometry
// in a projected CRS, one of several contact points kept…) are Warnings. Errors wrap ErrParse
// (the body is not N-Quads) or ErrNoDataset (no triple has the identifier as subject).
func Transform(nquads []byte, identifier string, langs []string) (dcat []byte, warnings []Warning, err error) {
	g := rdf.NewMemGraph()
	if err := rdf.ParseRecord(bytes.NewReader(nquads), g.Add); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrParse, err)
	}
	if len(langs) == 0 {
		langs = DefaultLanguages
	}
	m := &mapper{graph: graph{g: g, langs: langs}}
	ds := rdf.IRI(identifier)
	if !m.has(ds) {
		return nil, nil, fmt.Errorf("%w: no triple has <%s> as subject", ErrNoDataset, identifier)
	}
	dcat, err = m.dataset(ds).Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode DCAT-US: %w", err)
	}
	return dcat, m.warnings, nil
}
