package dcatus

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema types handled by this package, as stored in harvest_source.schema_type.
const (
	schemaTypeFederal    = "dcatus1.1: federal"
	schemaTypeNonFederal = "dcatus1.1: non-federal"
)

// schemaFiles maps each supported schema type to its embedded schema file.
var schemaFiles = map[string]string{
	schemaTypeFederal:    "schema/dcatus1.1-federal.json",
	schemaTypeNonFederal: "schema/dcatus1.1-non-federal.json",
}

//go:embed schema/dcatus1.1-federal.json schema/dcatus1.1-non-federal.json
var schemaFS embed.FS

// regexpMatchTimeout bounds one pattern match. The DCAT-US patterns need a
// backtracking engine (look-ahead, back-references), and a few of them
// (hasEmail's) backtrack quadratically on long crafted strings; a match that
// runs out of time is tried once more with regexpRetryTimeout, and one that
// runs out of that too counts as "does not match", so the record is rejected
// instead of stalling a worker. The timeouts are wall-clock time (regexp2's):
// on a starved machine (a bench at load 32) a plain mailto: once ran out of
// the first, and a valid record was called invalid; the retry keeps that from
// deciding a record.
const (
	regexpMatchTimeout = time.Second
	regexpRetryTimeout = 10 * time.Second
)

// Problem is one validation failure of one record: the JSON path of the
// offending value and why.
//
// Path starts at the record root "$" and names object members with
// ".name" and array elements with "[index]", for example "$",
// "$.contactPoint.hasEmail" or "$.distribution[2].downloadURL", as Python
// jsonschema's json_path does in the Data.gov harvester's reports; a member
// whose name holds ".", "[", "]", a quote, a backslash, a space or "$" is
// written ['name'] instead. A missing required property is reported at the
// path of the object that lacks it.
//
// Message is one readable sentence, for example
// "'title' is a required property" or "\"center\" is not a valid uri".
// Values are quoted as JSON and shortened when long; when one path has
// several failures their sentences are joined with "; ".
type Problem struct {
	Path    string // JSON path from the record root, e.g. "$", "$.contactPoint.hasEmail", "$.distribution[2].downloadURL"
	Message string // one readable sentence, e.g. "'title' is a required property" or "\"center\" is not a valid uri"
}

// Validator validates DCAT-US dataset records against one compiled schema.
// It holds no per-record state and is safe for concurrent use by many
// goroutines.
type Validator struct {
	schema *jsonschema.Schema
}

// compiled caches one compiled schema per schema type: compiling is the
// expensive part of NewValidator and a compiled schema is immutable.
var compiled = map[string]func() (*jsonschema.Schema, error){}

func init() {
	for schemaType, file := range schemaFiles {
		compiled[schemaType] = sync.OnceValues(func() (*jsonschema.Schema, error) {
			return compileEmbedded(file)
		})
	}
}

// NewValidator compiles the schema for schemaType: "dcatus1.1: federal" or
// "dcatus1.1: non-federal". Any other schema type returns an error wrapping
// ErrUnknownSchemaType.
//
// Both schemas describe one DCAT-US 1.1 dataset object (Project Open Data
// metadata schema v1.1, https://resources.data.gov/resources/dcat-us/) as
// the Data.gov harvester checks it: title, description (at most 10000
// characters), keyword (1 to 1000 items), modified (ISO 8601), publisher
// (with name), contactPoint (fn and a mailto: hasEmail), identifier and
// accessLevel ("public", "restricted public" or "non-public") are required,
// and most optional fields may also be null or a "[[REDACTED…]]" marker.
// The federal schema also requires bureauCode ("NNN:NN" items) and
// programCode ("NNN:NNN" items) and does not accept null for them.
//
// Format assertions are on: the schemas use "uri", checked as RFC 3986's
// URI rule like Data.gov's rfc3987 check (see uri.go), and date-time, email
// and the library's other formats would be asserted too. Patterns run on an
// ECMAScript regular expression engine (github.com/dlclark/regexp2), as
// JSON Schema specifies. Compiled schemas are cached, so repeated calls are
// cheap.
func NewValidator(schemaType string) (*Validator, error) {
	compile, ok := compiled[schemaType]
	if !ok {
		return nil, fmt.Errorf("%w %q (want %q or %q)", ErrUnknownSchemaType, schemaType, schemaTypeFederal, schemaTypeNonFederal)
	}
	schema, err := compile()
	if err != nil {
		return nil, fmt.Errorf("validate: compile schema for %q: %w", schemaType, err)
	}
	return &Validator{schema: schema}, nil
}

