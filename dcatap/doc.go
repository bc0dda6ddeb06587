// Package dcatap is Harvester's DCAT-AP harvest logic over an [rdf.Graph]: it splits a source
// graph into catalogs and dataset records the way the Norwegian FDK dataset harvester does
// ([Split]), replaces each record's blank nodes with IRIs derived from their content
// ([Skolemize]), gives a record graph its canonical N-Quads ([Canonical]) and source_hash
// ([SourceHash]), FDK's fdkId ([FdkID]) and a whole-source fingerprint for the "not modified"
// skip ([GraphHash]).
//
// Where it follows FDK and where it differs (reference: peer-harvesters.md §1.3–1.6, §1.10):
//   - Splitting follows fdk-dataset-harvester's HarvestHelpers (catalogs are IRI subjects typed
//     dcat:Catalog; a record's graph is the closure over the resources it points at, stopping at
//     datasets and series). It differs in that a blank-node dataset is reported (FDK drops it
//     silently), a dataset in no catalog is still a record, the closure also stops at catalogs and
//     does not follow rdf:type objects, and a catalog's graph does not include its datasets' graphs.
//   - Skolem IRIs are <scheme://authority of the record IRI>/.well-known/genid/<hash> (RDF 1.1
//     Concepts §3.5), where FDK writes <record>/.well-known/skolem/<uuid> (and earlier releases
//     of Harvester <record IRI>/.well-known/genid/<hash>, which put it in the fragment of a "#"
//     IRI); the hash is a Merkle hash of the node's content (SHA-256 of its sorted outgoing
//     lines) where FDK sorts the characters of the node's N3 (anagrams collide) and loops on
//     blank-node cycles (we do not: cycles are hashed by canonical colour refinement,
//     O((n+m) log n), and the search is iterative, so no input overflows the stack).
//   - source_hash is SHA-256 of the canonical N-Quads of the skolemized record graph with its
//     skolem IRIs in the earlier <record IRI>/.well-known/genid/<hash> spelling ([SourceHash]),
//     so the hashes stored before the move hold; FDK's successor hashes its sorted triple
//     strings and the classic harvester tests isomorphism.
//   - fdkId is FDK's exactly: Java's UUID.nameUUIDFromBytes of the IRI (MD5, version 3).
package dcatap
