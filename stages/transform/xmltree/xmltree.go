// Package xmltree reads an XML metadata record into a tree of elements for the XML mappers
// (packages iso, fgdc and dublincore): one reader, so that every XML record is parsed, capped
// and reported alike. It reads UTF-8 (iso.ToUTF8 decodes the declared encoding first).
//
// encoding/xml does the reading: it never fetches DTDs or external entities and, in its
// default strict mode, expands only XML's five predefined entities, so a DOCTYPE is skipped
// and a reference to an entity it declares is an error ("billion laughs" cannot happen).
package xmltree

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Error kinds of Parse, always inside an *Error with the detail; test them with errors.Is. A
// mapper reports them under its own sentinels with Rewrap.
var (
	// ErrMalformed means the document is not well-formed XML; the detail gives the line and
	// column when known.
	ErrMalformed = errors.New("malformed XML")
	// ErrLimit means the document nests elements deeper, or holds more elements, than the
	// Limits given.
	ErrLimit = errors.New("XML record over the reader's limits")
)

// Error is an error of Parse: its kind (ErrMalformed or ErrLimit) and what was found
// ("line 3, column 7: unexpected EOF", "more than 40 elements").
type Error struct {
	Kind   error
	Detail string
	// Root is the root element when the error came after its start tag (its tree is
	// partial), else nil: a mapper may name a wrong root before a later syntax error.
	Root *Node
}

func (e *Error) Error() string { return e.Kind.Error() + ": " + e.Detail }
func (e *Error) Unwrap() error { return e.Kind }

// Rewrap returns err with an *Error's kind replaced by the mapper's own sentinel (malformed
// for ErrMalformed, limit for ErrLimit) and the same detail: "<malformed>: <detail>". Any
// other error (nil too) is returned as it is.
func Rewrap(err, malformed, limit error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	kind := malformed
	if e.Kind == ErrLimit {
		kind = limit
	}
	return fmt.Errorf("%w: %s", kind, e.Detail)
}

// Limits caps what Parse reads; a zero field is no cap.
type Limits struct {
	// MaxDepth is how deeply elements may nest (the root is at depth 1).
	MaxDepth int
	// MaxElements is how many elements the document may hold.
	MaxElements int
}

// Node is one element: its name, attributes, child elements and character data.
//
// Parse resolves namespaces: Space is the namespace URI and Prefix is "". ParseRaw keeps the
// names as written: Prefix is the element's prefix ("" for none) and Space is the namespace
// URI only when the element itself binds its prefix (xmlns:p="…", as a root does), for a
// message naming it; "" otherwise.
type Node struct {
	Space, Prefix, Local string
	Attrs                []xml.Attr // as the decoder gives them (resolved by Parse, raw by ParseRaw)
	Children             []*Node
	Text                 strings.Builder // the element's own character data, untrimmed
}

