// Package catalog reads DCAT-US catalog documents: the streaming walk of a catalog's "dataset"
// array in bounded memory, syntax errors with line and column, the shape guard for repeated
// keys and nesting depth, and identifying each dataset. It is library code, shared by the
// EXTRACT stage (stages/extract) and the API's validator (POST /api/v1/validate); it decides
// nothing about jobs or records.
//
//   - [WalkCatalog] calls a function with each dataset's bytes as written; [Identify] reads a
//     dataset's identifier ("identifier", or the "@id" of an identifier object) and title.
//   - [Check] reads a whole document once, keeping nothing, to find what is wrong with it;
//     [WalkEntries] walks it again with each dataset identified, decoded once, one over a size
//     limit measured as it streams past and never held, and one that repeats a key or nests
//     deeper than [MaxRecordDepth] marked with a [StructureError].
//   - A document that cannot be read is a [*ParseError]: the 1-based line and column of a
//     syntax error (json_scan.go checks the syntax as encoding/json does, in one streaming
//     pass), or the reason it is not a DCAT-US 1.1 catalog ([ErrLegacyArray],
//     [ErrDuplicateDataset], [ErrDCATUS3]).
//
// Memory is bounded by the size limit and the readers' buffers (64 KiB each), whatever the
// document's size; a leading UTF-8 BOM is skipped.
package catalog
