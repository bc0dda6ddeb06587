package dcatap

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/harvester-dev/harvester/rdf"
)

// fuzzGraph builds a small graph from data: each 3 bytes are one triple over 4 blank nodes, 2
// IRIs, 3 predicates and 3 literals, so cycles, self-loops, shared and identical blank nodes
// all come up.
func fuzzGraph(data []byte, label func(int) string) []rdf.Triple {
	node := func(b byte, objects bool) rdf.Term {
		n := int(b) % 6
		if objects {
			n = int(b) % 9
		}
		switch {
		case n < 4:
			return rdf.Blank(label(n))
		case n < 6:
			return rdf.IRI(fmt.Sprintf("http://ex.org/i%d", n-4))
		case n == 6:
			return rdf.Literal("1", "", "")
		case n == 7:
			return rdf.Literal("1", "", "en")
		default:
			return rdf.Literal("1", "http://www.w3.org/2001/XMLSchema#integer", "")
		}
	}
	var ts []rdf.Triple
	for i := 0; i+2 < len(data) && len(ts) < 40; i += 3 {
		ts = append(ts, rdf.Triple{
			S: node(data[i], false),
			P: rdf.IRI(fmt.Sprintf("http://ex.org/p%d", data[i+1]%3)),
			O: node(data[i+2], true),
		})
	}
	return ts
}

// Skolemize + Canonical never panic, always end, leave no blank node, and give the same
// N-Quads (and GraphHash the same value) whatever the blank labels and the triples' order.
func FuzzSkolemizeCanonical(f *testing.F) {
	f.Add([]byte{0, 0, 1, 1, 0, 0}, byte(1))                   // two-cycle
	f.Add([]byte{0, 0, 0, 0, 1, 6}, byte(2))                   // self-loop with a value
	f.Add([]byte{4, 0, 0, 4, 0, 1, 0, 1, 6, 1, 1, 6}, byte(3)) // identical subtrees
	f.Add([]byte{0, 0, 1, 1, 0, 2, 2, 0, 0, 0, 1, 6, 1, 1, 7, 2, 1, 8, 3, 2, 0}, byte(0))
	f.Fuzz(func(t *testing.T, data []byte, shift byte) {
		plain := func(n int) string { return fmt.Sprintf("b%d", n) }
		other := func(n int) string { return fmt.Sprintf("x%d", (n+int(shift))%4) }
		ts := fuzzGraph(data, plain)
		us := fuzzGraph(data, other)
		for i, j := 0, len(us)-1; i < j; i, j = i+1, j-1 {
			us[i], us[j] = us[j], us[i]
		}
		sk := Skolemize(owner, ts)
		for _, tr := range sk {
			if tr.S.IsBlank() || tr.O.IsBlank() {
				t.Fatalf("blank node left: %s", tr.NTriples())
			}
		}
		a, ha, err := Canonical(sk)
		if err != nil {
			t.Fatal(err)
		}
		b, hb, err := Canonical(Skolemize(owner, us))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) || ha != hb {
			t.Fatalf("relabelled graph gives other N-Quads:\n%s\n---\n%s", a, b)
		}
		if again := Skolemize(owner, sk); len(again) != len(sk) {
			t.Fatalf("skolemizing a graph without blank nodes changed it")
		}
		checkNoFalseMerge(t, ts)
		ga, err := GraphHash(graphFrom(ts))
		if err != nil {
			t.Fatal(err)
		}
		gb, err := GraphHash(graphFrom(us))
		if err != nil {
			t.Fatal(err)
		}
		if ga != gb {
			t.Fatalf("relabelled graph gives another GraphHash")
		}
	})
}

func graphFrom(ts []rdf.Triple) rdf.Graph {
	g := rdf.NewMemGraph()
	for _, tr := range ts {
		_ = g.Add(tr)
	}
	return g
}

// checkNoFalseMerge fails when two blank nodes that are not bisimilar get one content hash.
// The oracle is plain partition refinement over all blank nodes at once, with signatures as
// strings: slow and obviously right, unlike the per-component hashing it checks.
func checkNoFalseMerge(t *testing.T, ts []rdf.Triple) {
	out := map[rdf.Term][]rdf.Triple{}
	nodes := map[rdf.Term]bool{}
	for _, tr := range ts {
		for _, x := range []rdf.Term{tr.S, tr.O} {
			if x.IsBlank() {
				nodes[x] = true
			}
		}
		if tr.S.IsBlank() {
			out[tr.S] = append(out[tr.S], tr)
		}
	}
	class := map[rdf.Term]int{}
	for n := range nodes {
		class[n] = 0
	}
	count := 1
	for {
		ids := map[string]int{}
		next := map[rdf.Term]int{}
		for n := range nodes {
			var lines []string
			for _, tr := range out[n] {
				o := tr.O.NTriples()
				if tr.O.IsBlank() {
					o = fmt.Sprintf("B%d", class[tr.O])
				}
				lines = append(lines, tr.P.Value+"|"+o)
			}
			slices.Sort(lines)
			lines = slices.Compact(lines)
			sig := fmt.Sprintf("%d:%s", class[n], strings.Join(lines, ","))
			if _, ok := ids[sig]; !ok {
				ids[sig] = len(ids)
			}
			next[n] = ids[sig]
		}
		class = next
		if len(ids) == count {
			break
		}
		count = len(ids)
	}
	h := newBlankHasher(func(b rdf.Term) ([]rdf.Triple, error) { return out[b], nil })
	byHash := map[digest]rdf.Term{}
	for n := range nodes {
		d, _ := h.hash(n)
		if m, ok := byHash[d]; ok && class[m] != class[n] {
			t.Fatalf("%s and %s are not bisimilar but share a hash in\n%s", m, n, ntriples(ts))
		}
		byHash[d] = n
	}
}
