// Package validate is the VALIDATE stage: it checks each harvested DCAT-US
// record against the JSON Schema selected by its harvest source's
// schema_type and turns the failures into one readable [Problem] per JSON
// path, so that invalid records can be stored with their record errors and
// skipped by the SYNC stage.
//
// Supported schema types are "dcatus1.1: federal" and
// "dcatus1.1: non-federal": DCAT-US 1.1 (Project Open Data metadata schema
// v1.1) dataset objects with the rules of the Data.gov harvester's
// federal_dataset.json and non-federal_dataset.json, so that a record is
// valid here exactly when Data.gov's harvester finds it valid. The schemas
// are written for this package and embedded from the schema directory.
//
// The stage's message handler lives in handler.go; this package's validation
// logic is [NewValidator] and [Validator.Validate].
package validate
