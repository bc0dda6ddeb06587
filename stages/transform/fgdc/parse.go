package fgdc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// Limits of the reader. A real CSDGM record nests about 15 elements deep (a Biological Data
// Profile taxonomy, one element per rank, adds about 30) and holds a few thousand elements
// (an entity and attribute section can hold tens of thousands).
const (
	// MaxDepth is how deeply elements may nest.
	MaxDepth = 256
	// MaxElements is how many elements a record may hold.
	MaxElements = 1_000_000
)

// node is one element of the parsed document: its name (CSDGM has no namespace; an element
// in a namespace keeps its local name and is marked foreign), child elements and character
// data.
type node struct {
	name    string
	foreign bool // in a namespace: never matched by a CSDGM path
	// prefix and space are a foreign element's namespace prefix and, when the element itself
	// binds it (as a root does), its namespace URI: for messages.
	prefix, space string
	children      []*node
	text          strings.Builder
}

// parse decodes doc (UTF-8 after iso.ToUTF8; trimmed bytes were cut from the input as given)
// and builds the element tree. encoding/xml never fetches DTDs or external entities and, in
// its default strict mode, expands only XML's five predefined entities: a DOCTYPE is skipped,
// and a reference to an entity it declares is an error, so entity expansion (the "billion
// laughs") cannot happen.
func parse(doc []byte) (*node, error) { return parseWithin(doc, MaxDepth, MaxElements) }

// parseWithin is parse with the limits given.
func parseWithin(doc []byte, maxDepth, maxElements int) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // already UTF-8
	var root *node
	var stack []*node
	elements := 0
	for {
		tok, err := d.RawToken() // names as written: CSDGM has no namespaces to resolve
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, malformed(doc, d.InputOffset(), err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			elements++
			switch {
			case elements > maxElements:
				return nil, fmt.Errorf("%w: more than %d elements", ErrLimit, maxElements)
			case len(stack) >= maxDepth:
				return nil, fmt.Errorf("%w: elements nested more than %d deep", ErrLimit, maxDepth)
			}
			n := &node{name: t.Name.Local, foreign: t.Name.Space != "", prefix: t.Name.Space}
			for _, a := range t.Attr {
				if n.foreign && a.Name.Space == "xmlns" && a.Name.Local == n.prefix {
					n.space = a.Value
				}
			}
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
			if len(stack) == 0 || stack[len(stack)-1].name != t.Name.Local {
				return nil, malformed(doc, d.InputOffset(), fmt.Errorf("unexpected end element </%s>", t.Name.Local))
			}
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
	if len(stack) > 0 {
		return nil, malformed(doc, d.InputOffset(), fmt.Errorf("element <%s> is not closed", stack[len(stack)-1].name))
	}
	return root, nil
}

// decode returns the record's tree: the bytes decoded by their declared encoding, parsed.
func decode(b []byte) (*node, error) {
	doc, _, err := iso.ToUTF8(b)
	if err != nil {
		return nil, err
	}
	return parse(doc)
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
	return fmt.Errorf("%w: line %d, column %d: %s", ErrMalformedXML, line, col, iso.ExplainSyntax(msg))
}

// child returns the first CSDGM child element named name, or nil.
func (n *node) child(name string) *node {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if c.name == name && !c.foreign {
			return c
		}
	}
	return nil
}

// path returns every element reached from the nodes by the child steps, in document order.
func path(from []*node, steps ...string) []*node {
	cur := from
	for _, s := range steps {
		var next []*node
		for _, n := range cur {
			if n == nil {
				continue
			}
			for _, c := range n.children {
				if c.name == s && !c.foreign {
					next = append(next, c)
				}
			}
		}
		cur = next
	}
	return cur
}

// at returns the first element reached from n by the child steps, or nil.
func (n *node) at(steps ...string) *node {
	if ns := path([]*node{n}, steps...); len(ns) > 0 {
		return ns[0]
	}
	return nil
}

// raw returns the element's character data, trimmed; "" for nil.
func (n *node) raw() string {
	if n == nil {
		return ""
	}
	return strings.TrimSpace(n.text.String())
}

// value returns the element's character data with runs of white space (the line breaks and
// indentation of a wrapped title) made one space.
func (n *node) value() string {
	return strings.Join(strings.Fields(n.raw()), " ")
}

// texts returns the character data of the element and its descendants, in document order,
// each run of white space made one space: what a message quotes of a structured element
// (a geologic age's "Late Cretaceous"), cut at 1,000 bytes.
func (n *node) texts() string {
	var parts []string
	size := 0
	var walk func(*node)
	walk = func(e *node) {
		if e == nil || size > 1000 {
			return
		}
		if v := e.value(); v != "" {
			parts = append(parts, v)
			size += len(v)
		}
		for _, c := range e.children {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(parts, " ")
}

// prose returns the element's character data as prose: each line trimmed (the indentation of
// a wrapped abstract goes), line breaks kept, and blank lines between paragraphs kept as one.
func (n *node) prose() string {
	lines := strings.Split(n.raw(), "\n")
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// values returns the value of every element reached by the steps, empty ones left out.
func values(from []*node, steps ...string) []string {
	var out []string
	for _, n := range path(from, steps...) {
		if v := n.value(); v != "" {
			out = append(out, v)
		}
	}
	return out
}
