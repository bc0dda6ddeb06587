package dcatap

import (
	"errors"

	"github.com/harvester-dev/harvester/rdf"
)

// termNumbers numbers the terms of a graph that does not number its own (rdf.IDGraph: an
// in-memory graph) as Split meets them, so that Split walks every graph by ids. It holds each
// term met once, as the graph it reads already does.
type termNumbers struct {
	g     rdf.Graph
	ids   map[rdf.Term]uint32
	terms []rdf.Term
}

func newTermNumbers(g rdf.Graph) *termNumbers {
	return &termNumbers{g: g, ids: map[rdf.Term]uint32{}}
}

// number returns t's number, numbering it when new.
func (n *termNumbers) number(t rdf.Term) uint32 {
	if id, ok := n.ids[t]; ok {
		return id
	}
	id := uint32(len(n.terms))
	n.ids[t] = id
	n.terms = append(n.terms, t)
	return id
}

// TermID numbers t whether or not the graph has it (a pattern naming a term the graph does not
// have matches nothing all the same).
func (n *termNumbers) TermID(t rdf.Term) (uint32, bool, error) { return n.number(t), true, nil }

var errNoNumber = errors.New("dcatap: no term with that number")

func (n *termNumbers) TermOf(id uint32) (rdf.Term, error) {
	if int64(id) >= int64(len(n.terms)) {
		return rdf.Term{}, errNoNumber
	}
	return n.terms[id], nil
}

func (n *termNumbers) MatchIDs(s, p, o uint32, fn func(rdf.IDTriple) error) error {
	var pattern [3]rdf.Term
	for i, id := range [3]uint32{s, p, o} {
		if id == rdf.NoID {
			continue
		}
		if int64(id) >= int64(len(n.terms)) {
			return errNoNumber
		}
		pattern[i] = n.terms[id]
	}
	return n.g.Match(pattern[0], pattern[1], pattern[2], func(t rdf.Triple) error {
		return fn(rdf.IDTriple{S: n.number(t.S), P: n.number(t.P), O: n.number(t.O)})
	})
}

func (n *termNumbers) DropTermIndex() {}
