// Package shacl is Harvester's small SHACL engine: the subset of SHACL Core
// (https://www.w3.org/TR/shacl/) that the official DCAT-AP shape files use (DCAT-AP 2.1.1 shapes
// and range, DCAT-AP 3.0.0, DCAT-AP-NO 2.0), checked against pySHACL on every corpus record.
//
// [Compile] reads a shapes graph into [Shapes]; [Shapes.Validate] checks a data graph and returns
// a [Report] whose results carry pySHACL's focus node, path, severity and constraint component.
//
// Implemented (spec sections in brackets):
//   - targets: sh:targetClass (instances through rdf:type/rdfs:subClassOf* in the data graph),
//     sh:targetNode, sh:targetSubjectsOf, sh:targetObjectsOf [2.1.3];
//   - node shapes and property shapes whose sh:path is one IRI (a predicate path) [2.3];
//     sh:property (on a node shape and, nested, on a property shape, whose property shapes are
//     validated with each value of its path as the focus node [4.8.2]), sh:severity
//     (sh:Violation default, sh:Warning, sh:Info), sh:message, sh:deactivated;
//   - constraints: sh:minCount, sh:maxCount, sh:class, sh:datatype, sh:nodeKind, sh:node,
//     sh:or, sh:and, sh:hasValue, sh:pattern (without sh:flags), sh:qualifiedValueShape with
//     sh:qualifiedMinCount / sh:qualifiedMaxCount, sh:closed false.
//
// Anything else of SHACL Core (complex paths, sh:in, sh:not, sh:xone, sh:closed true, lengths,
// ranges, property pairs, language constraints, sh:flags, SPARQL) is a Compile error, so no
// constraint of a profile goes unchecked. IRIs in the sh: namespace that SHACL does not define
// (the NO profile's typos sh:MinCount and sh:targetSubjectOf) mean nothing to SHACL, pySHACL
// ignores them, and so does Compile; [Shapes.Ignored] lists them.
//
// sh:datatype checks the literal's lexical form against the XSD lexical space of the datatypes
// the profiles name (xsd:date, dateTime, decimal, duration, hexBinary, gYear, gYearMonth,
// nonNegativeInteger, and the other integer types and boolean). pySHACL instead asks rdflib,
// which accepts whatever Python's parsers take ("2020-01-01T00:00:00"^^xsd:date, "1e5"^^xsd:decimal,
// "2020-01-01"^^xsd:dateTime, any xsd:gYear), so on such ill-formed literals this engine reports
// a violation where pySHACL does not. No corpus record has one (the parity test would show it).
//
// Conformance of a value node to a shape (for sh:node, sh:or, sh:and, qualified shapes) is
// "validating the shape with the value node as focus gives no result", whatever the results'
// severities [3.3]. Recursion (a shape reached again for the same focus node while it is being
// checked) counts as conforming, so validation always terminates.
package shacl
