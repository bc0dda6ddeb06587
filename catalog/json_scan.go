package catalog

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// jsonScanner reads a JSON document one byte at a time in bounded memory (its buffer, a
// nesting count, and the captures it is asked to keep): it checks the syntax as encoding/json
// does, with the same messages, and reports a syntax error at the byte at fault with its line
// and column, found in the same pass. A value's bytes are kept only into a capture, up to the
// capture's limit: a record larger than the cap is measured, never held.
type jsonScanner struct {
	r         *bufio.Reader
	off       int64 // bytes taken so far
	line      int   // 1-based line of the next byte
	lineStart int64 // offset of the first byte of that line
	depth     int
	caps      []*capture // active captures: every byte taken is appended to each
	key       capture    // of the member names handed to onKey, its buffer reused
}

// maxNesting is encoding/json's limit of nested arrays and objects.
const maxNesting = 10000

// capture keeps the bytes taken while it is active, up to limit; beyond, it keeps nothing (and
// drops what it had) but still counts.
type capture struct {
	limit int
	buf   []byte
	n     int64 // bytes seen
	over  bool  // more than limit were seen: buf is nil
}

func (c *capture) add(b byte) {
	c.n++
	if c.over {
		return
	}
	if len(c.buf) >= c.limit {
		c.over, c.buf = true, nil
		return
	}
	if len(c.buf) == cap(c.buf) {
		c.grow(1)
	}
	c.buf = append(c.buf, b)
}

// addRun is add of every byte of run.
func (c *capture) addRun(run []byte) {
	c.n += int64(len(run))
	if c.over {
		return
	}
	if len(c.buf)+len(run) > c.limit {
		c.over, c.buf = true, nil
		return
	}
	if len(c.buf)+len(run) > cap(c.buf) {
		c.grow(len(run))
	}
	c.buf = append(c.buf, run...)
}

// grow makes room for n more bytes, doubling up to the limit: at most twice the limit is ever
// allocated for one capture.
func (c *capture) grow(n int) {
	size := min(max(2*cap(c.buf), len(c.buf)+n, 512), c.limit)
	c.buf = append(make([]byte, 0, size), c.buf...)
}

func newJSONScanner(r *bufio.Reader) *jsonScanner { return &jsonScanner{r: r, line: 1} }

// errEnd is the cause of a document that ends inside a value.
var errEnd = errors.New("unexpected end of the document")

// take consumes one byte; the end of the document is a *ParseError (errEnd).
func (s *jsonScanner) take() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		return 0, s.readErr(err)
	}
	s.off++
	for _, cp := range s.caps {
		cp.add(c)
	}
	return c, nil
}

func (s *jsonScanner) readErr(err error) error {
	if err == io.EOF {
		return &ParseError{Err: errEnd}
	}
	return err
}

