package profiles_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl"
	"github.com/harvester-dev/harvester/shacl/profiles"
)

// vocabulary is what random data graphs are made of: the classes, predicates, values and
// datatypes the profiles' shapes name (so random triples reach their constraints), plus a few
// nodes of each kind.
type vocabulary struct {
	nodes, preds, datatypes []rdf.Term
}

func profileVocabulary(t testing.TB) vocabulary {
	var v vocabulary
	seen := map[rdf.Term]bool{}
	add := func(list *[]rdf.Term, x rdf.Term) {
		if !seen[x] && !x.IsZero() {
			seen[x] = true
			*list = append(*list, x)
		}
	}
	for _, name := range profiles.Names() {
		g, err := profiles.Graph(name)
		if err != nil {
			t.Fatal(err)
		}
		_ = g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
			switch tr.P.Value {
			case shacl.NS + "targetClass", shacl.NS + "class", shacl.NS + "hasValue":
				add(&v.nodes, tr.O)
			case shacl.NS + "path", shacl.NS + "targetObjectsOf", shacl.NS + "targetSubjectsOf":
				add(&v.preds, tr.O)
			case shacl.NS + "datatype":
				add(&v.datatypes, tr.O)
			}
			return nil
		})
	}
	for _, l := range []string{"a", "b", "c"} {
		add(&v.nodes, rdf.Blank(l))
		add(&v.nodes, rdf.IRI("http://example.org/"+l))
	}
	add(&v.preds, rdf.IRI(rdf.RDFType))
	add(&v.preds, rdf.IRI("http://www.w3.org/2000/01/rdf-schema#subClassOf"))
	for _, l := range [][]rdf.Term{v.nodes, v.preds, v.datatypes} {
		sort.Slice(l, func(i, j int) bool { return l[i].NTriples() < l[j].NTriples() })
	}
	return v
}

var lexicals = []string{"", "x", "2020-01-01", "2020-13-01", "2020-01-01T10:00:00Z", "P1Y", "PT", "1.5", "-1", "0FB7", "2020", "^http://eurovoc"}

// dataGraph turns fuzz input into a data graph: each 3 bytes are one triple (subject, predicate,
// object from the vocabulary; an object byte with the high bit set is a literal whose datatype,
// language and lexical form come from the byte).
func dataGraph(v vocabulary, b []byte) *rdf.MemGraph {
	g := rdf.NewMemGraph()
	for i := 0; i+2 < len(b) && i < 3*400; i += 3 {
		s := v.nodes[int(b[i])%len(v.nodes)]
		if s.IsLiteral() {
			continue
		}
		p := v.preds[int(b[i+1])%len(v.preds)]
		var o rdf.Term
		if c := b[i+2]; c&0x80 != 0 {
			lex := lexicals[int(c&0x0f)%len(lexicals)]
			switch k := int(c>>4) & 0x7; {
			case k == 0:
				o = rdf.Literal(lex, "", "en")
			case k == 1:
				o = rdf.Literal(lex, "", "")
			default:
				o = rdf.Literal(lex, v.datatypes[k%len(v.datatypes)].Value, "")
			}
		} else {
			o = v.nodes[int(c)%len(v.nodes)]
		}
		_ = g.Add(rdf.Triple{S: s, P: p, O: o})
	}
	return g
}

// FuzzValidate validates random data graphs against every compiled profile: no panic, it
// terminates, and the report is consistent (Conforms exactly when there is no result; every
// result has a focus node, a severity and a constraint).
func FuzzValidate(f *testing.F) {
	v := profileVocabulary(f)
	var shapes []*shacl.Shapes
	for _, name := range profiles.Names() {
		s, err := profiles.Load(name)
		if err != nil {
			f.Fatal(err)
		}
		shapes = append(shapes, s)
	}
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 201, 202, 0x90, 0xa1, 0xb2})
	seed := make([]byte, 300)
	for i := range seed {
		seed[i] = byte(i * 37)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		g := dataGraph(v, b)
		for _, s := range shapes {
			r := s.Validate(g)
			if r.Conforms != (len(r.Results) == 0) {
				t.Fatalf("Conforms %v with %d results", r.Conforms, len(r.Results))
			}
			for _, x := range r.Results {
				if x.Focus.IsZero() || x.Severity == 0 || x.Constraint == "" || x.SourceShape.IsZero() {
					t.Fatalf("incomplete result %+v", x)
				}
			}
		}
	})
}

// BenchmarkValidateRecord is the cost of validating one corpus dataset record (the first of
// 10 to 60 triples: a demo.ckan.org dataset) against each profile.
func BenchmarkValidateRecord(b *testing.B) {
	graphs, _ := corpusGraphs(b)
	var rec corpusGraph
	for _, g := range graphs {
		if strings.Contains(g.name, "#") && len(g.triples) > 10 && len(g.triples) < 60 {
			rec = g
			break
		}
	}
	if rec.triples == nil {
		b.Fatal("no record graph")
	}
	b.Logf("%s: %d triples", rec.name, len(rec.triples))
	for _, name := range profiles.Names() {
		s, err := profiles.Load(name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			g := rdf.NewMemGraph()
			for _, tr := range rec.triples {
				_ = g.Add(tr)
			}
			b.ReportAllocs()
			for b.Loop() {
				s.Validate(g)
			}
		})
	}
}
