package dublincore

import "errors"

// Error kinds returned by Transform, always wrapped with detail; test them with errors.Is. A
// document whose bytes are invalid in its declared encoding gives iso.ErrEncoding (the ISO
// mapper's decoding rules are shared).
var (
	// ErrNotDublinCore means the document is well-formed XML but its root element is not a CSW
	// Dublin Core record (csw:Record, csw:SummaryRecord or csw:BriefRecord of CSW 2.0.2 or 3.0).
	// The message names the root found.
	ErrNotDublinCore = errors.New("not a CSW Dublin Core record")
	// ErrMalformedXML means the document is not well-formed XML (truncated, bad syntax, an
	// undefined entity, elements nested deeper than MaxDepth…), with the line and column when known.
	ErrMalformedXML = errors.New("malformed XML")
)
