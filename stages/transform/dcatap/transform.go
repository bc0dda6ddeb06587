// Package dcatap transforms one DCAT-AP record graph (a dcat:Dataset and the resources it
// points at, as EXTRACT splits and skolemizes it) into a DCAT-US 1.1 dataset object, the JSON
// SYNC writes to the dataset table and the search index. The mapping, field by field, is in
// the README ("DCAT-AP → DCAT-US mapping"). It reads DCAT-AP 2.1.1 and 3.0.0 and DCAT-AP-NO
// 2.0 terms (DCAT 2/3, Dublin Core, vCard, FOAF, SKOS, LOCN, W3C Time, schema.org dates).
package dcatap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/rdf"
)

// Warning is a non-fatal note about a lossy choice in a transformed record (an unparseable
// date dropped, one contact point kept of several…). Field is the DCAT-US field concerned,
// e.g. "issued" or "distribution[0].mediaType". Picking one language of several is not a
// warning.
type Warning struct {
	Field, Message string
}

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

// dataset is the DCAT-US 1.1 dataset object Transform writes; the field order is the JSON key
// order (as package iso writes it).
type dataset struct {
	Type               string         `json:"@type"`
	Title              string         `json:"title,omitempty"`
	Description        string         `json:"description,omitempty"`
	Keyword            []string       `json:"keyword,omitempty"`
	Modified           string         `json:"modified,omitempty"`
	Publisher          *organization  `json:"publisher,omitempty"`
	ContactPoint       *contact       `json:"contactPoint,omitempty"`
	Identifier         string         `json:"identifier"`
	AccessLevel        string         `json:"accessLevel"`
	Distribution       []distribution `json:"distribution,omitempty"`
	License            string         `json:"license,omitempty"`
	Rights             string         `json:"rights,omitempty"`
	Spatial            string         `json:"spatial,omitempty"`
	Temporal           string         `json:"temporal,omitempty"`
	Issued             string         `json:"issued,omitempty"`
	AccrualPeriodicity string         `json:"accrualPeriodicity,omitempty"`
	Language           []string       `json:"language,omitempty"`
	Theme              []string       `json:"theme,omitempty"`
	LandingPage        string         `json:"landingPage,omitempty"`
	References         []string       `json:"references,omitempty"`
	IsPartOf           string         `json:"isPartOf,omitempty"`
}

type organization struct {
	Type string `json:"@type"`
	Name string `json:"name"`
}

type contact struct {
	Type     string `json:"@type"`
	FN       string `json:"fn,omitempty"`
	HasEmail string `json:"hasEmail,omitempty"`
}

type distribution struct {
	Type        string `json:"@type"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	AccessURL   string `json:"accessURL,omitempty"`
	DownloadURL string `json:"downloadURL,omitempty"`
	MediaType   string `json:"mediaType,omitempty"`
	Format      string `json:"format,omitempty"`
}

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
func Transform(nquads []byte, identifier string, langs []string) (dcatus []byte, warnings []Warning, err error) {
	g := rdf.NewMemGraph()
	if err := rdf.Parse(bytes.NewReader(nquads), rdf.NQuads, "", g.Add); err != nil {
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
	out := m.dataset(ds)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, nil, fmt.Errorf("encode DCAT-US: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), m.warnings, nil
}
