package iso

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/stages/transform/xmltree"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

// node is one element of the parsed document (xmltree.Parse: namespace URIs resolved, so
// matching is on URIs, never on prefixes).
type node = xmltree.Node

var encodingDecl = regexp.MustCompile(`^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']`)

// toUTF8 trims a UTF-8 BOM and leading whitespace (a real WAF file has a space before its XML
// declaration), then returns the document as UTF-8 according to its declared encoding, and
// the number of bytes trimmed (to report offsets into the input as given).
func toUTF8(b []byte) ([]byte, int, error) {
	start := 0
	if bytes.HasPrefix(b, []byte("\xEF\xBB\xBF")) {
		start = 3
	}
	for start < len(b) && (b[start] == ' ' || b[start] == '\t' || b[start] == '\r' || b[start] == '\n') {
		start++
	}
	doc := b[start:]
	if out, ok := fromUTF16(doc); ok {
		if out == nil {
			return nil, 0, fmt.Errorf("%w: the document starts with a UTF-16 byte order mark but does not decode as UTF-16", ErrEncoding)
		}
		d, _, err := toUTF8(utf16Declared.ReplaceAll(out, []byte("$1"))) // it is UTF-8 now
		return d, start, err
	}
	enc := declaredEncoding(doc)
	if mislabeledUTF8(enc, doc) {
		return doc, start, nil // CharsetWarning says so
	}
	switch enc {
	case "utf-8", "utf8":
		if i := invalidUTF8(doc); i >= 0 {
			return nil, 0, fmt.Errorf("%w: byte 0x%02X at offset %d is not valid UTF-8 (the document declares %s)", ErrEncoding, doc[i], start+i, declared(enc))
		}
		return doc, start, nil
	case "ascii", "us-ascii", "ansi_x3.4-1968", "iso646-us":
		for i, c := range doc {
			if c >= 0x80 {
				return nil, 0, fmt.Errorf("%w: byte 0x%02X at offset %d is not ASCII (the document declares encoding %q)", ErrEncoding, c, start+i, enc)
			}
		}
		return doc, start, nil
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso_8859-1":
		out, err := charmap.ISO8859_1.NewDecoder().Bytes(doc)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %v", ErrEncoding, err)
		}
		return out, start, nil
	case "windows-1252", "cp1252":
		for i, c := range doc {
			if charmap.Windows1252.DecodeByte(c) == utf8.RuneError {
				return nil, 0, fmt.Errorf("%w: byte 0x%02X at offset %d is not defined in windows-1252", ErrEncoding, c, start+i)
			}
		}
		out, err := charmap.Windows1252.NewDecoder().Bytes(doc)
		if err != nil {
			return nil, 0, fmt.Errorf("%w: %v", ErrEncoding, err)
		}
		return out, start, nil
	}
	if strings.HasPrefix(enc, "utf-16") || strings.HasPrefix(enc, "utf-32") || enc == "ucs-2" {
		return nil, 0, fmt.Errorf("%w: the document declares encoding %q, but its bytes are not UTF-16 "+
			"(no byte order mark, one byte per character): save it as UTF-8, or declare the encoding it is in", ErrEncoding, enc)
	}
	return nil, 0, fmt.Errorf("%w: unsupported declared encoding %q", ErrEncoding, enc)
}

// declaredEncoding is the lower-cased encoding of doc's XML declaration, "utf-8" when none.
func declaredEncoding(doc []byte) string {
	if m := encodingDecl.FindSubmatch(doc[:min(len(doc), 200)]); m != nil {
		return strings.ToLower(string(m[1]))
	}
	return "utf-8"
}

// mislabeledUTF8 reports whether doc declares ISO-8859-1 or Windows-1252 but its bytes are
// UTF-8 with at least one multi-byte sequence: decoded as declared, "é" (C3 A9) would become
// "Ã©", and "’" (E2 80 99) "â" and two C1 control characters. Real Latin-1 text is almost
// never valid multi-byte UTF-8 throughout, so such a document is read as UTF-8.
func mislabeledUTF8(enc string, doc []byte) bool {
	switch enc {
	case "iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "iso_8859-1", "windows-1252", "cp1252":
		return invalidUTF8(doc) < 0 && !isASCII(doc)
	}
	return false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// CharsetWarning returns the warning a mapper gives for an XML document ToUTF8 read in
// another encoding than the one it declares (see mislabeledUTF8), or "" when there is none.
func CharsetWarning(b []byte) string {
	doc := bytes.TrimLeft(bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF")), " \t\r\n")
	if enc := declaredEncoding(doc); mislabeledUTF8(enc, doc) {
		return fmt.Sprintf("the document declares encoding %q, but its bytes are UTF-8 (its non-ASCII "+
			"characters are multi-byte UTF-8 sequences); read as UTF-8, as decoding it as declared would "+
			"garble them (\"é\" as \"Ã©\"): correct the XML declaration", enc)
	}
	return ""
}

var (
	utf16BOMs     = [][]byte{{0xFE, 0xFF}, {0xFF, 0xFE}}
	utf16Declared = regexp.MustCompile(`^(<\?xml[^>]*?)\sencoding\s*=\s*["'](?i:utf-16[a-z]*|ucs-2)["']`)
)

// fromUTF16 decodes a document that starts with a UTF-16 byte order mark to UTF-8 (ok is
// true; out is nil when it does not decode). Harvested records are decoded
// by EXTRACT already; this serves a record given to Transform as it was written.
func fromUTF16(doc []byte) (out []byte, ok bool) {
	for _, bom := range utf16BOMs {
		if bytes.HasPrefix(doc, bom) {
			out, err := unicode.UTF16(unicode.BigEndian, unicode.UseBOM).NewDecoder().Bytes(doc)
			if err != nil {
				return nil, true
			}
			return out, true
		}
	}
	return nil, false
}

func declared(enc string) string {
	return fmt.Sprintf("encoding %q or none", enc)
}

// invalidUTF8 returns the offset of the first byte that does not start a valid UTF-8
// sequence, or -1.
func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// Limits of the reader, the FGDC reader's: a real ISO 19115-2 record nests about 30 elements
// deep and holds some thousands; a record past them is an ErrLimit error, never a deep walk.
const (
	// MaxDepth is how deeply elements may nest.
	MaxDepth = 256
	// MaxElements is how many elements a record may hold.
	MaxElements = 1_000_000
)

// parse builds the element tree (xmltree.Parse: a DOCTYPE is ignored, no DTD or external
// entity fetched, no entity beyond XML's five expanded), within MaxDepth and MaxElements.
func parse(doc []byte) (*node, error) {
	root, err := xmltree.Parse(doc, xmltree.Limits{MaxDepth: MaxDepth, MaxElements: MaxElements})
	return root, xmltree.Rewrap(err, ErrMalformedXML, ErrLimit)
}
