package rdf

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
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

type turtleNamespace struct {
	prefix, iri string
	used        bool // a name was written with it since used was last gathered
}

func newTurtleNames(prefixes map[string]string) *turtleNames {
	n := &turtleNames{used: map[string]bool{}}
	for p, iri := range prefixes {
		if iri == "" {
			continue // no IRI is written with it
		}
		n.nss = append(n.nss, turtleNamespace{prefix: p, iri: iri})
	}
	sort.Slice(n.nss, func(i, j int) bool {
		if len(n.nss[i].iri) != len(n.nss[j].iri) {
			return len(n.nss[i].iri) > len(n.nss[j].iri)
		}
		return n.nss[i].prefix < n.nss[j].prefix
	})
	return n
}

// gatherUsed records in used the prefixes written with since the last call.
func (n *turtleNames) gatherUsed() {
	for i := range n.nss {
		if n.nss[i].used {
			n.used[n.nss[i].prefix] = true
			n.nss[i].used = false
		}
	}
}

// writeIRI writes v as a prefixed name when a prefix's namespace starts it and the rest needs
// no escape, else as <v>.
func (n *turtleNames) writeIRI(b *strings.Builder, v string) {
	for i := range n.nss {
		ns := &n.nss[i]
		if len(v) < len(ns.iri) || v[:len(ns.iri)] != ns.iri {
			continue
		}
		if local := v[len(ns.iri):]; isSimpleLocal(local) {
			ns.used = true
			b.WriteString(ns.prefix)
			b.WriteByte(':')
			b.WriteString(local)
			return
		}
	}
	writeIRI(b, v)
}

// writeTerm writes t: an IRI as writeIRI does, a literal quoted with its language or
// datatype, a blank node as _:label.
func (n *turtleNames) writeTerm(b *strings.Builder, t Term) {
	switch t.Kind {
	case KindIRI:
		n.writeIRI(b, t.Value)
	case KindLiteral:
		writeQuoted(b, t.Value)
		switch {
		case t.Lang != "":
			b.WriteByte('@')
			b.WriteString(t.Lang)
		case t.Datatype != "":
			b.WriteString("^^")
			n.writeIRI(b, t.Datatype)
		}
	default:
		t.writeNTriples(b)
	}
}

// writeSubjects writes ts, sorted and unique, one block per subject.
func (n *turtleNames) writeSubjects(body *strings.Builder, ts []Triple) {
	for i := 0; i < len(ts); {
		s := ts[i].S
		if i > 0 {
			body.WriteString("\n")
		}
		n.writeTerm(body, s)
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
				n.writeTerm(body, p)
			}
			sep := " "
			for i < len(ts) && ts[i].S == s && ts[i].P == p {
				body.WriteString(sep)
				n.writeTerm(body, ts[i].O)
				sep = ", "
				i++
			}
		}
		body.WriteString(" .\n")
	}
	n.gatherUsed()
}

// isSimpleLocal reports whether s can be written after "prefix:" without escapes: PN_CHARS
// (letters, digits, '_', '-') with inner '.', not starting with '-' or '.'.
func isSimpleLocal(s string) bool {
	for i, c := range s {
		switch {
		case i == 0 && !isPNCharsU(c) && !isDigit(c):
			return false
		case c == '.':
			if i == len(s)-1 {
				return false
			}
		case !isPNChars(c):
			return false
		}
	}
	return true
}

// sortedUnique returns ts sorted for WriteTurtle (IRI subjects before blank nodes, rdf:type
// first, subjects and objects in the order of their N-Triples), without duplicates. ts is not
// changed. A subject's N-Triples key is computed once per run of triples that share it, an
// object's only where two triples share subject and predicate.
func sortedUnique(ts []Triple) []Triple {
	if len(ts) == 0 {
		return nil
	}
	sk := make([]string, len(ts)) // the subject's key, by index in ts
	for i := range ts {
		if i > 0 && ts[i].S == ts[i-1].S {
			sk[i] = sk[i-1]
		} else {
			sk[i] = ts[i].S.NTriples()
		}
	}
	idx := make([]int32, len(ts))
	for i := range idx {
		idx[i] = int32(i)
	}
	// By subject, then predicate; ties (a predicate with several objects) by index for now.
	slices.SortFunc(idx, func(x, y int32) int {
		a, b := &ts[x], &ts[y]
		if a.S.Kind != b.S.Kind {
			return cmp.Compare(a.S.Kind, b.S.Kind)
		}
		if c := strings.Compare(sk[x], sk[y]); c != 0 {
			return c
		}
		if a.P.Value != b.P.Value {
			if at, bt := a.P.Value == RDFType, b.P.Value == RDFType; at != bt {
				if at {
					return -1
				}
				return 1
			}
			return strings.Compare(a.P.Value, b.P.Value)
		}
		return cmp.Compare(x, y)
	})
	out := make([]Triple, 0, len(ts))
	var ok []string
	for lo := 0; lo < len(idx); {
		hi := lo + 1
		for hi < len(idx) && ts[idx[hi]].P.Value == ts[idx[lo]].P.Value && sk[idx[hi]] == sk[idx[lo]] &&
			ts[idx[hi]].S.Kind == ts[idx[lo]].S.Kind {
			hi++
		}
		run := idx[lo:hi]
		if len(run) > 1 { // the objects in the order of their N-Triples, each once
			ok = ok[:0]
			for _, i := range run {
				ok = append(ok, ts[i].O.NTriples())
			}
			order := make([]int, len(run))
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(ok[a], ok[b]) })
			for k, o := range order {
				if k > 0 && ok[o] == ok[order[k-1]] && ts[run[o]] == ts[run[order[k-1]]] {
					continue
				}
				out = append(out, ts[run[o]])
			}
		} else {
			out = append(out, ts[run[0]])
		}
		lo = hi
	}
	return out
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
