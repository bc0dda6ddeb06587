package iso

import "strings"

// isoNamespace reports whether an element namespace URI belongs to the ISO 19115/19139 family
// (19139 gmd/gco/gmi/gmx/srv, 19115-3 mdb/mri/cit/gco/…, GML). Elements in other namespaces
// are not looked at: matching is on namespace URIs, never on prefixes.
func isoNamespace(space string) bool {
	return strings.HasPrefix(space, "http://www.isotc211.org/2005/") ||
		strings.HasPrefix(space, "http://standards.iso.org/iso/19115/") ||
		strings.HasPrefix(space, "http://standards.iso.org/iso/19139/") ||
		strings.HasPrefix(space, "http://www.opengis.net/gml")
}

// child returns the first ISO child element named local ("*" for any).
func (n *node) child(local string) *node {
	if n == nil {
		return nil
	}
	for _, c := range n.children {
		if (local == "*" || c.local == local) && isoNamespace(c.space) {
			return c
		}
	}
	return nil
}

// path returns every element reached from the nodes by following child steps ("*" for any
// element), in document order.
func path(from []*node, steps ...string) []*node {
	cur := from
	for _, s := range steps {
		var next []*node
		for _, n := range cur {
			if n == nil {
				continue
			}
			for _, c := range n.children {
				if (s == "*" || c.local == s) && isoNamespace(c.space) {
					next = append(next, c)
				}
			}
		}
		cur = next
	}
	return cur
}

// find returns every ISO descendant element of the nodes named local, in document order.
func find(from []*node, local string) []*node {
	var out []*node
	stack := make([]*node, 0, 64)
	for i := len(from) - 1; i >= 0; i-- {
		if from[i] != nil {
			stack = append(stack, from[i].children...)
			reverse(stack[len(stack)-len(from[i].children):])
		}
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.local == local && isoNamespace(n.space) {
			out = append(out, n)
		}
		for i := len(n.children) - 1; i >= 0; i-- {
			stack = append(stack, n.children[i])
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
		if len(n.children) == 0 {
			return strings.TrimSpace(n.text.String())
		}
		if len(n.children) == 1 {
			n = n.children[0]
			continue
		}
		for _, c := range n.children {
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
	if v := strings.TrimSpace(n.attr("codeListValue")); v != "" {
		return v
	}
	for _, c := range n.children {
		if v := strings.TrimSpace(c.attr("codeListValue")); v != "" {
			return v
		}
	}
	return value(n)
}
