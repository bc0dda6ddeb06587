package shacl

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/rdf"
)

// Vocabulary.
const (
	NS             = "http://www.w3.org/ns/shacl#"
	rdfNS          = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	rdfsNS         = "http://www.w3.org/2000/01/rdf-schema#"
	rdfFirst       = rdfNS + "first"
	rdfRest        = rdfNS + "rest"
	rdfNil         = rdfNS + "nil"
	rdfsSubClassOf = rdfsNS + "subClassOf"
	rdfsClass      = rdfsNS + "Class"
	xsdNS          = "http://www.w3.org/2001/XMLSchema#"
)

// Severity is a result's sh:severity.
type Severity uint8

// Severities (SHACL 2.1.5); the zero Severity is none.
const (
	Violation Severity = iota + 1
	Warning
	Info
)

// String is the severity's SHACL name: "sh:Violation", "sh:Warning" or "sh:Info".
func (s Severity) String() string {
	switch s {
	case Violation:
		return "sh:Violation"
	case Warning:
		return "sh:Warning"
	case Info:
		return "sh:Info"
	}
	return "sh:Severity(" + strconv.Itoa(int(s)) + ")"
}

// ErrUnsupported is wrapped by Compile's error for a SHACL feature this engine does not implement.
var ErrUnsupported = errors.New("shacl: unsupported SHACL feature")

// Shapes is a compiled shapes graph, safe for concurrent Validate calls.
type Shapes struct {
	byID     map[rdf.Term]*shape
	targeted []*shape // shapes with at least one target, in a stable order
	ignored  []string
}

// Ignored lists, sorted, the IRIs in the sh: namespace that the shapes graph uses as predicates
// but that SHACL does not define (and so, like pySHACL, Compile ignores).
func (s *Shapes) Ignored() []string { return append([]string(nil), s.ignored...) }

// Len is the number of shapes compiled.
func (s *Shapes) Len() int { return len(s.byID) }

type kind uint8

const (
	cMinCount kind = iota + 1
	cMaxCount
	cClass
	cDatatype
	cNodeKind
	cNode
	cOr
	cAnd
	cHasValue
	cPattern
	cQualified
)

var kindNames = map[kind]string{
	cMinCount: "sh:minCount", cMaxCount: "sh:maxCount", cClass: "sh:class", cDatatype: "sh:datatype",
	cNodeKind: "sh:nodeKind", cNode: "sh:node", cOr: "sh:or", cAnd: "sh:and", cHasValue: "sh:hasValue",
	cPattern: "sh:pattern", cQualified: "sh:qualifiedValueShape",
}

type nodeKind uint8 // bit set of allowed kinds

const (
	nkIRI nodeKind = 1 << iota
	nkBlank
	nkLiteral
)

var nodeKinds = map[string]nodeKind{
	NS + "IRI": nkIRI, NS + "BlankNode": nkBlank, NS + "Literal": nkLiteral,
	NS + "BlankNodeOrIRI": nkBlank | nkIRI, NS + "BlankNodeOrLiteral": nkBlank | nkLiteral,
	NS + "IRIOrLiteral": nkIRI | nkLiteral,
}

type constraint struct {
	kind     kind
	n        int      // minCount, maxCount
	term     rdf.Term // class, datatype, hasValue
	nodeKind nodeKind
	shapes   []*shape // node (one), or, and, qualifiedValueShape (one)
	re       *regexp.Regexp
	qMin     int // -1 when absent
	qMax     int // -1 when absent
}

type shape struct {
	id          rdf.Term
	path        rdf.Term // zero for a node shape
	severity    Severity
	message     string
	deactivated bool

	targetClass, targetNode, targetSubjectsOf, targetObjectsOf []rdf.Term

	constraints []constraint
	properties  []*shape
}

// Path is the shape's sh:path as written: the IRI, or "" for a node shape.
func (s *shape) pathString() string {
	if s.path.IsZero() {
		return ""
	}
	return s.path.Value
}

// shaclTerms are the predicates SHACL defines (Core and SPARQL) that Compile reads or rejects;
// any other sh: predicate is not SHACL and is ignored.
var shaclTerms = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`targetClass targetNode targetObjectsOf targetSubjectsOf target
		severity message deactivated name description order group defaultValue path property
		class datatype nodeKind minCount maxCount minExclusive minInclusive maxExclusive maxInclusive
		minLength maxLength pattern flags languageIn uniqueLang equals disjoint lessThan
		lessThanOrEquals not and or xone node qualifiedValueShape qualifiedMinCount qualifiedMaxCount
		qualifiedValueShapesDisjoint closed ignoredProperties hasValue in sparql select ask
		declare prefixes rule condition shapesGraph suggestedShapesGraph entailment
		alternativePath inversePath zeroOrMorePath oneOrMorePath zeroOrOnePath
		parameter labelTemplate validator nodeValidator propertyValidator optional
		resultAnnotation annotationProperty annotationValue annotationVarName returnType
		js jsFunctionName jsLibrary jsLibraryURL intersection union filterShape nodes this
		expression values construct update prefix namespace conforms result focusNode resultPath
		resultSeverity resultMessage sourceShape sourceConstraint sourceConstraintComponent value
		detail`) {
		shaclTerms[NS+n] = true
	}
}

