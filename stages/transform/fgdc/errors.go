package fgdc

import (
	"errors"

	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// Error kinds returned by Transform, always wrapped with detail; test them with errors.Is.
var (
	// ErrNotFGDC means the document is well-formed XML but its root element is not CSDGM's
	// <metadata> (without a namespace), or it is Esri's ArcGIS metadata format (also rooted at
	// <metadata>, with dataIdInfo in place of idinfo). The message names what was found.
	ErrNotFGDC = errors.New("not an FGDC CSDGM metadata record")
	// ErrInvalidFGDC means the record lacks what DCAT-US cannot do without and no placeholder
	// may stand for: the title (idinfo/citation/citeinfo/title). The message names the
	// element path.
	ErrInvalidFGDC = errors.New("invalid FGDC CSDGM record")
	// ErrLimit means the document is larger in structure than this reader takes: elements
	// nested more than MaxDepth deep, or more than MaxElements elements.
	ErrLimit = errors.New("FGDC record over the reader's limits")
	// ErrMalformedXML means the document is not well-formed XML (truncated, bad syntax, an
	// entity other than XML's five predefined ones…), with the line and column. It is the iso
	// package's sentinel: every XML mapper reports malformed XML alike.
	ErrMalformedXML = iso.ErrMalformedXML
	// ErrEncoding means the bytes are not valid in the encoding the document declares (UTF-8
	// when it declares none), or the declared encoding is unknown (iso.ToUTF8's rules).
	ErrEncoding = iso.ErrEncoding
)
