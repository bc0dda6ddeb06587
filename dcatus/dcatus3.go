package dcatus

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaTypeDCATUS30 is the schema type of DCAT-US 3.0 records, as stored in
// harvest_source.schema_type.
const SchemaTypeDCATUS30 = "dcatus3.0"

// dcatus3Root is the $id prefix of the DCAT-US 3.0 definitions: a record type's root is this
// plus its name (dataset, dataservice, catalogrecord, datasetseries).
const dcatus3Root = "https://resources.data.gov/dcat-us/3.0.0/definitions/"

// dcatus3FS holds the official DCAT-US 3.0 definitions (schema/dcat-us-3.0/PROVENANCE.md).
//
//go:embed schema/dcat-us-3.0/*.json
var dcatus3FS embed.FS

// dcatus3Types are the record types that have a root schema.
var dcatus3Types = []string{"dataset", "dataservice", "catalogrecord", "datasetseries"}

// dcatus3Schemas compiles, once, one schema per record type from the embedded definitions,
// every file registered by its $id.
var dcatus3Schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	files, err := fs.Glob(dcatus3FS, "schema/dcat-us-3.0/*.json")
	if err != nil {
		return nil, err
	}
	docs := make([][]byte, 0, len(files))
	for _, f := range files {
		b, err := dcatus3FS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		docs = append(docs, b)
	}
	return compileDCATUS3(docs)
})

// compileDCATUS3 compiles the DCAT-US 3.0 definition documents docs (each registered by its
// $id) into one root schema per record type, with the settings of compileSchema.
func compileDCATUS3(docs [][]byte) (map[string]*jsonschema.Schema, error) {
	c := newCompiler()
	for _, b := range docs {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("parse schema: %w", err)
		}
		m, ok := doc.(map[string]any)
		id, _ := m["$id"].(string)
		if !ok || id == "" {
			return nil, fmt.Errorf("a DCAT-US 3.0 definition has no $id")
		}
		if err := c.AddResource(id, doc); err != nil {
			return nil, err
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, t := range dcatus3Types {
		s, err := c.Compile(dcatus3Root + t)
		if err != nil {
			return nil, fmt.Errorf("compile DCAT-US 3.0 %s: %w", t, err)
		}
		out[t] = s
	}
	return out, nil
}

// NewValidator3 returns the validator of DCAT-US 3.0 records of recordType: "dataset" (also for
// ""), "dataservice", "catalogrecord" or "datasetseries", rooted, as Data.gov H2.0 roots it, at
// https://resources.data.gov/dcat-us/3.0.0/definitions/<recordType> of the official
// definitions (schema/dcat-us-3.0/), with the settings of NewValidator (formats asserted,
// ECMAScript patterns). Another record type returns an error wrapping ErrUnknownSchemaType.
// Problems are shaped as for DCAT-US 1.1 (Validator.Validate); warnings are Warnings3's.
func NewValidator3(recordType string) (*Validator, error) {
	if recordType == "" {
		recordType = "dataset"
	}
	schemas, err := dcatus3Schemas()
	if err != nil {
		return nil, fmt.Errorf("validate: compile DCAT-US 3.0 schemas: %w", err)
	}
	s, ok := schemas[recordType]
	if !ok {
		return nil, fmt.Errorf("%w: DCAT-US 3.0 record type %q (want dataset, dataservice, catalogrecord or datasetseries)",
			ErrUnknownSchemaType, recordType)
	}
	return &Validator{schema: s}, nil
}
