package dcatap

import "github.com/harvester-dev/harvester/rdf"

// graphScan reads GraphHash's graph with its blank nodes' numbers: the graph's own when it
// numbers them (rdf.BlankIDMatcher: NewGraph's graph spilled to disk, which interns every term
// already), else the interner's, which numbers the labels in a table of its own (about 20 bytes
// and the label's bytes a node).
type graphScan struct {
	g   rdf.Graph
	in  *interner
	ids rdf.BlankIDMatcher // nil: the interner numbers the labels
}

func newGraphScan(g rdf.Graph, in *interner) *graphScan {
	s := &graphScan{g: g, in: in}
	s.ids, _ = g.(rdf.BlankIDMatcher)
	return s
}

// match walks the triples of blank node subject (every triple when subject < 0), as g.Match
// does, giving fn each with its subject's and object's numbers (-1: not a blank node), which
// it numbers in in as it goes. Every blank node is numbered once a scan of every triple ended.
func (s *graphScan) match(subject int32, fn func(t rdf.Triple, sub, obj int32) error) error {
	in := s.in
	if s.ids != nil {
		ok, err := s.ids.MatchBlankIDs(subject, func(t rdf.Triple, sub, obj int32) error {
			in.see(sub)
			in.see(obj)
			return fn(t, sub, obj)
		})
		if ok || err != nil {
			return err
		}
		s.ids = nil // g does not number its blank nodes (in memory): nothing was walked
	}
	number := func(t rdf.Term) int32 {
		if !t.IsBlank() {
			return -1
		}
		return in.blankID(t.Value)
	}
	var pattern rdf.Term
	if subject >= 0 {
		pattern = rdf.Blank(in.label(subject))
	}
	return s.g.Match(pattern, rdf.Term{}, rdf.Term{}, func(t rdf.Triple) error {
		sub := number(t.S)
		return fn(t, sub, number(t.O))
	})
}
