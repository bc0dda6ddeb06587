package rdf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// runeReader reads UTF-8 runes with arbitrary lookahead and tracks the 1-based line and
// column (in characters) of the next rune. It holds only the lookahead in memory.
type runeReader struct {
	r      *bufio.Reader
	ahead  []rune // peeked runes; ahead[head:] are not yet consumed
	head   int
	err    error // the read error after ahead is drained (io.EOF at the end)
	line   int
	col    int
	format Format
}

const eof rune = -1

func newRuneReader(r io.Reader, f Format) *runeReader {
	rr := &runeReader{r: bufio.NewReaderSize(r, 64<<10), line: 1, col: 1, format: f}
	if rr.peek() == '\uFEFF' { // a byte-order mark is not content
		rr.head++
	}
	return rr
}

// fill makes sure at least n runes are in ahead, unless the input ends first.
func (rr *runeReader) fill(n int) {
	if rr.head > 0 && (rr.head == len(rr.ahead) || rr.head >= 4096) {
		// Drop what was consumed, so that steady lookahead does not grow the buffer.
		rr.ahead, rr.head = rr.ahead[:copy(rr.ahead, rr.ahead[rr.head:])], 0
	}
	for len(rr.ahead)-rr.head < n && rr.err == nil {
		c, size, err := rr.r.ReadRune()
		if err != nil {
			rr.err = err
			return
		}
		if c == utf8.RuneError && size == 1 {
			rr.err = errInvalidUTF8
			return
		}
		rr.ahead = append(rr.ahead, c)
	}
}

var errInvalidUTF8 = errors.New("invalid UTF-8")

// peekAt returns the rune k places ahead (0 is the next one), or eof.
func (rr *runeReader) peekAt(k int) rune {
	if rr.head+k < len(rr.ahead) {
		return rr.ahead[rr.head+k]
	}
	rr.fill(k + 1)
	if rr.head+k < len(rr.ahead) {
		return rr.ahead[rr.head+k]
	}
	return eof
}

func (rr *runeReader) peek() rune { return rr.peekAt(0) }

// next consumes and returns the next rune, or eof.
func (rr *runeReader) next() rune {
	c := rr.peek()
	if c == eof {
		return eof
	}
	rr.head++
	if c == '\n' {
		rr.line++
		rr.col = 1
	} else {
		rr.col++
	}
	return c
}

// pos is a position in the input.
type pos struct{ line, col int }

func (rr *runeReader) pos() pos { return pos{rr.line, rr.col} }

// errorAt returns a *SyntaxError at p. At the end of the input it reports a read error
// (other than io.EOF) or invalid UTF-8 instead, since that is the real cause.
func (rr *runeReader) errorAt(p pos, format string, args ...any) error {
	if rr.head == len(rr.ahead) && rr.err != nil && !errors.Is(rr.err, io.EOF) {
		if errors.Is(rr.err, errInvalidUTF8) {
			return &SyntaxError{Format: rr.format, Line: rr.line, Col: rr.col, Msg: "invalid UTF-8"}
		}
		return fmt.Errorf("rdf: reading %s: %w", rr.format, rr.err)
	}
	return &SyntaxError{Format: rr.format, Line: p.line, Col: p.col, Msg: fmt.Sprintf(format, args...)}
}

// describe names a rune for an error message.
func describe(c rune) string {
	switch {
	case c == eof:
		return "end of input"
	case c == ' ':
		return "space"
	case c == '\t':
		return "tab"
	case c == '\n':
		return "newline"
	case c == '\r':
		return "carriage return"
	case c < 0x20 || c == 0x7f:
		return fmt.Sprintf("U+%04X", c)
	}
	return fmt.Sprintf("%q", c)
}

// endErr is the error at the end of the input: nil after a clean end, else the read error or
// invalid UTF-8.
func (rr *runeReader) endErr() error {
	if rr.err == nil || errors.Is(rr.err, io.EOF) {
		return nil
	}
	return rr.errorAt(rr.pos(), "")
}
