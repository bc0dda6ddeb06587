package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxRecordDepth is how deeply the values of one dataset may nest (the dataset object is level
// 1). A deeper dataset is one error row (NestedTooDeep) instead of a document encoding/json
// refuses whole ("exceeded max depth", at 10,000 levels): a real DCAT-US record nests a few
// levels (GeoJSON coordinates under ten), and SQLite's JSON functions stop at 1,000.
const MaxRecordDepth = 512

// StructureError is a dataset that is JSON but that readers would not agree on, or that the
// stages could not hold: an object that repeats a key (encoding/json takes the last member,
// SQLite's JSON functions the first, so the identifier and the stored record could disagree),
// or values nested deeper than MaxRecordDepth.
type StructureError struct {
	Type string // the error row's type: DuplicateKey or NestedTooDeep
	Key  string // DuplicateKey: the repeated key, decoded
	Path string // the JSON path of the repeated member, or of the value that opens too deep
	More int    // DuplicateKey: further repeated keys in the dataset
}

func (e *StructureError) Error() string {
	if e.Type == "NestedTooDeep" {
		return fmt.Sprintf("nests deeper than %d levels (at %s); it is not read further", MaxRecordDepth, e.Path)
	}
	more := ""
	if e.More > 0 {
		more = fmt.Sprintf(" (and %d more repeated keys)", e.More)
	}
	return fmt.Sprintf("repeats key %q at %s%s; JSON readers disagree on which member counts, so neither is trusted",
		e.Key, e.Path, more)
}

// shapeGuard is the reader between a catalog document and its json.Decoder. It follows the
// JSON structure byte by byte (strings, escapes, nesting, object keys) and notes, per element
// of the document's arrays at level 2 (the datasets), the first StructureError. A value that
// would open deeper than MaxRecordDepth levels into a dataset is replaced by the number 0 (one
// byte for its opening bracket) and the rest of it is dropped, so the decoder never sees it and
// the walk goes on with the next dataset. Offsets are those of the guard's output, which are
// the decoder's (InputOffset). On bytes that are not JSON it only stays out of the way: the
// decoder reports the syntax error.
type shapeGuard struct {
	r         io.Reader
	trackKeys bool // look for repeated keys (WalkEntries); Check needs only the depth guard

	out      int64 // bytes emitted so far
	inString bool
	escape   bool
	inKey    bool // the string being read is an object key
	keyStart int64
	key      []byte // the key's bytes as written, quotes excluded
	stack    []frame
	skip     int   // > 0: inside a value opened too deep, its nesting
	record   int64 // output offset of the dataset being read, -1 when none
	problems []shapeProblem
	// v3 guards a DCAT-US 3.0 catalog, whose records are the objects in the record arrays of
	// the catalog and of its nested catalogs (recordStart); level is the nesting of the record
	// being read (recordLevel for a DCAT-US 1.1 catalog), 0 between records.
	v3    bool
	level int
	// names interns the member names read (as written, escapes and all), up to
	// maxInternedNames of at most maxInternedName bytes: a catalog's records repeat a few dozen.
	names map[string]string
}

// The bounds of shapeGuard.names.
const (
	maxInternedNames = 1024
	maxInternedName  = 64
)

// frame is one open object or array.
type frame struct {
	object  bool
	wantKey bool   // an object's next string is a key
	key     string // an object's current member
	index   int    // an array's current element
	keys    map[string]struct{}
}

// shapeProblem is the StructureError of the dataset that starts at offset record.
type shapeProblem struct {
	record int64
	err    StructureError
}

// recordLevel is the document nesting of a dataset object: inside the catalog object and its
// "dataset" array.
const recordLevel = 3

func newShapeGuard(r io.Reader, trackKeys bool) *shapeGuard {
	return &shapeGuard{r: r, trackKeys: trackKeys, record: -1, level: recordLevel}
}

// recordStart reports whether a value opening now, in a DCAT-US 3.0 catalog, is a record: an
// element of a "dataset", "service", "record" or "datasetSeries" array of an object that is
// the document or an element of a "catalog" array of one.
func (g *shapeGuard) recordStart() bool {
	n := len(g.stack)
	if n < 2 || n%2 != 0 || g.stack[n-1].object || !g.stack[n-2].object {
		return false
	}
	switch g.stack[n-2].key {
	case "dataset", "service", "record", "datasetSeries":
	default:
		return false
	}
	for i := n - 3; i > 0; i -= 2 { // the catalogs around it: an object in a "catalog" array
		if g.stack[i].object || !g.stack[i-1].object || g.stack[i-1].key != "catalog" {
			return false
		}
	}
	return true
}

// Read implements io.Reader. It emits at most the bytes it read (a dropped value emits nothing
// but its replacement), and keeps reading while everything read was dropped.
func (g *shapeGuard) Read(p []byte) (int, error) {
	for {
		n, err := g.r.Read(p)
		w := 0
		for i := 0; i < n; i++ {
			if g.inString && !g.escape && g.skip == 0 {
				// Inside a string, the bytes up to its closing quote or its next escape change
				// nothing but the key being read, and are all kept: found with two vectorized
				// searches instead of one step a byte.
				run := stringRun(p[i:n])
				if g.inKey {
					g.key = append(g.key, p[i:i+run]...)
				}
				if w != i {
					copy(p[w:], p[i:i+run])
				}
				w, i, g.out = w+run, i+run, g.out+int64(run)
				if i == n {
					break
				}
			}
			if c, keep := g.step(p[i]); keep {
				p[w] = c
				w++
				g.out++
			}
		}
		if w > 0 || err != nil || n == 0 {
			return w, err
		}
	}
}

// stringRun is the length of the start of b, inside a string, that holds no quote and no
// backslash.
func stringRun(b []byte) int {
	end := bytes.IndexByte(b, '"')
	if end < 0 {
		end = len(b)
	}
	if esc := bytes.IndexByte(b[:end], '\\'); esc >= 0 {
		return esc
	}
	return end
}

// step follows one input byte and returns the byte to emit, if any.
func (g *shapeGuard) step(c byte) (byte, bool) {
	if g.skip > 0 {
		g.stepSkipped(c)
		return 0, false
	}
	if g.inString {
		switch {
		case g.escape:
			g.escape = false
		case c == '\\':
			g.escape = true
		case c == '"':
			g.inString = false
			if g.inKey {
				g.inKey = false
				g.endKey()
			}
			return c, true
		}
		if g.inKey {
			g.key = append(g.key, c)
		}
		return c, true
	}
	switch c {
	case '"':
		g.inString = true
		if top := g.top(); top != nil && top.object && top.wantKey {
			top.wantKey = false
			g.inKey, g.keyStart, g.key = true, g.out, g.key[:0]
		}
	case '{', '[':
		if g.v3 && g.level == 0 && g.recordStart() {
			g.level = len(g.stack) + 1
		}
		if g.level > 0 && len(g.stack)+1 > MaxRecordDepth+g.level-1 {
			g.tooDeep()
			g.skip = 1
			return '0', true
		}
		if len(g.stack)+1 == g.level {
			g.record = g.out
		}
		g.push(c == '{')
	case '}', ']':
		if len(g.stack) > 0 {
			g.stack = g.stack[:len(g.stack)-1]
		}
		if g.v3 && len(g.stack) < g.level {
			g.level = 0
		}
	case ',':
		if top := g.top(); top != nil {
			if top.object {
				top.wantKey = true
			} else {
				top.index++
			}
		}
	}
	return c, true
}

// stepSkipped follows one byte of a value dropped for its depth.
func (g *shapeGuard) stepSkipped(c byte) {
	switch {
	case g.inString && g.escape:
		g.escape = false
	case g.inString && c == '\\':
		g.escape = true
	case c == '"':
		g.inString = !g.inString
	case g.inString:
	case c == '{' || c == '[':
		g.skip++
	case c == '}' || c == ']':
		g.skip--
	}
}

// push opens an object or an array, reusing the key set of the frame that was at its level.
func (g *shapeGuard) push(object bool) {
	n := len(g.stack)
	if n == cap(g.stack) {
		g.stack = append(g.stack, frame{})
	}
	g.stack = g.stack[:n+1]
	f := &g.stack[n]
	keys := f.keys
	clear(keys)
	*f = frame{object: object, wantKey: object, keys: keys}
}

func (g *shapeGuard) top() *frame {
	if len(g.stack) == 0 {
		return nil
	}
	return &g.stack[len(g.stack)-1]
}

// endKey files the key just read in its object, noting a repeat inside a dataset.
func (g *shapeGuard) endKey() {
	top := g.top()
	key, ok := g.names[string(g.key)]
	if !ok {
		key = string(g.key)
		if len(g.names) < maxInternedNames && len(key) <= maxInternedName {
			if g.names == nil {
				g.names = map[string]string{}
			}
			g.names[key] = key
		}
	}
	if strings.IndexByte(key, '\\') >= 0 {
		var decoded string
		if json.Unmarshal([]byte(`"`+key+`"`), &decoded) == nil {
			key = decoded
		}
	}
	top.key = key
	if !g.trackKeys || g.level == 0 || len(g.stack) < g.level {
		return
	}
	if top.keys == nil {
		top.keys = map[string]struct{}{}
	}
	if _, dup := top.keys[key]; !dup {
		top.keys[key] = struct{}{}
		return
	}
	if p := g.current(); p != nil {
		if p.err.Type == "DuplicateKey" {
			p.err.More++
		}
		return
	}
	g.problems = append(g.problems, shapeProblem{record: g.record,
		err: StructureError{Type: "DuplicateKey", Key: key, Path: g.path()}})
}

// tooDeep notes the dataset being read as nested too deeply (the first problem of a dataset is
// the one told, but depth wins over a repeated key: the rest of the dataset is not read).
func (g *shapeGuard) tooDeep() {
	e := StructureError{Type: "NestedTooDeep", Path: g.path()}
	if p := g.current(); p != nil {
		p.err = e
		return
	}
	g.problems = append(g.problems, shapeProblem{record: g.record, err: e})
}

// current returns the problem noted for the dataset being read, if any.
func (g *shapeGuard) current() *shapeProblem {
	if n := len(g.problems); n > 0 && g.problems[n-1].record == g.record && g.record >= 0 {
		return &g.problems[n-1]
	}
	return nil
}

// maxPathSteps bounds the steps a path names; deeper ones are elided.
const maxPathSteps = 12

// path is the JSON path, from the dataset, of the current position: the current member or
// element of each open container, down to the innermost.
func (g *shapeGuard) path() string {
	if g.level == 0 || len(g.stack) < g.level {
		return "$"
	}
	steps := g.stack[g.level-1:]
	var b strings.Builder
	b.WriteByte('$')
	if len(steps) > maxPathSteps+3 {
		for _, f := range steps[:maxPathSteps] {
			writeStep(&b, f)
		}
		fmt.Fprintf(&b, "…(%d levels)…", len(steps)-maxPathSteps-2)
		steps = steps[len(steps)-2:]
	}
	for _, f := range steps {
		writeStep(&b, f)
	}
	return b.String()
}

func writeStep(b *strings.Builder, f frame) {
	switch {
	case !f.object:
		fmt.Fprintf(b, "[%d]", f.index)
	case plainName(f.key):
		b.WriteString("." + f.key)
	default:
		b.WriteString("[" + strconv.Quote(f.key) + "]")
	}
}

// plainName reports whether a key can follow a "." in a path: letters, digits, _, @ and $,
// not starting with a digit.
func plainName(k string) bool {
	if k == "" || ('0' <= k[0] && k[0] <= '9') {
		return false
	}
	for _, r := range k {
		if !(r == '_' || r == '@' || r == '$' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			return false
		}
	}
	return true
}

// problem returns the StructureError of the dataset the decoder read between offsets from and
// to, if any, and forgets every problem before to.
func (g *shapeGuard) problem(from, to int64) *StructureError {
	var found *StructureError
	n := 0
	for _, p := range g.problems {
		switch {
		case p.record >= to:
			g.problems[n] = p
			n++
		case p.record >= from && found == nil:
			e := p.err
			found = &e
		}
	}
	g.problems = g.problems[:n]
	return found
}
