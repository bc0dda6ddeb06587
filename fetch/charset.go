package fetch

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// ToUTF8 returns a downloaded JSON document as UTF-8, which JSON text must be (RFC 8259 §8.1):
// a document that starts with a UTF-16 byte order mark, or that is not valid UTF-8 and whose
// Content-Type declares another charset (e.g. windows-1252), is transcoded into a new temporary
// file positioned at its start (with no name on disk, as a download: spool), and doc's file
// closed; otherwise doc's own file is returned, at its start. A declared charset is ignored when the bytes are valid UTF-8 (servers often
// mislabel UTF-8 as ISO-8859-1). An unknown declared charset is an error, and so is a
// converted document over maxBytes (wrapping ErrTooLarge). XML should not come here: its own
// encoding declaration governs.
func ToUTF8(doc *Document, maxBytes int64) (*os.File, error) {
	enc, err := documentEncoding(doc)
	if err != nil || enc == nil {
		return doc.File, err
	}
	out, err := spool("harvester-utf8-*")
	if err != nil {
		return nil, err
	}
	n, err := io.Copy(out, io.LimitReader(transform.NewReader(doc.File, enc.NewDecoder()), maxBytes+1))
	if err == nil && n > maxBytes {
		err = fmt.Errorf("%w of %d bytes (after conversion to UTF-8)", ErrTooLarge, maxBytes)
	}
	if err == nil {
		_, err = out.Seek(0, io.SeekStart)
	}
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("convert the document to UTF-8: %w", err)
	}
	doc.Close()
	return out, nil
}

// documentEncoding returns the encoding to convert doc from, or nil when it is UTF-8 already;
// doc's file is left at its start.
func documentEncoding(doc *Document) (encoding.Encoding, error) {
	f := doc.File
	defer f.Seek(0, io.SeekStart)
	head := make([]byte, 2)
	if n, _ := io.ReadFull(f, head); n == 2 && (bytes.Equal(head, []byte{0xFE, 0xFF}) || bytes.Equal(head, []byte{0xFF, 0xFE})) {
		return unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), nil
	}
	_, params, err := mime.ParseMediaType(doc.ContentType)
	label := strings.ToLower(strings.TrimSpace(params["charset"]))
	if err != nil || label == "" || label == "utf-8" || label == "utf8" || label == "us-ascii" {
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	if validUTF8(f) {
		return nil, nil
	}
	enc, err := htmlindex.Get(label)
	if err != nil {
		return nil, fmt.Errorf("the server declares charset %q (Content-Type %q), which is not a known character encoding", label, doc.ContentType)
	}
	return enc, nil
}

// validUTF8 reports whether r's bytes are UTF-8, reading them in chunks.
func validUTF8(r io.Reader) bool {
	br := bufio.NewReaderSize(r, 64<<10)
	var carry []byte
	buf := make([]byte, 64<<10)
	for {
		n, err := br.Read(buf)
		chunk := append(carry, buf[:n]...)
		// Keep an incomplete last character for the next chunk (at most 3 bytes).
		cut := len(chunk)
		for i := len(chunk) - 1; i >= 0 && i >= len(chunk)-3; i-- {
			if utf8.RuneStart(chunk[i]) {
				if !utf8.FullRune(chunk[i:]) {
					cut = i
				}
				break
			}
		}
		if !utf8.Valid(chunk[:cut]) {
			return false
		}
		carry = append([]byte(nil), chunk[cut:]...)
		if err != nil {
			return len(carry) == 0 || utf8.Valid(carry)
		}
	}
}
