package shacl

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/harvester-dev/harvester/rdf"
)

// Result is one SHACL validation result (SHACL 3.6.2).
type Result struct {
	// Focus is sh:focusNode.
	Focus rdf.Term
	// Path is sh:resultPath as written in the shape: the predicate IRI, or "" for a result of a
	// node shape.
	Path string
	// Value is sh:value: the value node that failed, zero for results about the focus node's
	// values as a whole (sh:minCount, sh:maxCount, sh:hasValue, sh:qualifiedValueShape).
	Value rdf.Term
	// Severity is the shape's sh:severity (sh:Violation when it has none).
	Severity Severity
	// Message is the shape's sh:message (English preferred) or a generated one.
	Message string
	// SourceShape is the shape with the failing constraint (an IRI or a blank node of the
	// shapes graph).
	SourceShape rdf.Term
	// Constraint names the constraint parameter: "sh:minCount", "sh:class", ….
	Constraint string
}

// Report is a validation report (SHACL 3.6.1): Conforms is true exactly when there is no
// result, of any severity (as pySHACL reports it).
type Report struct {
	Conforms bool
	Results  []Result
}

// Validate checks data against every shape with a target and returns the report, its results
// sorted by focus node, path, source shape and value. It does not change data. data must not
// be written to while Validate runs.
func (s *Shapes) Validate(data rdf.Graph) *Report {
	v := &validator{g: data, classCache: map[[2]rdf.Term]bool{}, active: map[[2]rdf.Term]bool{},
		memo: map[[2]rdf.Term]bool{}}
	var results []Result
	for _, sh := range s.targeted {
		if sh.deactivated {
			continue
		}
		for _, f := range v.focusNodes(sh) {
			results = v.validate(sh, f, results)
		}
	}
	sort.SliceStable(results, func(i, j int) bool {
		a, b := results[i], results[j]
		if a.Focus != b.Focus {
			return a.Focus.NTriples() < b.Focus.NTriples()
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.SourceShape != b.SourceShape {
			return a.SourceShape.NTriples() < b.SourceShape.NTriples()
		}
		if a.Constraint != b.Constraint {
			return a.Constraint < b.Constraint
		}
		return a.Value.NTriples() < b.Value.NTriples()
	})
	return &Report{Conforms: len(results) == 0, Results: results}
}

type validator struct {
	g          rdf.Graph
	classCache map[[2]rdf.Term]bool // (type, class) -> type rdfs:subClassOf* class
	active     map[[2]rdf.Term]bool // (shape, focus) being checked for conformance
	memo       map[[2]rdf.Term]bool // (shape, focus) -> conforms, once known
}

func (v *validator) objects(s, p rdf.Term) []rdf.Term {
	var out []rdf.Term
	_ = v.g.Match(s, p, rdf.Term{}, func(t rdf.Triple) error { out = append(out, t.O); return nil })
	return out
}

// focusNodes are the shape's targets in data (SHACL 2.1.3), each once, in a stable order.
func (v *validator) focusNodes(sh *shape) []rdf.Term {
	seen := map[rdf.Term]bool{}
	var out []rdf.Term
	add := func(t rdf.Term) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, t := range sh.targetNode {
		add(t)
	}
	for _, c := range sh.targetClass {
		for _, cls := range v.subClasses(c) {
			_ = v.g.Match(rdf.Term{}, rdf.IRI(rdf.RDFType), cls, func(t rdf.Triple) error { add(t.S); return nil })
		}
	}
	for _, p := range sh.targetSubjectsOf {
		if p.IsIRI() {
			_ = v.g.Match(rdf.Term{}, p, rdf.Term{}, func(t rdf.Triple) error { add(t.S); return nil })
		}
	}
	for _, p := range sh.targetObjectsOf {
		if p.IsIRI() {
			_ = v.g.Match(rdf.Term{}, p, rdf.Term{}, func(t rdf.Triple) error { add(t.O); return nil })
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].NTriples() < out[j].NTriples() })
	return out
}

// subClasses is c and every class with rdfs:subClassOf* c in data.
func (v *validator) subClasses(c rdf.Term) []rdf.Term {
	seen := map[rdf.Term]bool{c: true}
	out := []rdf.Term{c}
	for i := 0; i < len(out); i++ {
		_ = v.g.Match(rdf.Term{}, rdf.IRI(rdfsSubClassOf), out[i], func(t rdf.Triple) error {
			if !seen[t.S] {
				seen[t.S] = true
				out = append(out, t.S)
			}
			return nil
		})
	}
	return out
}

// isSubClass reports whether t rdfs:subClassOf* c in data.
func (v *validator) isSubClass(t, c rdf.Term) bool {
	if t == c {
		return true
	}
	key := [2]rdf.Term{t, c}
	if r, ok := v.classCache[key]; ok {
		return r
	}
	seen := map[rdf.Term]bool{t: true}
	todo := []rdf.Term{t}
	found := false
	for len(todo) > 0 && !found {
		x := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, sup := range v.objects(x, rdf.IRI(rdfsSubClassOf)) {
			if sup == c {
				found = true
				break
			}
			if !seen[sup] {
				seen[sup] = true
				todo = append(todo, sup)
			}
		}
	}
	v.classCache[key] = found
	return found
}

