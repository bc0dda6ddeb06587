package extract

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"

	"golang.org/x/text/encoding/unicode"
)

// errXMLEncoding marks an XML record whose bytes cannot be stored or read as text: the reason
// of an InvalidEncoding error row.
var errXMLEncoding = errors.New("invalid character encoding")

var (
	utf32BOMs = [][]byte{{0x00, 0x00, 0xFE, 0xFF}, {0xFF, 0xFE, 0x00, 0x00}}
	// utf16Starts are "<" as the first UTF-16 code unit of a document with no byte order
	// mark (XML 1.0 appendix F), big- and little-endian.
	utf16BE, utf16LE = []byte{0x00, '<'}, []byte{'<', 0x00}
	xmlDeclEncoding  = regexp.MustCompile(`^(<\?xml[^>]*?encoding\s*=\s*["'])([A-Za-z0-9._:-]+)(["'])`)
)

// xmlRecordUTF8 returns an XML record's bytes as they can be stored (Postgres text holds
// neither U+0000 nor UTF-16) and read by TRANSFORM: a UTF-16 document — with a byte order mark
// (FF FE, FE FF), or without one but starting with "<" as a two-byte unit, as ArcCatalog and
// other Windows tools write them — decoded to UTF-8, its XML declaration's encoding made
// "UTF-8" to match (UTF-16 code units that are not valid become U+FFFD); any other document
// as it is (its declared 8-bit encoding is TRANSFORM's to read). It returns an error wrapping
// errXMLEncoding for a UTF-32 document (byte order mark 00 00 FE FF or FF FE 00 00) and for
// one holding U+0000, which XML 1.0 does not allow in a document.
func xmlRecordUTF8(body []byte) ([]byte, error) {
	for _, bom := range utf32BOMs {
		if bytes.HasPrefix(body, bom) {
			return nil, fmt.Errorf("%w: the document is UTF-32 (byte order mark % X); XML records are read in "+
				"UTF-8, UTF-16, ISO-8859-1, Windows-1252 or ASCII: save it as UTF-8", errXMLEncoding, bom)
		}
	}
	order, utf16 := unicode.LittleEndian, true
	switch {
	case bytes.HasPrefix(body, []byte{0xFE, 0xFF}), bytes.HasPrefix(body, utf16BE):
		order = unicode.BigEndian
	case bytes.HasPrefix(body, []byte{0xFF, 0xFE}), bytes.HasPrefix(body, utf16LE):
	default:
		utf16 = false
	}
	where := "byte offset"
	if utf16 {
		out, err := unicode.UTF16(order, unicode.UseBOM).NewDecoder().Bytes(body)
		if err != nil {
			return nil, fmt.Errorf("%w: the document looks like UTF-16 but cannot be decoded: %v", errXMLEncoding, err)
		}
		body = xmlDeclEncoding.ReplaceAll(out, []byte("${1}UTF-8${3}"))
		where = "byte offset (of the document decoded from UTF-16 to UTF-8)"
	}
	if i := bytes.IndexByte(body, 0); i >= 0 {
		hint := ""
		if bytes.Count(body, []byte{0}) > len(body)/4 {
			hint = " (so many NUL bytes: the document may be UTF-16 or UTF-32 without a byte order mark; save it as UTF-8)"
		}
		return nil, fmt.Errorf("%w: %s %d is U+0000 (NUL), which XML does not allow in a document%s", errXMLEncoding, where, i, hint)
	}
	return body, nil
}
