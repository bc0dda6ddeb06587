// Package rdf is Harvester's small RDF layer: terms and triples ([Term], [Triple]), a graph
// that can grow past memory ([Graph], [NewGraph]), parsers for the syntaxes DCAT-AP sources
// publish (Turtle, TriG, N-Triples, N-Quads, RDF/XML, JSON-LD) behind one [Parse] ([ParseWith]
// for its [Options]), media-type negotiation ([FormatFor]), and writers (N-Triples, Turtle,
// canonical N-Quads).
//
// Turtle, TriG, N-Triples and N-Quads are parsed by this package's own streaming parser (the
// W3C grammars; github.com/knakk/rdf, tried first, rejects valid Turtle such as a ';' before
// ']' and gives no positions). RDF/XML is parsed by this package's own streaming parser over
// encoding/xml (github.com/spdx/gordf, which DESIGN.md names, loses xml:lang and datatypes: see
// rdfxml.go); it reads some RDF/XML the grammar refuses (misused rdf: names, bad or repeated
// rdf:ID) leniently and reports each as a [Warning]. JSON-LD is parsed by
// github.com/piprate/json-gold, one node object of the top-level @graph at a time; json-gold
// also does URDNA2015.
//
// Every syntax gives the same terms for the same graph, and every syntax error is a
// *SyntaxError with a line and column. Memory is bounded: no parser holds a term over
// Options.MaxTermBytes (16 MiB by default), and JSON-LD holds at most 2× that at once.
package rdf
