package iso

import "errors"

// Error kinds returned by Transform, always wrapped with detail; test them with errors.Is.
var (
	// ErrNotISO19115 means the document is well-formed XML but not an ISO 19115 metadata record:
	// FGDC CSDGM (`metadata`), an ISO 19110 feature catalogue (`gfc:FC_FeatureCatalogue`) or any
	// other root element. The message names the standard found (FGDC: package fgdc maps it; the
	// others are not supported yet).
	ErrNotISO19115 = errors.New("not an ISO 19115 metadata record")
	// ErrMalformedXML means the document is not well-formed XML (truncated, bad syntax, undefined
	// entity…). The message gives the line and column when known.
	ErrMalformedXML = errors.New("malformed XML")
	// ErrLimit means the document nests elements more than MaxDepth deep or holds more than
	// MaxElements elements (a record no real ISO 19115 document comes near).
	ErrLimit = errors.New("XML record over the reader's limits")
	// ErrEncoding means the bytes are not valid in the encoding the document declares (UTF-8
	// when it declares none), or the declared encoding is unknown. The message gives the byte
	// offset of the first bad byte in the input as given.
	ErrEncoding = errors.New("invalid character encoding")
	// ErrInvalidISO means the document is an ISO 19115-1/-2 (ISO 19139 gmd/gmi) record that
	// breaks a structural rule of ISO 19139, as Data.gov's MDTranslator reader or an XSD check
	// would reject it: an element of the gmd/gmi namespace that is not a property of
	// MD_Metadata/MI_Metadata, or a required property (gmd:role, the gmd:date and gmd:dateType
	// of a CI_Date…) that is missing, or empty without a gco:nilReason. The message lists the
	// element paths and the rule each breaks (the first ten problems, then a count of the rest).
	ErrInvalidISO = errors.New("invalid ISO 19139 record")
)
