// Package validate is the VALIDATE stage: it checks each harvested DCAT-US
// record against the JSON Schema selected by its harvest source's
// schema_type (a transformed ISO 19115 record against the non-federal one)
// with package dcatus, whose validator turns the failures into one readable
// [dcatus.Problem] per JSON path, so that invalid records can be stored with
// their record errors and skipped by the SYNC stage.
//
// A dcat-ap record is checked instead with SHACL: its record graph (Body,
// canonical N-Quads) against the shapes of its SHACL profile (Record.Profile,
// package shacl/profiles). [ValidateDCATAP] decides which results fail the
// record (missing mandatory properties and classes) and which become warning
// rows (range findings, sh:Warning, sh:Info); the DCAT-US that TRANSFORM made
// from it is ours and is not schema-checked again.
//
// The stage's message handler lives in handler.go (the dcat-ap branch in
// dcatap.go), its give-up hook in giveup.go; the schemas and the validation
// logic are [dcatus.NewValidator] and [dcatus.Validator.Validate].
package validate