// metadata predicates: read elsewhere or without meaning for validation.
var shapeMetadata = map[string]bool{
	NS + "name": true, NS + "description": true, NS + "order": true, NS + "group": true,
	NS + "defaultValue": true, NS + "severity": true, NS + "message": true, NS + "deactivated": true,
	NS + "path": true, NS + "property": true, NS + "targetClass": true, NS + "targetNode": true,
	NS + "targetSubjectsOf": true, NS + "targetObjectsOf": true,
	// parameters read with the constraint they belong to
	NS + "qualifiedMinCount": true, NS + "qualifiedMaxCount": true,
}

type compiler struct {
	g       rdf.Graph
	shapes  map[rdf.Term]*shape
	ignored map[string]bool
}

// Compile reads the shapes graph g (SHACL 2.1: every node with a target, a sh:path, a type
// sh:NodeShape or sh:PropertyShape, or reached from one through sh:property, sh:node, sh:or,
// sh:and or sh:qualifiedValueShape is a shape). It returns an error wrapping ErrUnsupported for
// a feature outside the implemented subset (see the package documentation), naming the shape,
// and a plain error for a malformed shapes graph (a count that is not an integer, a list that is
// not a list, a bad regular expression).
func Compile(g rdf.Graph) (*Shapes, error) {
	c := &compiler{g: g, shapes: map[rdf.Term]*shape{}, ignored: map[string]bool{}}
	var roots []rdf.Term
	seen := map[rdf.Term]bool{}
	add := func(t rdf.Term) {
		if !seen[t] && !t.IsLiteral() {
			seen[t] = true
			roots = append(roots, t)
		}
	}
	for _, p := range []string{"targetClass", "targetNode", "targetSubjectsOf", "targetObjectsOf", "path"} {
		_ = g.Match(rdf.Term{}, rdf.IRI(NS+p), rdf.Term{}, func(t rdf.Triple) error { add(t.S); return nil })
	}
	for _, ty := range []string{"NodeShape", "PropertyShape"} {
		_ = g.Match(rdf.Term{}, rdf.IRI(rdf.RDFType), rdf.IRI(NS+ty), func(t rdf.Triple) error { add(t.S); return nil })
	}
	for _, id := range roots {
		if _, err := c.shape(id); err != nil {
			return nil, err
		}
	}
	s := &Shapes{byID: c.shapes}
	for _, sh := range c.shapes {
		if len(sh.targetClass)+len(sh.targetNode)+len(sh.targetSubjectsOf)+len(sh.targetObjectsOf) > 0 {
			s.targeted = append(s.targeted, sh)
		}
	}
	sort.Slice(s.targeted, func(i, j int) bool { return s.targeted[i].id.NTriples() < s.targeted[j].id.NTriples() })
	for iri := range c.ignored {
		s.ignored = append(s.ignored, iri)
	}
	sort.Strings(s.ignored)
	return s, nil
}

func (c *compiler) objects(s rdf.Term, p string) []rdf.Term {
	var out []rdf.Term
	_ = c.g.Match(s, rdf.IRI(p), rdf.Term{}, func(t rdf.Triple) error { out = append(out, t.O); return nil })
	sort.Slice(out, func(i, j int) bool { return out[i].NTriples() < out[j].NTriples() })
	return out
}

func (c *compiler) one(s rdf.Term, p string) (rdf.Term, error) {
	os := c.objects(s, p)
	switch len(os) {
	case 0:
		return rdf.Term{}, nil
	case 1:
		return os[0], nil
	}
	return rdf.Term{}, fmt.Errorf("shacl: shape %s has %d values of %s, expected one", c.name(s), len(os), short(p))
}

func (c *compiler) name(t rdf.Term) string { return t.NTriples() }

func short(iri string) string {
	if strings.HasPrefix(iri, NS) {
		return "sh:" + iri[len(NS):]
	}
	return "<" + iri + ">"
}

