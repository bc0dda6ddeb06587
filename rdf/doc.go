// Package rdf is Harvester's small RDF layer: terms and triples ([Term], [Triple]), a graph
// that can grow past memory ([Graph], [NewGraph]), parsers for the syntaxes DCAT-AP sources
// publish (Turtle, TriG, N-Triples, N-Quads, RDF/XML, JSON-LD) behind one [Parse] ([ParseWith]
// for its [Options]), media-type negotiation ([FormatFor]), and writers (N-Triples, Turtle,
// canonical N-Quads, and [NewEncoder], which streams Turtle, N-Triples, RDF/XML and JSON-LD
// group by group).
//
// Turtle, TriG, N-Triples and N-Quads are parsed by this package's own streaming parser (the
// W3C grammars, with line and column in every error). RDF/XML is parsed by this package's own
// streaming parser over encoding/xml (the RDF 1.1 XML Syntax, xml:lang and datatypes kept); it
// reads some RDF/XML the grammar refuses (misused rdf: names, bad or repeated rdf:ID)
// leniently and reports each as a [Warning]. No RDF library of Go is used for these: the ones
// tried (knakk/rdf, spdx/gordf) refused valid Turtle or lost xml:lang and datatypes (rdfxml.go
// says how). JSON-LD is parsed by
// github.com/piprate/json-gold, one node object of the top-level @graph at a time; json-gold
// also does URDNA2015.
//
// Every syntax gives the same terms for the same graph, and every syntax error is a
// *SyntaxError with a line and column. Memory is bounded: no parser holds a term over
// Options.MaxTermBytes (16 MiB by default), and JSON-LD holds at most 2× that at once.
package rdf
