// Package dcatus holds the DCAT-US JSON Schemas and a validator whose
// problems name the deepest cause: [NewValidator] compiles the schema of a
// schema type, and [Validator.Validate] checks one dataset record against it,
// turning the failures into one readable [Problem] per JSON path. It is
// library code, shared by the VALIDATE stage (stages/validate), the API's
// validator (POST /api/v1/validate) and the benchmark harness.
//
// Supported schema types are "dcatus1.1: federal" and
// "dcatus1.1: non-federal": DCAT-US 1.1 (Project Open Data metadata schema
// v1.1) dataset objects with the rules of the Data.gov harvester's
// federal_dataset.json and non-federal_dataset.json, so that a record is
// valid here exactly when Data.gov's harvester finds it valid. The schemas
// are written for this package and embedded from the schema directory; the
// "uri" format is checked as RFC 3986's URI rule (uri.go).
//
// It also holds the DCAT-US 1.1 writer the transforms share (dataset.go): [Dataset] and its
// parts, the one set of output types of the ISO 19115, DCAT-AP and portal mappers
// (stages/transform/...), written by [Dataset.Encode]; [Warning], their lossy choices; and
// [WithIsPartOf], the one place a record's parent becomes its isPartOf (TRANSFORM for a
// waf-collection's records, SYNC for DCAT-US 3.0 datasets embedded in a series or service).
package dcatus
