package shacl

import (
	"fmt"
	"regexp"

	"github.com/harvester-dev/harvester/rdf"
)

// constraint compiles the constraint parameter p of shape s (every value of p is one
// constraint, SHACL 2.1.4 / 4).
func (c *compiler) constraint(s *shape, p string) error {
	id := s.id
	vals := c.objects(id, p)
	for _, v := range vals {
		var cons constraint
		switch p {
		case NS + "minCount", NS + "maxCount":
			n, err := c.integer(v, id, p)
			if err != nil {
				return err
			}
			cons = constraint{kind: cMinCount, n: n}
			if p == NS+"maxCount" {
				cons.kind = cMaxCount
			}
		case NS + "class":
			cons = constraint{kind: cClass, term: v}
		case NS + "datatype":
			if !v.IsIRI() {
				return fmt.Errorf("shacl: shape %s: sh:datatype %s is not an IRI", c.name(id), v.NTriples())
			}
			cons = constraint{kind: cDatatype, term: v}
		case NS + "nodeKind":
			nk, ok := nodeKinds[v.Value]
			if !v.IsIRI() || !ok {
				return fmt.Errorf("shacl: shape %s: sh:nodeKind %s is not a node kind", c.name(id), v.NTriples())
			}
			cons = constraint{kind: cNodeKind, nodeKind: nk}
		case NS + "hasValue":
			cons = constraint{kind: cHasValue, term: v}
		case NS + "pattern":
			if len(c.objects(id, NS+"flags")) > 0 {
				return fmt.Errorf("%w: shape %s: sh:flags", ErrUnsupported, c.name(id))
			}
			re, err := regexp.Compile(v.Value)
			if err != nil || !v.IsLiteral() {
				return fmt.Errorf("shacl: shape %s: sh:pattern %s: not a regular expression Go accepts: %v", c.name(id), v.NTriples(), err)
			}
			cons = constraint{kind: cPattern, re: re}
		case NS + "node", NS + "qualifiedValueShape":
			var err error
			if cons, err = c.nodeConstraint(id, p, v); err != nil {
				return err
			}
		case NS + "or", NS + "and":
			var err error
			if cons, err = c.logicalConstraint(id, p, v); err != nil {
				return err
			}
		case NS + "closed":
			if v.IsLiteral() && v.Value == "false" {
				continue
			}
			return fmt.Errorf("%w: shape %s: sh:closed %s", ErrUnsupported, c.name(id), v.NTriples())
		default:
			return fmt.Errorf("%w: shape %s uses %s", ErrUnsupported, c.name(id), short(p))
		}
		s.constraints = append(s.constraints, cons)
	}
	return nil
}

// nodeConstraint compiles sh:node or sh:qualifiedValueShape v of shape id (SHACL 4.5.2, 4.7.3)
// with, for the latter, its sh:qualifiedMinCount and sh:qualifiedMaxCount (-1 when absent).
func (c *compiler) nodeConstraint(id rdf.Term, p string, v rdf.Term) (constraint, error) {
	sub, err := c.shape(v)
	if err != nil {
		return constraint{}, err
	}
	cons := constraint{kind: cNode, shapes: []*shape{sub}}
	if p != NS+"qualifiedValueShape" {
		return cons, nil
	}
	if len(c.objects(id, NS+"qualifiedValueShapesDisjoint")) > 0 {
		return constraint{}, fmt.Errorf("%w: shape %s: sh:qualifiedValueShapesDisjoint", ErrUnsupported, c.name(id))
	}
	cons.kind, cons.qMin, cons.qMax = cQualified, -1, -1
	for _, q := range []struct {
		p   string
		dst *int
	}{{NS + "qualifiedMinCount", &cons.qMin}, {NS + "qualifiedMaxCount", &cons.qMax}} {
		t, err := c.one(id, q.p)
		if err != nil {
			return constraint{}, err
		}
		if !t.IsZero() {
			if *q.dst, err = c.integer(t, id, q.p); err != nil {
				return constraint{}, err
			}
		}
	}
	return cons, nil
}

// logicalConstraint compiles sh:or or sh:and v of shape id: a list of shapes (SHACL 4.6).
func (c *compiler) logicalConstraint(id rdf.Term, p string, v rdf.Term) (constraint, error) {
	members, err := c.list(v)
	if err != nil {
		return constraint{}, fmt.Errorf("shacl: shape %s: %s: %w", c.name(id), short(p), err)
	}
	cons := constraint{kind: cOr}
	if p == NS+"and" {
		cons.kind = cAnd
	}
	for _, m := range members {
		sub, err := c.shape(m)
		if err != nil {
			return constraint{}, err
		}
		cons.shapes = append(cons.shapes, sub)
	}
	return cons, nil
}
