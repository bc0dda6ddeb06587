// Package rdf is Harvester's small RDF layer: terms and triples ([Term], [Triple]), a graph
// that can grow past memory ([Graph], [NewGraph]), parsers for the syntaxes DCAT-AP sources
// publish (Turtle, TriG, N-Triples, N-Quads, RDF/XML, JSON-LD) behind one [Parse], media-type
// negotiation ([FormatFor]), and writers (N-Triples, Turtle, canonical N-Quads).
//
// Turtle, TriG, N-Triples and N-Quads are parsed by this package's own streaming parser (the
// W3C grammars; github.com/knakk/rdf, tried first, rejects valid Turtle such as a ';' before
// ']' and gives no positions). RDF/XML is parsed by github.com/spdx/gordf and JSON-LD by
// github.com/piprate/json-gold, which also does URDNA2015. Every syntax gives the same terms
// for the same graph, and every syntax error is a *SyntaxError with a line and column.
package rdf