// Validate checks one record, the JSON bytes of one dataset object.
//
// It returns nil when the record is valid. Otherwise it returns one Problem
// per JSON path, sorted by path (member names in byte order, array indexes
// numerically, a parent before its children), with anyOf/oneOf failures
// reduced to the deepest, most specific cause rather than one error per
// alternative: "center" as a license gives the single problem
// {"$.license", "\"center\" is not a valid uri"}.
//
// Numbers are decoded as json.Number, so they are checked exactly as written.
// Validate returns an error only when record is not JSON (empty, malformed,
// or followed by trailing data); a JSON value that is not an object is a
// Problem at "$".
func (v *Validator) Validate(record []byte) ([]Problem, error) {
	instance, err := decodeInstance(record)
	if err != nil {
		return nil, fmt.Errorf("validate: record is not JSON: %w", err)
	}
	err = v.schema.Validate(instance)
	if err == nil {
		return nil, nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		// The library reports failures only as *ValidationError; keep any
		// other error visible as a record problem rather than dropping it.
		return []Problem{{Path: "$", Message: err.Error()}}, nil
	}
	problems := shapeProblems(verr, instance)
	if len(problems) == 0 { // cannot happen: every failure yields a finding
		problems = []Problem{{Path: "$", Message: verr.Error()}}
	}
	return problems, nil
}

// compileEmbedded compiles one of the embedded schema files.
func compileEmbedded(file string) (*jsonschema.Schema, error) {
	data, err := schemaFS.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return compileSchema(data)
}

// compileSchema compiles a draft 2020-12 schema document with the settings
// every DCAT-US validator uses: format assertions on (with the RFC 3986
// "uri" check of uri.go) and the ECMAScript regexp engine. The
// verdict-equivalence test compiles Data.gov's schemas through it too, so
// both sides run with identical settings.
func compileSchema(data []byte) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	// The resource URL only matters when the document has no $id.
	const url = "urn:harvester:validate:schema.json"
	c := newCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// newCompiler returns a compiler with the settings of compileSchema.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	c.RegisterFormat(uriFormat)
	c.UseRegexpEngine(compileECMAScript)
	return c
}

// ecmaRegexp adapts a regexp2 expression to jsonschema.Regexp: the pattern
// compiled twice, with regexpMatchTimeout and with regexpRetryTimeout. regexp2
// expressions are safe for concurrent use.
type ecmaRegexp struct{ fast, retry *regexp2.Regexp }

func (re *ecmaRegexp) MatchString(s string) bool {
	ok, err := re.fast.MatchString(s)
	if err != nil { // a match timeout: once more, with longer
		ok, err = re.retry.MatchString(s)
	}
	return err == nil && ok // err is a match timeout again: no match
}

func (re *ecmaRegexp) String() string { return re.fast.String() }

// compileECMAScript is the jsonschema.RegexpEngine for ECMA-262 patterns, as
// JSON Schema specifies them.
func compileECMAScript(pattern string) (jsonschema.Regexp, error) {
	fast, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	retry, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	if err != nil {
		return nil, err
	}
	fast.MatchTimeout, retry.MatchTimeout = regexpMatchTimeout, regexpRetryTimeout
	return &ecmaRegexp{fast: fast, retry: retry}, nil
}
