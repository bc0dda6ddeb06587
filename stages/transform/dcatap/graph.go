package dcatap

import (
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/rdf"
)

// graph is the record graph with the language preference, read by the mapping.
type graph struct {
	g     *rdf.MemGraph
	langs []string
}

// objects returns the objects of (s, p), in N-Triples order so every choice is deterministic
// whatever order the triples came in.
func (g *graph) objects(s rdf.Term, p string) []rdf.Term {
	var out []rdf.Term
	_ = g.g.Match(s, rdf.IRI(p), rdf.Term{}, func(t rdf.Triple) error {
		out = append(out, t.O)
		return nil
	})
	slices.SortFunc(out, func(a, b rdf.Term) int { return strings.Compare(a.NTriples(), b.NTriples()) })
	return out
}

// has reports whether s is the subject of any triple.
func (g *graph) has(s rdf.Term) bool {
	found := false
	_ = g.g.Match(s, rdf.Term{}, rdf.Term{}, func(rdf.Triple) error {
		found = true
		return errStop
	})
	return found
}

// literal picks one literal among the objects of (s, p) for each of props in turn (the first
// property that has any literal wins): see pick.
func (g *graph) literal(s rdf.Term, props ...string) string {
	for _, p := range props {
		if v, ok := g.pick(g.objects(s, p)); ok {
			return v
		}
	}
	return ""
}

// pick chooses one literal of ts by the language preference: the first literal (in sorted
// order) tagged with the first preferred language that any literal has (a preference "en"
// matches "en" and "en-GB", RFC 4647 basic filtering); else the first untagged literal; else
// the first literal by language tag, then value. Non-literals are ignored; ok is false when
// ts has no non-empty literal.
func (g *graph) pick(ts []rdf.Term) (string, bool) {
	lits := literals(ts)
	if len(lits) == 0 {
		return "", false
	}
	for _, want := range g.langs {
		for _, l := range lits {
			if langMatches(l.Lang, want) {
				return l.Value, true
			}
		}
	}
	for _, l := range lits {
		if l.Lang == "" {
			return l.Value, true
		}
	}
	slices.SortFunc(lits, func(a, b rdf.Term) int {
		if c := strings.Compare(a.Lang, b.Lang); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return lits[0].Value, true
}

// keywords returns the keywords to keep from ts: those tagged with the first preferred
// language any of them has, plus the untagged ones; when none is tagged with a preferred
// language, all of them. Trimmed, duplicates dropped, in sorted order.
func (g *graph) keywords(ts []rdf.Term) []string {
	lits := literals(ts)
	chosen := ""
	for _, want := range g.langs {
		if slices.ContainsFunc(lits, func(l rdf.Term) bool { return langMatches(l.Lang, want) }) {
			chosen = want
			break
		}
	}
	var out []string
	for _, l := range lits {
		if chosen == "" || l.Lang == "" || langMatches(l.Lang, chosen) {
			out = append(out, l.Value)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// literals returns the literals of ts with surrounding white space trimmed, empty ones dropped.
func literals(ts []rdf.Term) []rdf.Term {
	var out []rdf.Term
	for _, t := range ts {
		if t.IsLiteral() {
			t.Value = strings.TrimSpace(t.Value)
			if t.Value != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// langMatches reports whether the (lower-cased) tag matches the preference want: equal, or
// want followed by '-' (RFC 4647 §3.3.1 basic filtering; "*" matches any tagged literal).
func langMatches(tag, want string) bool {
	want = strings.ToLower(strings.TrimSpace(want))
	if tag == "" || want == "" {
		return false
	}
	return want == "*" || tag == want || strings.HasPrefix(tag, want+"-")
}

// named reports whether t is an IRI the publisher gave: not a skolem IRI standing for a blank
// node.
func named(t rdf.Term) bool {
	return t.IsIRI() && !strings.Contains(t.Value, skolemPath) && !strings.Contains(t.Value, fdkSkolemPath)
}

// firstNamed returns the first named IRI of ts and how many named IRIs there are.
func firstNamed(ts []rdf.Term) (string, int) {
	first, n := "", 0
	for _, t := range ts {
		if named(t) {
			if n == 0 {
				first = t.Value
			}
			n++
		}
	}
	return first, n
}
