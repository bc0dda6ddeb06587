package dcatap

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/rdf"
)

// genidBase returns what a record's skolem IRIs start with, before GenidPath: the scheme and
// authority of the record's IRI owner ("https://data.example.no" for
// https://data.example.no/catalog#ds1), as RDF 1.1 Concepts §3.5 recommends
// (https://example.com/.well-known/genid/…). An IRI without an authority (a URN) keeps the
// form of earlier releases, the IRI itself without a trailing "/".
func genidBase(owner string) string {
	if base, ok := authority(owner); ok {
		return base
	}
	return legacyGenidBase(owner)
}

// legacyGenidBase is what skolem IRIs started with before they moved to the authority: the
// record's IRI without a trailing "/" (so a fragment IRI put them in its fragment). Stored
// source_hashes are of that form.
func legacyGenidBase(owner string) string { return strings.TrimSuffix(owner, "/") }

// authority returns "scheme://authority" of iri (RFC 3986 §3: a scheme, "//", then up to the
// first "/", "?" or "#"), and false when iri has none or it is empty.
func authority(iri string) (string, bool) {
	scheme, rest, ok := strings.Cut(iri, "://")
	if !ok || scheme == "" || !isScheme(scheme) {
		return "", false
	}
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	if end == 0 {
		return "", false
	}
	return scheme + "://" + rest[:end], true
}

func isScheme(s string) bool {
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// SourceHash returns a DCAT-AP record's source_hash (64 lower-case hex digits): SHA-256 of its
// canonical N-Quads nquads (Canonical of the Skolemize'd graph of the record identifier) with
// every skolem IRI written in the form of earlier releases, <identifier>/.well-known/genid/<hash>,
// and the lines sorted again. Skolem IRIs moved to the authority (genidBase) without changing
// their hash part, so the source_hash of an unchanged record is the one stored before the move
// and no stored record reads as updated. When identifier has no authority, or nquads holds no
// skolem IRI, this is SHA-256 of nquads. An IRI written by the publisher exactly in the skolem
// form of the record's authority (a GenidPath and 32 hex digits) is taken as one.
func SourceHash(identifier string, nquads []byte) string {
	// As N-Triples writes them: an IRI with a space has \u0020.
	from := strings.TrimSuffix(rdf.IRI(genidBase(identifier)+GenidPath).NTriples(), ">")
	to := strings.TrimSuffix(rdf.IRI(legacyGenidBase(identifier)+GenidPath).NTriples(), ">")
	if from == to || !bytes.Contains(nquads, []byte(from)) {
		sum := sha256.Sum256(nquads)
		return hex.EncodeToString(sum[:])
	}
	lines := strings.SplitAfter(string(nquads), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if strings.Contains(l, from) {
			lines[i] = legacyLine(l, from, to)
		}
	}
	slices.Sort(lines)
	b := make([]byte, 0, len(nquads)+len(lines)*(len(to)-len(from)+1))
	for _, l := range lines {
		b = append(b, l...)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// legacyLine rewrites the subject and object of the N-Triples line l ("<s> <p> o .\n") that
// are skolem IRIs starting with from to start with to.
func legacyLine(l, from, to string) string {
	s, rest, ok := strings.Cut(l, " ")
	if !ok {
		return l
	}
	p, o, ok := strings.Cut(rest, " ")
	if !ok || !strings.HasSuffix(o, " .\n") {
		return l
	}
	o = strings.TrimSuffix(o, " .\n")
	return legacyTerm(s, from, to) + " " + p + " " + legacyTerm(o, from, to) + " .\n"
}

func legacyTerm(t, from, to string) string {
	h, ok := strings.CutPrefix(t, from)
	if !ok || len(h) != skolemHexLen+1 || h[skolemHexLen] != '>' {
		return t
	}
	if _, err := hex.DecodeString(h[:skolemHexLen]); err != nil {
		return t
	}
	return to + h
}
