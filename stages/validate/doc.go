// Package validate is the VALIDATE stage: it checks each harvested DCAT-US
// record against the JSON Schema selected by its harvest source's
// schema_type (a transformed ISO 19115 record against the non-federal one)
// with package dcatus, whose validator turns the failures into one readable
// [dcatus.Problem] per JSON path, so that invalid records can be stored with
// their record errors and skipped by the SYNC stage.
//
// The stage's message handler lives in handler.go, its give-up hook in
// giveup.go; the schemas and the validation logic are [dcatus.NewValidator]
// and [dcatus.Validator.Validate].
package validate
