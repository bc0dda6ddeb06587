// Package rdf is Harvester's small RDF layer: terms and triples ([Term], [Triple]), a graph
// that can grow past memory ([Graph]), parsers for the syntaxes DCAT-AP sources publish
// (Turtle, N-Triples, N-Quads, RDF/XML, JSON-LD) behind one [Parse], media-type negotiation
// ([FormatFor]), and writers (N-Triples, canonical N-Quads). The parsing itself is done by
// well-kept libraries (github.com/knakk/rdf for Turtle and N-Triples, github.com/spdx/gordf for
// RDF/XML, github.com/piprate/json-gold for JSON-LD and URDNA2015); this package wraps them so
// that every syntax gives the same terms for the same graph, and so that their errors carry a
// line and column.
package rdf
