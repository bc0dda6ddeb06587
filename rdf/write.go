package rdf

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// WriteNTriples writes ts to w as N-Triples (RDF 1.1 N-Triples), one line each in the given
// order, with Term.NTriples's escaping. It returns w's error.
func WriteNTriples(w io.Writer, ts []Triple) error {
	bw := bufio.NewWriter(w)
	for _, t := range ts {
		if _, err := bw.WriteString(t.NTriples()); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteTurtle writes ts to w as Turtle for people to read (showing a record): the @prefix
// lines of the prefixes used (prefixes maps a prefix name, such as "dcat", to its namespace
// IRI), then one block per subject (subjects sorted, IRIs before blank nodes), rdf:type as
// "a" first, then the other predicates sorted, objects of one predicate joined by ",".
// Literals keep their datatype; blank nodes are written as _:labels, not nested. Duplicate
// triples are written once. It returns w's error.
func WriteTurtle(w io.Writer, ts []Triple, prefixes map[string]string) error {
	names := newTurtleNames(prefixes)
	var body strings.Builder
	names.writeSubjects(&body, sortedUnique(ts))
	var used []string
	for p := range names.used {
		used = append(used, p)
	}
	sort.Strings(used)
	bw := bufio.NewWriter(w)
	for _, p := range used {
		fmt.Fprintf(bw, "@prefix %s: <%s> .\n", p, prefixes[p])
	}
	if len(used) > 0 {
		bw.WriteString("\n")
	}
	bw.WriteString(body.String())
	return bw.Flush()
}

// turtleNames writes terms in Turtle with the prefixes given, recording which were used.
type turtleNames struct {
	nss  []turtleNamespace // longest namespace first, so that the most specific prefix wins
	used map[string]bool
}

type turtleNamespace struct{ prefix, iri string }

func newTurtleNames(prefixes map[string]string) *turtleNames {
	n := &turtleNames{used: map[string]bool{}}
	for p, iri := range prefixes {
		n.nss = append(n.nss, turtleNamespace{p, iri})
	}
	sort.Slice(n.nss, func(i, j int) bool {
		if len(n.nss[i].iri) != len(n.nss[j].iri) {
			return len(n.nss[i].iri) > len(n.nss[j].iri)
		}
		return n.nss[i].prefix < n.nss[j].prefix
	})
	return n
}

// iri writes v as a prefixed name when a prefix's namespace starts it and the rest needs no
// escape, else as <v>.
func (n *turtleNames) iri(v string) string {
	for _, ns := range n.nss {
		if local, ok := strings.CutPrefix(v, ns.iri); ok && ns.iri != "" && isSimpleLocal(local) {
			n.used[ns.prefix] = true
			return ns.prefix + ":" + local
		}
	}
	var b strings.Builder
	writeIRI(&b, v)
	return b.String()
}

// term writes t: an IRI as iri does, a literal quoted with its language or datatype, a blank
// node as _:label.
func (n *turtleNames) term(t Term) string {
	switch t.Kind {
	case KindIRI:
		return n.iri(t.Value)
	case KindLiteral:
		var b strings.Builder
		writeQuoted(&b, t.Value)
		switch {
		case t.Lang != "":
			return b.String() + "@" + t.Lang
		case t.Datatype != "":
			return b.String() + "^^" + n.iri(t.Datatype)
		}
		return b.String()
	}
	return t.NTriples()
}

// writeSubjects writes ts, sorted and unique, one block per subject.
func (n *turtleNames) writeSubjects(body *strings.Builder, ts []Triple) {
	for i := 0; i < len(ts); {
		s := ts[i].S
		if i > 0 {
			body.WriteString("\n")
		}
		body.WriteString(n.term(s))
		first := true
		for i < len(ts) && ts[i].S == s {
			p := ts[i].P
			if first {
				body.WriteString(" ")
			} else {
				body.WriteString(" ;\n    ")
			}
			first = false
			if p.Value == RDFType {
				body.WriteString("a")
			} else {
				body.WriteString(n.term(p))
			}
			sep := " "
			for i < len(ts) && ts[i].S == s && ts[i].P == p {
				body.WriteString(sep)
				body.WriteString(n.term(ts[i].O))
				sep = ", "
				i++
			}
		}
		body.WriteString(" .\n")
	}
}

// isSimpleLocal reports whether s can be written after "prefix:" without escapes: PN_CHARS
// (letters, digits, '_', '-') with inner '.', not starting with '-' or '.'.
func isSimpleLocal(s string) bool {
	if s == "" {
		return true
	}
	rs := []rune(s)
	if !isPNCharsU(rs[0]) && !isDigit(rs[0]) {
		return false
	}
	for i, c := range rs {
		if !isPNChars(c) && !(c == '.' && i > 0 && i < len(rs)-1) {
			return false
		}
	}
	return true
}

// sortedUnique returns ts sorted for WriteTurtle (IRI subjects before blank nodes, rdf:type
// first), without duplicates. ts is not changed. Each term's N-Triples key is computed once.
func sortedUnique(ts []Triple) []Triple {
	type keyed struct {
		t      Triple
		sk, ok string
	}
	out := make([]keyed, 0, len(ts))
	seen := make(map[Triple]struct{}, len(ts))
	for _, t := range ts {
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			out = append(out, keyed{t: t, sk: t.S.NTriples(), ok: t.O.NTriples()})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.t.S != b.t.S {
			if a.t.S.Kind != b.t.S.Kind {
				return a.t.S.Kind < b.t.S.Kind
			}
			return a.sk < b.sk
		}
		if a.t.P != b.t.P {
			if (a.t.P.Value == RDFType) != (b.t.P.Value == RDFType) {
				return a.t.P.Value == RDFType
			}
			return a.t.P.Value < b.t.P.Value
		}
		return a.ok < b.ok
	})
	res := make([]Triple, len(out))
	for i := range out {
		res[i] = out[i].t
	}
	return res
}

// CanonicalNQuads returns ts in canonical N-Quads: the RDF Dataset Canonicalization algorithm
// URDNA2015 (W3C RDFC-1.0) as github.com/piprate/json-gold implements it, all triples in the
// default graph, blank nodes relabelled _:c14n0, _:c14n1…, one line per distinct triple,
// lines sorted, each ending in "\n" (a triple given twice is one line: json-gold wrote it
// twice). Two graphs give the same bytes exactly when they are isomorphic (the same up to blank
// node labels). Generalized RDF (a literal subject or a non-IRI predicate) is an error, and so is
// a graph past MaxCanonicalPermutations (an error wrapping ErrCanonicalTooComplex), whose
// canonicalization could take hours.
func CanonicalNQuads(ts []Triple) ([]byte, error) {
	ts = distinctTriples(ts)
	if err := checkCanonicalWork(ts); err != nil {
		return nil, err
	}
	ds := ld.NewRDFDataset()
	quads := make([]*ld.Quad, 0, len(ts))
	for _, t := range ts {
		if !(t.S.IsIRI() || t.S.IsBlank()) || !t.P.IsIRI() || t.O.IsZero() {
			return nil, fmt.Errorf("rdf: canonical N-Quads: not an RDF triple: %s", t.NTriples())
		}
		quads = append(quads, ld.NewQuad(toLD(t.S), toLD(t.P), toLD(t.O), "@default"))
	}
	ds.Graphs["@default"] = quads
	opts := ld.NewJsonLdOptions("")
	opts.Algorithm = ld.AlgorithmURDNA2015
	opts.Format = "application/n-quads"
	opts.DocumentLoader = noRemoteLoader{}
	out, err := ld.NewJsonLdApi().Normalize(ds, opts)
	if err != nil {
		return nil, fmt.Errorf("rdf: canonical N-Quads: %w", err)
	}
	s, ok := out.(string)
	if !ok {
		return nil, fmt.Errorf("rdf: canonical N-Quads: json-gold returned %T", out)
	}
	return []byte(s), nil
}

func toLD(t Term) ld.Node {
	switch t.Kind {
	case KindIRI:
		return ld.NewIRI(t.Value)
	case KindBlank:
		return ld.NewBlankNode("_:" + t.Value)
	}
	dt := t.Datatype
	switch {
	case t.Lang != "":
		dt = RDFLangString
	case dt == "":
		dt = XSDString
	}
	return ld.NewLiteral(t.Value, dt, t.Lang)
}

// distinctTriples returns ts without repeats, in first-seen order.
func distinctTriples(ts []Triple) []Triple {
	seen := make(map[Triple]bool, len(ts))
	out := make([]Triple, 0, len(ts))
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
