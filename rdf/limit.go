package rdf

import (
	"bytes"
	"errors"
	"io"
	"unicode/utf8"
)

// errOverCap is capReader's read error once its allowance is spent.
var errOverCap = errors.New("over the cap")

// capReader is the reader under a decoder that reads ahead (encoding/json, encoding/xml): it
// delivers at most allow bytes in all, then fails with errOverCap, so that one token or value
// larger than the cap stops the decoder once about the cap is buffered, not after it was read
// whole. The parser moves allow on before each token (arm). It also keeps the line count and
// the last window bytes delivered, to turn a byte offset into a line and column.
type capReader struct {
	r     io.Reader
	n     int64 // bytes delivered
	allow int64 // n may not pass it
	lines int   // newlines before win
	cols  int   // characters between the last newline before win and win
	win   []byte
	mark  int64 // win keeps the bytes from this offset on, for an error's position (-1: none)
}

// capWindow is how many of the last bytes read capReader keeps for positions.
const capWindow = 1 << 20

func newCapReader(r io.Reader) *capReader { return &capReader{r: r, allow: -1, mark: -1} }

// arm lets the reader deliver up to limit bytes more than it has delivered so far (none for a
// negative limit). Before the first arm, it has no limit.
func (c *capReader) arm(limit int64) {
	c.allow = c.n + max(limit, 0)
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.allow >= 0 {
		if c.n >= c.allow {
			return 0, errOverCap
		}
		p = p[:min(int64(len(p)), c.allow-c.n)]
	}
	k, err := c.r.Read(p)
	c.n += int64(k)
	c.keep(p[:k])
	return k, err
}

// keep adds b to the window, dropping (and counting the lines of) what falls out of it. The
// window holds capWindow to 2×capWindow bytes, more when mark is further back.
func (c *capReader) keep(b []byte) {
	c.win = append(c.win, b...)
	if len(c.win) >= 2*capWindow { // drop the older half at once, not a few bytes each read
		over := len(c.win) - capWindow
		if c.mark >= 0 { // but not the marked value's start: at most what the cap lets be read
			over = min(over, int(c.mark-(c.n-int64(len(c.win)))))
		}
		if over < capWindow { // drop in large steps only: each drop copies the window
			return
		}
		dropped := c.win[:over]
		c.lines += bytes.Count(dropped, []byte("\n"))
		if nl := bytes.LastIndexByte(dropped, '\n'); nl >= 0 {
			c.cols = utf8.RuneCount(dropped[nl+1:])
		} else {
			c.cols += utf8.RuneCount(dropped)
		}
		c.win = c.win[:copy(c.win, c.win[over:])]
	}
}

// lineCol turns a byte offset into a 1-based line and column (in characters), or 0, 0 when
// the offset is no longer in the window.
func (c *capReader) lineCol(off int64) (int, int) {
	start := c.n - int64(len(c.win))
	if off < start {
		return 0, 0
	}
	if off > c.n {
		off = c.n
	}
	w := c.win[:off-start]
	line := c.lines + 1 + bytes.Count(w, []byte("\n"))
	nl := bytes.LastIndexByte(w, '\n')
	if nl < 0 {
		return line, 1 + c.cols + utf8.RuneCount(w)
	}
	return line, 1 + utf8.RuneCount(w[nl+1:])
}
