package iso

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// node is one element of the parsed document: its namespace URI (prefixes resolved), local
// name, attributes, child elements and character data.
type node struct {
	space, local string
	attrs        []xml.Attr
	children     []*node
	text         strings.Builder
}

// attr returns the value of the attribute with the given local name (any namespace).
func (n *node) attr(local string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

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
	enc := "utf-8"
	if m := encodingDecl.FindSubmatch(doc[:min(len(doc), 200)]); m != nil {
		enc = strings.ToLower(string(m[1]))
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
	return nil, 0, fmt.Errorf("%w: unsupported declared encoding %q", ErrEncoding, enc)
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

// parse builds the element tree. encoding/xml never fetches DTDs or external entities and
// expands only the five predefined entities (Strict mode rejects any other), so a DOCTYPE is
// ignored.
func parse(doc []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	// The document is already UTF-8 (toUTF8); the declaration still names its original encoding.
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var root *node
	var stack []*node
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed(doc, d.InputOffset(), err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{space: t.Name.Space, local: t.Name.Local, attrs: t.Attr}
			if len(stack) == 0 {
				if root != nil {
					return nil, malformed(doc, d.InputOffset(), errors.New("more than one root element"))
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: no root element", ErrMalformedXML)
	}
	return root, nil
}

// malformed wraps a decoder error with the line and column of offset.
func malformed(doc []byte, offset int64, err error) error {
	var se *xml.SyntaxError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Msg
	}
	off := min(int(offset), len(doc))
	line := 1 + bytes.Count(doc[:off], []byte("\n"))
	col := 1 + utf8.RuneCount(doc[bytes.LastIndexByte(doc[:off], '\n')+1:off])
	return fmt.Errorf("%w: line %d, column %d: %s", ErrMalformedXML, line, col, msg)
}
