package fgdc

import (
	"strings"

	"github.com/harvester-dev/harvester/stages/transform/iso"
	"github.com/harvester-dev/harvester/stages/transform/xmltree"
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

// node is one element of the parsed document (xmltree.ParseRaw: names as written). CSDGM
// has no namespace: an element with a prefix is foreign, never matched by a CSDGM path; its
// Prefix and Space (when it binds its prefix itself, as a root does) serve messages.
type node = xmltree.Node

// csdgm matches a CSDGM path step: an element without a prefix named step.
func csdgm(n *node, step string) bool { return n.Local == step && n.Prefix == "" }

// foreign reports whether n is in a namespace (not a CSDGM element).
func foreign(n *node) bool { return n.Prefix != "" }

// parse decodes doc (UTF-8 after iso.ToUTF8; trimmed bytes were cut from the input as given)
// and builds the element tree (xmltree.ParseRaw: CSDGM has no namespaces to resolve; a
// DOCTYPE is skipped and no entity it declares is expanded).
func parse(doc []byte) (*node, error) { return parseWithin(doc, MaxDepth, MaxElements) }

// parseWithin is parse with the limits given.
func parseWithin(doc []byte, maxDepth, maxElements int) (*node, error) {
	root, err := xmltree.ParseRaw(doc, xmltree.Limits{MaxDepth: maxDepth, MaxElements: maxElements})
	return root, xmltree.Rewrap(err, ErrMalformedXML, ErrLimit)
}

// decode returns the record's tree: the bytes decoded by their declared encoding, parsed.
func decode(b []byte) (*node, error) {
	doc, _, err := iso.ToUTF8(b)
	if err != nil {
		return nil, err
	}
	return parse(doc)
}

// child returns the first CSDGM child element of n named name, or nil.
func child(n *node, name string) *node { return n.Child(name, csdgm) }

// path returns every element reached from the nodes by the child steps, in document order.
func path(from []*node, steps ...string) []*node { return xmltree.Path(from, csdgm, steps...) }

// at returns the first element reached from n by the child steps, or nil.
func at(n *node, steps ...string) *node {
	if ns := path([]*node{n}, steps...); len(ns) > 0 {
		return ns[0]
	}
	return nil
}

// raw returns the element's character data, trimmed; "" for nil.
func raw(n *node) string {
	if n == nil {
		return ""
	}
	return strings.TrimSpace(n.Text.String())
}

// value returns the element's character data with runs of white space (the line breaks and
// indentation of a wrapped title) made one space.
func value(n *node) string {
	return strings.Join(strings.Fields(raw(n)), " ")
}

// texts returns the character data of the element and its descendants, in document order,
// each run of white space made one space: what a message quotes of a structured element
// (a geologic age's "Late Cretaceous"), cut at 1,000 bytes.
func texts(n *node) string {
	var parts []string
	size := 0
	var walk func(*node)
	walk = func(e *node) {
		if e == nil || size > 1000 {
			return
		}
		if v := value(e); v != "" {
			parts = append(parts, v)
			size += len(v)
		}
		for _, c := range e.Children {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(parts, " ")
}

// prose returns the element's character data as prose: each line trimmed (the indentation of
// a wrapped abstract goes), line breaks kept, and blank lines between paragraphs kept as one.
func prose(n *node) string {
	lines := strings.Split(raw(n), "\n")
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
		if v := value(n); v != "" {
			out = append(out, v)
		}
	}
	return out
}
