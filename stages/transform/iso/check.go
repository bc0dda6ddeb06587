package iso

import (
	"fmt"
	"strconv"
	"strings"
)

// ISO 19139 namespace URIs of 19115-1 (gmd) and 19115-2 (gmi).
const (
	nsGMD = "http://www.isotc211.org/2005/gmd"
	nsGMI = "http://www.isotc211.org/2005/gmi"
)

// maxProblems is how many structural problems the ErrInvalidISO message lists.
const maxProblems = 10

// mdMetadataProperties are the properties of gmd:MD_Metadata (ISO 19139 MD_Metadata_Type, from
// ISO 19115:2003 plus its Cor.1:2006); gmi:MI_Metadata adds gmi:acquisitionInformation.
var mdMetadataProperties = map[string]bool{
	"fileIdentifier": true, "language": true, "characterSet": true, "parentIdentifier": true,
	"hierarchyLevel": true, "hierarchyLevelName": true, "contact": true, "dateStamp": true,
	"metadataStandardName": true, "metadataStandardVersion": true, "dataSetURI": true, "locale": true,
	"spatialRepresentationInfo": true, "referenceSystemInfo": true, "metadataExtensionInfo": true,
	"identificationInfo": true, "contentInfo": true, "distributionInfo": true, "dataQualityInfo": true,
	"portrayalCatalogueInfo": true, "metadataConstraints": true, "applicationSchemaInfo": true,
	"metadataMaintenance": true, "series": true, "describes": true, "propertyType": true,
	"featureType": true, "featureAttribute": true,
}

// requiredProperty is a gmd property that ISO 19139 requires in its class (minOccurs 1) and
// that must then carry a value, a reference (xlink:href, uuidref) or a gco:nilReason. These
// are the ones Data.gov's MDTranslator reader ("iso19115_2_datagov") rejects a record for.
type requiredProperty struct {
	local, what string
}

// requiredProperties maps a gmd class (object element) to its checked required properties.
var requiredProperties = map[string][]requiredProperty{
	"CI_ResponsibleParty": {{"role", "a role"}},
	"CI_Date":             {{"date", "a date"}, {"dateType", "a date type"}},
}

// problems collects structural problems: the messages of the first maxProblems, and a count.
type problems struct {
	msgs  []string
	count int
}

// add records a problem; msg is only called (to build the element path) for the first ones.
func (p *problems) add(msg func() string) {
	p.count++
	if len(p.msgs) < maxProblems {
		p.msgs = append(p.msgs, msg())
	}
}

// checkISO19139 applies light structural checks to a 19115-1/-2 record (gmd:MD_Metadata or
// gmi:MI_Metadata in the 2005 namespaces; 19115-3 records are not checked) and returns an
// ErrInvalidISO listing the first problems found, or nil.
func checkISO19139(root *node) error {
	if !(root.Space == nsGMD && root.Local == "MD_Metadata") && !(root.Space == nsGMI && root.Local == "MI_Metadata") {
		return nil
	}
	var ps problems
	rootName := qname(root)
	for i, c := range root.Children {
		if (c.Space == nsGMD && !mdMetadataProperties[c.Local]) ||
			(c.Space == nsGMI && !(root.Space == nsGMI && c.Local == "acquisitionInformation")) {
			ps.add(func() string {
				return fmt.Sprintf("%s/%s is not an element of %s (ISO 19139)", rootName, step(root, i), rootName)
			})
		}
	}
	walkRequired(root, &ps)
	if ps.count == 0 {
		return nil
	}
	msg := strings.Join(ps.msgs, "; ")
	if ps.count > len(ps.msgs) {
		msg += fmt.Sprintf("; and %d more", ps.count-len(ps.msgs))
	}
	noun := "problems"
	if ps.count == 1 {
		noun = "problem"
	}
	return fmt.Errorf("%w: %d %s: %s", ErrInvalidISO, ps.count, noun, msg)
}

// walkRequired checks the required properties of every gmd class element under root, in
// document order. The walk is iterative and element paths are only built for problems, so
// deep or wide documents cost no more than the parse.
func walkRequired(root *node, ps *problems) {
	type frame struct {
		n    *node
		next int // index of the next child to visit
	}
	stack := []frame{{n: root}}
	// pathTo names the element at the top of the stack, then optionally child i of it.
	pathTo := func(child int) string {
		var b strings.Builder
		b.WriteString(qname(root))
		for k := 1; k < len(stack); k++ {
			b.WriteString("/")
			b.WriteString(step(stack[k-1].n, stack[k-1].next-1))
		}
		if child >= 0 {
			b.WriteString("/")
			b.WriteString(step(stack[len(stack)-1].n, child))
		}
		return b.String()
	}
	visit := func(n *node) {
		if n.Space != nsGMD {
			return
		}
		for _, rp := range requiredProperties[n.Local] {
			found := false
			for i, c := range n.Children {
				if c.Space != nsGMD || c.Local != rp.local {
					continue
				}
				found = true
				if emptyProperty(c) {
					ps.add(func() string {
						return fmt.Sprintf("%s is empty and has no gco:nilReason (ISO 19139 requires %s)", pathTo(i), rp.what)
					})
				}
			}
			if !found {
				ps.add(func() string {
					return fmt.Sprintf("%s has no gmd:%s (ISO 19139 requires %s)", pathTo(-1), rp.local, rp.what)
				})
			}
		}
	}
	visit(root)
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if top.next >= len(top.n.Children) {
			stack = stack[:len(stack)-1]
			continue
		}
		c := top.n.Children[top.next]
		top.next++
		stack = append(stack, frame{n: c})
		visit(c)
	}
}

// emptyProperty reports whether a property element has no content: no child element, no
// text, no reference (xlink:href, uuidref) and no nilReason.
func emptyProperty(n *node) bool {
	if len(n.Children) > 0 || strings.TrimSpace(n.Text.String()) != "" {
		return false
	}
	for _, a := range n.Attrs {
		switch a.Name.Local {
		case "nilReason", "href", "uuidref":
			if strings.TrimSpace(a.Value) != "" {
				return false
			}
		}
	}
	return true
}

// qname names an element with the conventional prefix of its namespace URI (whatever prefix
// the document used), or {URI}local for other namespaces.
func qname(n *node) string {
	switch {
	case n.Space == "":
		return n.Local
	case strings.HasPrefix(n.Space, "http://www.isotc211.org/2005/"):
		return strings.TrimPrefix(n.Space, "http://www.isotc211.org/2005/") + ":" + n.Local
	case strings.HasPrefix(n.Space, "http://www.opengis.net/gml"):
		return "gml:" + n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// step names child i of parent as a path step, with its 1-based position among same-named
// siblings when there are several (as in XPath).
func step(parent *node, i int) string {
	c := parent.Children[i]
	pos, count := 0, 0
	for j, s := range parent.Children {
		if s.Space == c.Space && s.Local == c.Local {
			count++
			if j <= i {
				pos++
			}
		}
	}
	if count == 1 {
		return qname(c)
	}
	return qname(c) + "[" + strconv.Itoa(pos) + "]"
}
