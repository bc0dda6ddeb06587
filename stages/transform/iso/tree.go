package iso

import (
	"strings"

	"github.com/harvester-dev/harvester/stages/transform/xmltree"
)

// isoNamespace reports whether an element namespace URI belongs to the ISO 19115/19139 family
// (19139 gmd/gco/gmi/gmx/srv, 19115-3 mdb/mri/cit/gco/…, GML). Elements in other namespaces
// are not looked at: matching is on namespace URIs, never on prefixes.
func isoNamespace(space string) bool {
	return strings.HasPrefix(space, "http://www.isotc211.org/2005/") ||
		strings.HasPrefix(space, "http://standards.iso.org/iso/19115/") ||
		strings.HasPrefix(space, "http://standards.iso.org/iso/19139/") ||
		strings.HasPrefix(space, "http://www.opengis.net/gml")
}

// isoStep matches a path step: an ISO element named step ("*" for any).
func isoStep(n *node, step string) bool {
	return (step == "*" || n.Local == step) && isoNamespace(n.Space)
}

// child returns the first ISO child element named local ("*" for any).
func child(n *node, local string) *node { return n.Child(local, isoStep) }

// path returns every element reached from the nodes by following child steps ("*" for any
// element), in document order.
func path(from []*node, steps ...string) []*node { return xmltree.Path(from, isoStep, steps...) }

// find returns every ISO descendant element of the nodes named local, in document order.
func find(from []*node, local string) []*node { return findPruned(from, local, nil) }

// findPruned is find without looking below the descendants prune reports true for (nil
// prunes nothing); a pruned element itself is neither matched nor walked.
func findPruned(from []*node, local string, prune func(*node) bool) []*node {
	var out []*node
	stack := make([]*node, 0, 64)
	for i := len(from) - 1; i >= 0; i-- {
		if from[i] != nil {
			stack = append(stack, from[i].Children...)
			reverse(stack[len(stack)-len(from[i].Children):])
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if prune != nil && prune(n) {
			continue
		}
		if n.Local == local && isoNamespace(n.Space) {
			out = append(out, n)
		}
		for i := len(n.Children) - 1; i >= 0; i-- {
			stack = append(stack, n.Children[i])
		}
	}
	return out
}

func reverse(s []*node) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// first returns the first node or nil.
func first(ns []*node) *node {
	if len(ns) == 0 {
		return nil
	}
	return ns[0]
}

// value returns the text of a property element: its own character data when it has no child
// elements (gco:CharacterString, gmd:URL, gml:beginPosition…), otherwise the first non-empty
// value among its children (the gco:CharacterString, gmx:Anchor, gco:Date… it wraps).
func value(n *node) string {
	for depth := 0; n != nil && depth < 64; depth++ {
		if len(n.Children) == 0 {
			return strings.TrimSpace(n.Text.String())
		}
		if len(n.Children) == 1 {
			n = n.Children[0]
			continue
		}
		for _, c := range n.Children {
			if v := value(c); v != "" {
				return v
			}
		}
		return ""
	}
	return ""
}

// code returns a code list value: the codeListValue attribute of the element or of the first
// descendant carrying one, else the value.
func code(n *node) string {
	if n == nil {
		return ""
	}
	if v := strings.TrimSpace(n.Attr("codeListValue")); v != "" {
		return v
	}
	for _, c := range n.Children {
		if v := strings.TrimSpace(c.Attr("codeListValue")); v != "" {
			return v
		}
	}
	return value(n)
}