// Attr returns the value of the first attribute with the given local name (any namespace),
// or "" (also for a nil node).
func (n *Node) Attr(local string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// Match reports whether element n is the one a path step names: how a mapper matches names
// (by namespace URI, by prefix, with a "*" wildcard…).
type Match func(n *Node, step string) bool

// Child returns the first child element that match takes for step, or nil (also for a nil
// node).
func (n *Node) Child(step string, match Match) *Node {
	if n == nil {
		return nil
	}
	for _, c := range n.Children {
		if match(c, step) {
			return c
		}
	}
	return nil
}

// Path returns every element reached from the nodes (nil ones skipped) by the child steps,
// each matched by match, in document order.
func Path(from []*Node, match Match, steps ...string) []*Node {
	cur := from
	for _, s := range steps {
		var next []*Node
		for _, n := range cur {
			if n == nil {
				continue
			}
			for _, c := range n.Children {
				if match(c, s) {
					next = append(next, c)
				}
			}
		}
		cur = next
	}
	return cur
}

// Parse builds the element tree of doc (UTF-8), namespaces resolved (see Node). Errors are
// *Error: ErrMalformed (with line and column; "no root element" for a document without
// one) or ErrLimit (past lim).
func Parse(doc []byte, lim Limits) (*Node, error) { return parse(doc, lim, false) }

// ParseRaw is Parse with names kept as written (see Node), for a vocabulary without
// namespaces (FGDC CSDGM).
func ParseRaw(doc []byte, lim Limits) (*Node, error) { return parse(doc, lim, true) }

func parse(doc []byte, lim Limits, raw bool) (*Node, error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // already UTF-8
	next := d.Token
	if raw {
		next = d.RawToken
	}
	var root *Node
	var stack []*Node
	elements := 0
	fail := func(err *Error) (*Node, error) {
		err.Root = root
		return nil, err
	}
	for {
		tok, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(malformed(doc, d.InputOffset(), err))
		}
		switch t := tok.(type) {
		case xml.StartElement:
			elements++
			switch {
			case lim.MaxElements > 0 && elements > lim.MaxElements:
				return fail(&Error{Kind: ErrLimit, Detail: fmt.Sprintf("more than %d elements", lim.MaxElements)})
			case lim.MaxDepth > 0 && len(stack) >= lim.MaxDepth:
				return fail(&Error{Kind: ErrLimit, Detail: fmt.Sprintf("elements nested more than %d deep", lim.MaxDepth)})
			}
			n := newNode(t, raw)
			if len(stack) == 0 {
				if root != nil {
					return fail(malformed(doc, d.InputOffset(), errors.New("more than one root element")))
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			// Parse's decoder checks that end elements match; ParseRaw's does not.
			if len(stack) == 0 || stack[len(stack)-1].Local != t.Name.Local {
				return fail(malformed(doc, d.InputOffset(), fmt.Errorf("unexpected end element </%s>", t.Name.Local)))
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text.Write(t)
			}
		}
	}
	if root == nil {
		return nil, &Error{Kind: ErrMalformed, Detail: "no root element"}
	}
	if len(stack) > 0 {
		return fail(malformed(doc, d.InputOffset(), fmt.Errorf("element <%s> is not closed", stack[len(stack)-1].Local)))
	}
	return root, nil
}

// newNode returns the node of a start element (see Node for raw).
func newNode(t xml.StartElement, raw bool) *Node {
	if !raw {
		return &Node{Space: t.Name.Space, Local: t.Name.Local, Attrs: t.Attr}
	}
	n := &Node{Prefix: t.Name.Space, Local: t.Name.Local, Attrs: t.Attr}
	if n.Prefix != "" {
		for _, a := range t.Attr {
			if a.Name.Space == "xmlns" && a.Name.Local == n.Prefix {
				n.Space = a.Value
			}
		}
	}
	return n
}

// malformed returns the ErrMalformed of a decoder error, with the line and column of offset.
func malformed(doc []byte, offset int64, err error) *Error {
	var se *xml.SyntaxError
	msg := err.Error()
	if errors.As(err, &se) {
		msg = se.Msg
	}
	off := min(int(offset), len(doc))
	line := 1 + bytes.Count(doc[:off], []byte("\n"))
	col := 1 + utf8.RuneCount(doc[bytes.LastIndexByte(doc[:off], '\n')+1:off])
	return &Error{Kind: ErrMalformed, Detail: fmt.Sprintf("line %d, column %d: %s", line, col, ExplainSyntax(msg))}
}

// ExplainSyntax returns an encoding/xml syntax error message with the why a reader needs:
// "invalid character entity &agency;" gains that entities a DOCTYPE declares are not
// expanded (never: that is how "billion laughs" and external-entity attacks work), only XML's
// five predefined ones. Any other message is returned as it is.
func ExplainSyntax(msg string) string {
	if strings.HasPrefix(msg, "invalid character entity &") {
		return msg + " (entities a DOCTYPE declares are not expanded, only XML's five: &lt; &gt; &amp; &apos; &quot;; " +
			"write the entity's text in its place)"
	}
	return msg
}
