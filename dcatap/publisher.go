package dcatap

import (
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/rdf"
)

// Name properties of an agent, in the order PublisherName tries them.
var agentNames = []string{
	FOAFName, SKOSPrefLabel, VCardFN, RDFSLabel,
}

// PublisherName returns the name of a catalog's dct:publisher, read from the catalog's graph
// (Resource.Triples of a KindCatalog resource, whose closure holds its publisher's triples):
// the first of foaf:name, skos:prefLabel, vcard:fn, rdfs:label that it has, in the first
// language of langs that has one (a tag matches its subtags: "en" matches "en-GB"), else an
// untagged literal, else the least by tag and value. A literal publisher is its own name. ""
// when the catalog names no publisher or the publisher has no name in the graph. EXTRACT gives
// it to the catalog's datasets that name no publisher of their own, as DCAT-AP portals (FDK's
// among them) often publish the publisher on the catalog only.
func PublisherName(catalog *Resource, langs []string) string {
	var pubs []rdf.Term
	for _, t := range catalog.Triples {
		if t.S.Value == catalog.IRI && t.S.IsIRI() && t.P.Value == DCTPublisher {
			pubs = append(pubs, t.O)
		}
	}
	slices.SortFunc(pubs, func(a, b rdf.Term) int { return strings.Compare(a.NTriples(), b.NTriples()) })
	for _, p := range pubs {
		if p.IsLiteral() {
			if v := strings.TrimSpace(p.Value); v != "" {
				return v
			}
			continue
		}
		for _, prop := range agentNames {
			var lits []rdf.Term
			for _, t := range catalog.Triples {
				if t.S == p && t.P.Value == prop && t.O.IsLiteral() && strings.TrimSpace(t.O.Value) != "" {
					lits = append(lits, t.O)
				}
			}
			if v := preferred(lits, langs); v != "" {
				return v
			}
		}
	}
	return ""
}

// preferred picks a literal by language preference (see PublisherName).
func preferred(lits []rdf.Term, langs []string) string {
	if len(lits) == 0 {
		return ""
	}
	for _, l := range langs {
		l = strings.ToLower(l)
		for _, t := range lits {
			if t.Lang == l || strings.HasPrefix(t.Lang, l+"-") {
				return strings.TrimSpace(t.Value)
			}
		}
	}
	for _, t := range lits {
		if t.Lang == "" {
			return strings.TrimSpace(t.Value)
		}
	}
	slices.SortFunc(lits, func(a, b rdf.Term) int {
		return strings.Compare(a.Lang+"\x00"+a.Value, b.Lang+"\x00"+b.Value)
	})
	return strings.TrimSpace(lits[0].Value)
}