func (c *compiler) list(head rdf.Term) ([]rdf.Term, error) {
	var out []rdf.Term
	seen := map[rdf.Term]bool{}
	for head != rdf.IRI(rdfNil) {
		if seen[head] || head.IsLiteral() {
			return nil, fmt.Errorf("shacl: %s is not a well-formed RDF list", head.NTriples())
		}
		seen[head] = true
		first, err := c.one(head, rdfFirst)
		if err != nil || first.IsZero() {
			return nil, fmt.Errorf("shacl: %s is not a well-formed RDF list", head.NTriples())
		}
		rest, err := c.one(head, rdfRest)
		if err != nil || rest.IsZero() {
			return nil, fmt.Errorf("shacl: %s is not a well-formed RDF list", head.NTriples())
		}
		out = append(out, first)
		head = rest
	}
	return out, nil
}

func (c *compiler) integer(t rdf.Term, id rdf.Term, p string) (int, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(t.Value, "+"))
	if !t.IsLiteral() || err != nil || n < 0 {
		return 0, fmt.Errorf("shacl: shape %s: %s %s is not a non-negative integer", c.name(id), short(p), t.NTriples())
	}
	return n, nil
}

func (c *compiler) shape(id rdf.Term) (*shape, error) {
	if s, ok := c.shapes[id]; ok {
		return s, nil
	}
	if id.IsLiteral() {
		return nil, fmt.Errorf("shacl: literal %s used as a shape", id.NTriples())
	}
	s := &shape{id: id, severity: Violation}
	c.shapes[id] = s // before the recursion: shapes may refer to each other

	preds := map[string]bool{}
	_ = c.g.Match(id, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error { preds[t.P.Value] = true; return nil })
	if c.objectsIs(id, rdf.RDFType, rdfsClass) {
		return nil, fmt.Errorf("%w: implicit class target (shape %s is an rdfs:Class)", ErrUnsupported, c.name(id))
	}
	path, err := c.one(id, NS+"path")
	if err != nil {
		return nil, err
	}
	if !path.IsZero() {
		if !path.IsIRI() {
			return nil, fmt.Errorf("%w: shape %s: sh:path %s is not a predicate path (one IRI)", ErrUnsupported, c.name(id), path.NTriples())
		}
		s.path = path
	}
	if s.severity, err = c.severity(id); err != nil {
		return nil, err
	}
	s.message = pickMessage(c.objects(id, NS+"message"))
	for _, d := range c.objects(id, NS+"deactivated") {
		if d.IsLiteral() && d.Value == "true" {
			s.deactivated = true
		}
	}
	s.targetClass = c.objects(id, NS+"targetClass")
	s.targetNode = c.objects(id, NS+"targetNode")
	s.targetSubjectsOf = c.objects(id, NS+"targetSubjectsOf")
	s.targetObjectsOf = c.objects(id, NS+"targetObjectsOf")

	var ps []string
	for p := range preds {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	for _, p := range ps {
		if !strings.HasPrefix(p, NS) || shapeMetadata[p] {
			continue
		}
		if !shaclTerms[p] {
			c.ignored[p] = true
			continue
		}
		if err := c.constraint(s, p); err != nil {
			return nil, err
		}
	}
	if s.path.IsZero() {
		for _, cons := range s.constraints {
			if cons.kind == cMinCount || cons.kind == cMaxCount || cons.kind == cQualified {
				return nil, fmt.Errorf("shacl: node shape %s has %s, which needs a sh:path", c.name(id), kindNames[cons.kind])
			}
		}
	}
	for _, p := range c.objects(id, NS+"property") {
		ps, err := c.shape(p)
		if err != nil {
			return nil, err
		}
		s.properties = append(s.properties, ps)
	}
	return s, nil
}

// severity is shape id's sh:severity (SHACL 2.1.5): Violation when it has none.
func (c *compiler) severity(id rdf.Term) (Severity, error) {
	sev, err := c.one(id, NS+"severity")
	if err != nil || sev.IsZero() {
		return Violation, err
	}
	switch sev.Value {
	case NS + "Violation":
		return Violation, nil
	case NS + "Warning":
		return Warning, nil
	case NS + "Info":
		return Info, nil
	}
	return Violation, fmt.Errorf("%w: shape %s: sh:severity %s", ErrUnsupported, c.name(id), sev.NTriples())
}

func (c *compiler) objectsIs(s rdf.Term, p, o string) bool {
	found := false
	_ = c.g.Match(s, rdf.IRI(p), rdf.IRI(o), func(rdf.Triple) error { found = true; return nil })
	return found
}

// pickMessage chooses one sh:message: English, else untagged, else the first by tag.
func pickMessage(ms []rdf.Term) string {
	best := -1
	rank := func(t rdf.Term) int {
		switch t.Lang {
		case "en":
			return 0
		case "":
			return 1
		}
		return 2
	}
	for i, m := range ms {
		if m.IsLiteral() && (best < 0 || rank(m) < rank(ms[best])) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return ms[best].Value
}