// peek returns the next byte without consuming it; io.EOF at the end of the document.
func (s *jsonScanner) peek() (byte, error) {
	b, err := s.r.Peek(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

// skipSpace consumes white space and returns the next byte, unconsumed.
func (s *jsonScanner) skipSpace() (byte, error) {
	if buf, _ := s.r.Peek(s.r.Buffered()); len(buf) > 0 { // fast path: the buffered run
		i := 0
		for ; i < len(buf); i++ {
			c := buf[i]
			if c == '\n' {
				s.line++
				s.lineStart = s.off + int64(i) + 1
			} else if c != ' ' && c != '\t' && c != '\r' {
				break
			}
		}
		s.consumeRun(buf[:i])
		if i < len(buf) {
			return buf[i], nil
		}
	}
	for {
		c, err := s.peek()
		if err != nil {
			return 0, err
		}
		switch c {
		case ' ', '\t', '\r':
		case '\n':
			s.lineStart = s.off + 1
			s.line++
		default:
			return c, nil
		}
		_, _ = s.r.ReadByte()
		s.off++
		for _, cp := range s.caps {
			cp.add(c)
		}
	}
}

// next skips white space and takes the byte after it.
func (s *jsonScanner) next() (byte, error) {
	if _, err := s.skipSpace(); err != nil {
		return 0, s.readErr(err)
	}
	return s.take()
}

// syntaxError is a *ParseError at the byte just taken, c.
func (s *jsonScanner) syntaxError(c byte, context string) error {
	return s.errorAt(fmt.Errorf("invalid character %s %s", quoteChar(c), context), s.off-1)
}

// errorAt is a *ParseError at the byte at offset off of the current line.
func (s *jsonScanner) errorAt(err error, off int64) error {
	return &ParseError{Line: s.line, Column: int(off-s.lineStart) + 1, Err: err}
}

// quoteChar formats c as encoding/json's messages do.
func quoteChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}

// value scans one JSON value, after white space.
func (s *jsonScanner) value() error {
	c, err := s.next()
	if err != nil {
		return err
	}
	return s.valueFrom(c, nil)
}

// valueFrom scans the value whose first byte c was just taken. onKey, when not nil, is asked
// for each member name of an object value (raw, quotes included; not asked for one longer than
// maxKeyCapture; valid only during the call) for a capture of that member's value (nil for
// none).
func (s *jsonScanner) valueFrom(c byte, onKey func(key []byte) *capture) error {
	switch {
	case c == '{':
		return s.object(onKey)
	case c == '[':
		return s.array()
	case c == '"':
		return s.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number(c)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return s.syntaxError(c, "looking for beginning of value")
}

// nest enters the array or object whose first byte c was just taken.
func (s *jsonScanner) nest(c byte) error {
	s.depth++
	if s.depth > maxNesting {
		return s.syntaxError(c, "exceeded max depth")
	}
	return nil
}

// maxKeyCapture bounds the member names handed to onKey.
const maxKeyCapture = 256

// object scans an object whose '{' was just taken.
func (s *jsonScanner) object(onKey func(key []byte) *capture) error {
	if err := s.nest('{'); err != nil {
		return err
	}
	c, err := s.next()
	if err != nil {
		return err
	}
	if c == '}' {
		s.depth--
		return nil
	}
	for {
		if c != '"' {
			return s.syntaxError(c, "looking for beginning of object key string")
		}
		var key *capture
		if onKey != nil {
			s.key = capture{limit: maxKeyCapture, buf: append(s.key.buf[:0], '"')}
			key = &s.key // not nested: a member's value is scanned with no onKey
			s.caps = append(s.caps, key)
		}
		err := s.str()
		if key != nil {
			s.caps = s.caps[:len(s.caps)-1]
		}
		if err != nil {
			return err
		}
		var member *capture
		if key != nil && !key.over {
			member = onKey(key.buf)
		}
		if c, err = s.next(); err != nil {
			return err
		}
		if c != ':' {
			return s.syntaxError(c, "after object key")
		}
		if err := s.memberValue(member); err != nil {
			return err
		}
		if c, err = s.next(); err != nil {
			return err
		}
		if c == '}' {
			s.depth--
			return nil
		}
		if c != ',' {
			return s.syntaxError(c, "after object key:value pair")
		}
		if c, err = s.next(); err != nil {
			return err
		}
	}
}

// memberValue scans a member's value into cp (when not nil) as well.
func (s *jsonScanner) memberValue(cp *capture) error {
	if cp == nil {
		return s.value()
	}
	c, err := s.next()
	if err != nil {
		return err
	}
	s.caps = append(s.caps, cp)
	cp.add(c)
	err = s.valueFrom(c, nil)
	s.caps = s.caps[:len(s.caps)-1]
	return err
}

// array scans an array whose '[' was just taken.
func (s *jsonScanner) array() error {
	if empty, err := s.openArray(); err != nil || empty {
		return err
	}
	for {
		if err := s.value(); err != nil {
			return err
		}
		if end, err := s.afterElement(); err != nil || end {
			return err
		}
	}
}

// openArray nests into an array whose '[' was just taken; an empty array is scanned whole
// (empty true, its nesting left).
func (s *jsonScanner) openArray() (empty bool, err error) {
	if err := s.nest('['); err != nil {
		return false, err
	}
	c, err := s.skipSpace()
	if err != nil {
		return false, s.readErr(err)
	}
	if c != ']' {
		return false, nil
	}
	_, _ = s.take()
	s.depth--
	return true, nil
}

// afterElement reads what follows an array element: ']' ends the array (end true, its
// nesting left), ',' comes before another element, anything else is a syntax error.
func (s *jsonScanner) afterElement() (end bool, err error) {
	c, err := s.next()
	if err != nil {
		return false, err
	}
	if c == ']' {
		s.depth--
		return true, nil
	}
	if c != ',' {
		return false, s.syntaxError(c, "after array element")
	}
	return false, nil
}

// consumeRun consumes run, the next bytes of the reader's buffer.
func (s *jsonScanner) consumeRun(run []byte) {
	if len(run) == 0 {
		return
	}
	for _, cp := range s.caps {
		cp.addRun(run)
	}
	s.off += int64(len(run))
	_, _ = s.r.Discard(len(run))
}

// str scans a string whose opening quote was just taken.
func (s *jsonScanner) str() error {
	for {
		if buf, _ := s.r.Peek(s.r.Buffered()); len(buf) > 0 { // fast path: plain characters
			i := 0
			for i < len(buf) && buf[i] != '"' && buf[i] != '\\' && buf[i] >= 0x20 {
				i++
			}
			s.consumeRun(buf[:i])
		}
		c, err := s.take()
		if err != nil {
			return err
		}
		switch {
		case c == '"':
			return nil
		case c == '\\':
			if c, err = s.take(); err != nil {
				return err
			}
			switch c {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for range 4 {
					if c, err = s.take(); err != nil {
						return err
					}
					if !isHex(c) {
						return s.syntaxError(c, `in \u hexadecimal character escape`)
					}
				}
			default:
				return s.syntaxError(c, "in string escape code")
			}
		case c < 0x20:
			return s.syntaxError(c, "in string literal")
		}
	}
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans a number whose first byte c was just taken; the byte after it is not taken.
func (s *jsonScanner) number(c byte) error {
	var err error
	if c == '-' {
		if c, err = s.take(); err != nil {
			return err
		}
		if !isDigit(c) {
			return s.syntaxError(c, "in numeric literal")
		}
	}
	if c != '0' {
		if err := s.digits(); err != nil {
			return err
		}
	}
	if p, err := s.peek(); err == nil && p == '.' {
		_, _ = s.take()
		if c, err = s.take(); err != nil {
			return err
		}
		if !isDigit(c) {
			return s.syntaxError(c, "after decimal point in numeric literal")
		}
		if err := s.digits(); err != nil {
			return err
		}
	}
	if p, err := s.peek(); err == nil && (p == 'e' || p == 'E') {
		_, _ = s.take()
		if c, err = s.take(); err != nil {
			return err
		}
		if c == '+' || c == '-' {
			if c, err = s.take(); err != nil {
				return err
			}
		}
		if !isDigit(c) {
			return s.syntaxError(c, "in exponent of numeric literal")
		}
		return s.digits()
	}
	return nil
}

// digits takes the decimal digits that follow.
func (s *jsonScanner) digits() error {
	for {
		p, err := s.peek()
		if err != nil || !isDigit(p) {
			return nil
		}
		_, _ = s.take()
	}
}

// literal scans true, false or null, whose first byte was just taken.
func (s *jsonScanner) literal(word string) error {
	for i := 1; i < len(word); i++ {
		c, err := s.take()
		if err != nil {
			return err
		}
		if c != word[i] {
			return s.syntaxError(c, fmt.Sprintf("in literal %s (expecting %s)", word, quoteChar(word[i])))
		}
	}
	return nil
}