// instanceOf is SHACL's "SHACL instance" (1.5): n rdf:type/rdfs:subClassOf* c.
func (v *validator) instanceOf(n, c rdf.Term) bool {
	if n.IsLiteral() {
		return false
	}
	for _, t := range v.objects(n, rdf.IRI(rdf.RDFType)) {
		if v.isSubClass(t, c) {
			return true
		}
	}
	return false
}

// conforms reports whether focus conforms to sh (validating sh on focus gives no result),
// remembered for the rest of the Validate call so that shared sub-graphs are checked once
// (without it, nested sh:node/sh:or over a well-connected graph is exponential). A (shape,
// focus) pair met again while it is being checked conforms.
func (v *validator) conforms(sh *shape, focus rdf.Term) bool {
	key := [2]rdf.Term{sh.id, focus}
	if r, ok := v.memo[key]; ok {
		return r
	}
	if v.active[key] {
		return true
	}
	v.active[key] = true
	r := len(v.validate(sh, focus, nil)) == 0
	delete(v.active, key)
	v.memo[key] = r
	return r
}

// validate appends to out the results of validating focus against sh (SHACL 3.4).
func (v *validator) validate(sh *shape, focus rdf.Term, out []Result) []Result {
	if sh.deactivated {
		return out
	}
	values := []rdf.Term{focus}
	if !sh.path.IsZero() {
		if focus.IsLiteral() {
			values = nil
		} else {
			values = v.objects(focus, sh.path)
		}
	}
	result := func(c constraint, value rdf.Term, msg string) {
		m := sh.message
		if m == "" {
			m = msg
		}
		out = append(out, Result{Focus: focus, Path: sh.pathString(), Value: value, Severity: sh.severity,
			Message: m, SourceShape: sh.id, Constraint: kindNames[c.kind]})
	}
	for _, c := range sh.constraints {
		switch c.kind {
		case cMinCount:
			if len(values) < c.n {
				result(c, rdf.Term{}, "Less than "+strconv.Itoa(c.n)+" values")
			}
		case cMaxCount:
			if len(values) > c.n {
				result(c, rdf.Term{}, "More than "+strconv.Itoa(c.n)+" values")
			}
		case cHasValue:
			found := false
			for _, x := range values {
				if x == c.term {
					found = true
				}
			}
			if !found {
				result(c, rdf.Term{}, "Missing expected value "+c.term.NTriples())
			}
		case cQualified:
			n := 0
			for _, x := range values {
				if v.conforms(c.shapes[0], x) {
					n++
				}
			}
			if c.qMin >= 0 && n < c.qMin {
				result(c, rdf.Term{}, fmt.Sprintf("Less than %d values conform to %s", c.qMin, c.shapes[0].id.NTriples()))
			}
			if c.qMax >= 0 && n > c.qMax {
				result(c, rdf.Term{}, fmt.Sprintf("More than %d values conform to %s", c.qMax, c.shapes[0].id.NTriples()))
			}
		default:
			for _, x := range values {
				if ok, msg := v.valueOK(c, x); !ok {
					result(c, x, msg)
				}
			}
		}
	}
	// sh:property [4.8.2]: each value node is validated against each property shape, as its
	// focus node (a node shape's one value node is its focus node; a property shape's are the
	// values of its path), and the results are the nested shape's.
	for _, p := range sh.properties {
		for _, x := range values {
			out = v.validate(p, x, out)
		}
	}
	return out
}

// valueOK checks one value node against a per-value constraint.
func (v *validator) valueOK(c constraint, x rdf.Term) (bool, string) {
	switch c.kind {
	case cClass:
		return v.instanceOf(x, c.term), "Value " + x.NTriples() + " is not an instance of " + c.term.NTriples()
	case cDatatype:
		return datatypeOK(x, c.term.Value), "Value " + x.NTriples() + " is not a literal of datatype " + c.term.NTriples()
	case cNodeKind:
		var k nodeKind
		switch {
		case x.IsIRI():
			k = nkIRI
		case x.IsBlank():
			k = nkBlank
		case x.IsLiteral():
			k = nkLiteral
		}
		return k&c.nodeKind != 0, "Value " + x.NTriples() + " is not of the required node kind"
	case cPattern:
		return !x.IsBlank() && c.re.MatchString(x.Value), "Value " + x.NTriples() + " does not match pattern " + strconv.Quote(c.re.String())
	case cNode:
		return v.conforms(c.shapes[0], x), "Value " + x.NTriples() + " does not conform to shape " + c.shapes[0].id.NTriples()
	case cOr:
		for _, s := range c.shapes {
			if v.conforms(s, x) {
				return true, ""
			}
		}
		return false, "Value " + x.NTriples() + " conforms to none of the sh:or shapes"
	case cAnd:
		for _, s := range c.shapes {
			if !v.conforms(s, x) {
				return false, "Value " + x.NTriples() + " does not conform to every sh:and shape"
			}
		}
		return true, ""
	}
	return true, ""
}
