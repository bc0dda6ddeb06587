package dcatus

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// validRecord is a minimal federal DCAT-US 1.1 dataset.
const validRecord = `{
  "@type": "dcat:Dataset",
  "title": "Fleet inventory",
  "description": "Vehicles owned by the agency.",
  "keyword": ["fleet", "vehicles"],
  "modified": "2025-07-01",
  "publisher": {"@type": "org:Organization", "name": "General Services Administration"},
  "contactPoint": {"@type": "vcard:Contact", "fn": "Jane Doe", "hasEmail": "mailto:jane.doe@gsa.gov"},
  "identifier": "gsa-fleet-1",
  "accessLevel": "public",
  "bureauCode": ["023:00"],
  "programCode": ["023:019"],
  "license": "https://creativecommons.org/publicdomain/zero/1.0/",
  "distribution": [
    {"@type": "dcat:Distribution", "downloadURL": "https://example.gov/a.csv", "mediaType": "text/csv"},
    {"@type": "dcat:Distribution", "accessURL": "https://example.gov/api"},
    {"@type": "dcat:Distribution", "downloadURL": "https://example.gov/c.json", "mediaType": "application/json"}
  ]
}`

// record returns validRecord changed by edit, which gets the decoded object.
func record(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(validRecord), &m))
	edit(m)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return b
}

func newValidator(t testing.TB, schemaType string) *Validator {
	t.Helper()
	v, err := NewValidator(schemaType)
	require.NoError(t, err)
	return v
}

func TestValidateShapesProblems(t *testing.T) {
	t.Parallel()
	federal := newValidator(t, schemaTypeFederal)

	tests := []struct {
		name string
		edit func(m map[string]any)
		want []Problem
	}{
		{
			name: "valid",
			edit: func(map[string]any) {},
		},
		{
			name: "redacted and null optional fields are valid",
			edit: func(m map[string]any) {
				m["license"] = "[[REDACTED-EX B3]]"
				m["keyword"] = "[[REDACTED-EX B6]]"
				m["landingPage"] = nil
				m["temporal"] = "2020-01-01/2020-12-31"
				m["accrualPeriodicity"] = "R/P1M"
				m["distribution"] = []any{"[[REDACTED-EX B5]]"}
			},
		},
		{
			name: "missing required field",
			edit: func(m map[string]any) { delete(m, "title") },
			want: []Problem{{Path: "$", Message: "'title' is a required property"}},
		},
		{
			name: "several missing required fields",
			edit: func(m map[string]any) { delete(m, "title"); delete(m, "identifier"); delete(m, "accessLevel") },
			want: []Problem{{Path: "$", Message: "'title', 'identifier' and 'accessLevel' are required properties"}},
		},
		{
			name: "bad license is one problem, not one per anyOf branch",
			edit: func(m map[string]any) { m["license"] = "center" },
			want: []Problem{{Path: "$.license", Message: `"center" is not a valid uri`}},
		},
		{
			name: "hasEmail without mailto",
			edit: func(m map[string]any) { m["contactPoint"].(map[string]any)["hasEmail"] = "jane.doe@gsa.gov" },
			want: []Problem{{Path: "$.contactPoint.hasEmail", Message: `"jane.doe@gsa.gov" is not a valid mailto: email address`}},
		},
		{
			name: "mailto without domain",
			edit: func(m map[string]any) { m["contactPoint"].(map[string]any)["hasEmail"] = "mailto:jane" },
			want: []Problem{{Path: "$.contactPoint.hasEmail", Message: `"mailto:jane" is not a valid mailto: email address`}},
		},
		{
			name: "error deep in distribution",
			edit: func(m map[string]any) {
				m["distribution"].([]any)[2].(map[string]any)["downloadURL"] = "not a url"
			},
			want: []Problem{{Path: "$.distribution[2].downloadURL", Message: `"not a url" is not a valid uri`}},
		},
		{
			name: "downloadURL needs a mediaType",
			edit: func(m map[string]any) { delete(m["distribution"].([]any)[0].(map[string]any), "mediaType") },
			want: []Problem{{Path: "$.distribution[0]", Message: "'mediaType' is a required property"}},
		},
		{
			name: "wrong type for every alternative",
			edit: func(m map[string]any) { m["keyword"] = "fleet" },
			want: []Problem{{Path: "$.keyword", Message: `"fleet" is not of type 'array'`}},
		},
		{
			name: "several formats acceptable",
			edit: func(m map[string]any) { m["modified"] = "last week" },
			want: []Problem{{Path: "$.modified", Message: `"last week" does not match any of the acceptable formats: ` +
				`ISO 8601 date, ISO 8601 duration, ISO 8601 date/duration interval`}},
		},
		{
			name: "enum",
			edit: func(m map[string]any) { m["accessLevel"] = "private" },
			want: []Problem{{Path: "$.accessLevel", Message: `"private" is not one of "public", "restricted public", "non-public"`}},
		},
		{
			name: "problems sorted by path, indexes numerically",
			edit: func(m map[string]any) {
				dist := make([]any, 11)
				for i := range dist {
					dist[i] = map[string]any{"title": ""}
				}
				m["distribution"] = dist
				m["bureauCode"] = []any{"23:00"}
				delete(m, "description")
			},
			want: func() []Problem {
				want := []Problem{
					{Path: "$", Message: "'description' is a required property"},
					{Path: "$.bureauCode[0]", Message: `"23:00" is not a valid bureau code (NNN:NN)`},
				}
				for i := range 11 {
					want = append(want, Problem{Path: fmt.Sprintf("$.distribution[%d].title", i), Message: `"" should be non-empty`})
				}
				return want
			}(),
		},
		{
			name: "member names that need quoting",
			edit: func(m map[string]any) {
				m["@type"] = "dcat:Catalog"
				m["publisher"] = map[string]any{"name": "x", "subOrganizationOf": map[string]any{"name": ""}}
			},
			want: []Problem{
				{Path: "$.@type", Message: `"dcat:Catalog" should be "dcat:Dataset"`},
				{Path: "$.publisher.subOrganizationOf.name", Message: `"" should be non-empty`},
			},
		},
		{
			name: "long values are shortened",
			edit: func(m map[string]any) { m["description"] = strings.Repeat("a", 10001) },
			want: []Problem{{Path: "$.description", Message: `"` + strings.Repeat("a", 78) + `… is longer than 10000 characters (10001)`}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := federal.Validate(record(t, tc.edit))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestValidateNotAnObject(t *testing.T) {
	t.Parallel()
	got, err := newValidator(t, schemaTypeNonFederal).Validate([]byte(`["a"]`))
	require.NoError(t, err)
	require.Equal(t, []Problem{{Path: "$", Message: `["a"] is not of type 'object'`}}, got)
}

func TestFederalRequiresBureauAndProgramCode(t *testing.T) {
	t.Parallel()
	noCodes := record(t, func(m map[string]any) { delete(m, "bureauCode"); delete(m, "programCode") })
	nullCodes := record(t, func(m map[string]any) { m["bureauCode"] = nil; m["programCode"] = nil })

	federal := newValidator(t, schemaTypeFederal)
	got, err := federal.Validate(noCodes)
	require.NoError(t, err)
	require.Equal(t, []Problem{{Path: "$", Message: "'bureauCode' and 'programCode' are required properties"}}, got)
	got, err = federal.Validate(nullCodes)
	require.NoError(t, err)
	require.Equal(t, []Problem{
		{Path: "$.bureauCode", Message: "null is not of type 'array'"},
		{Path: "$.programCode", Message: "null is not of type 'array'"},
	}, got)

	nonFederal := newValidator(t, schemaTypeNonFederal)
	for _, rec := range [][]byte{noCodes, nullCodes} {
		got, err = nonFederal.Validate(rec)
		require.NoError(t, err)
		require.Nil(t, got)
	}
}

func TestValidateNotJSON(t *testing.T) {
	t.Parallel()
	v := newValidator(t, schemaTypeFederal)
	for _, in := range []string{"", "{", `{"title": }`, `{"a":1} {"b":2}`, "not json"} {
		got, err := v.Validate([]byte(in))
		require.Error(t, err, "input %q", in)
		require.Nil(t, got)
	}
}

func TestNewValidatorUnknownSchemaType(t *testing.T) {
	t.Parallel()
	for _, st := range []string{"", "dcatus3.0", "iso19115_2", "dcatus1.1:federal", "DCATUS1.1: FEDERAL"} {
		v, err := NewValidator(st)
		require.ErrorIs(t, err, ErrUnknownSchemaType, "schema type %q", st)
		require.Nil(t, v)
	}
}

func TestValidateConcurrent(t *testing.T) {
	t.Parallel()
	v := newValidator(t, schemaTypeFederal)
	inputs := [][]byte{
		record(t, func(map[string]any) {}),
		record(t, func(m map[string]any) { m["license"] = "center" }),
		record(t, func(m map[string]any) { m["modified"] = "2025-02-30T25:00" }),
	}
	want := make([][]Problem, len(inputs))
	for i, in := range inputs {
		var err error
		want[i], err = v.Validate(in)
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(inputs)
				got, err := v.Validate(inputs[k])
				if err != nil || fmt.Sprint(got) != fmt.Sprint(want[k]) {
					errs <- fmt.Errorf("input %d: got %v, %v; want %v", k, got, err, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestSchemasDifferOnlyInCodes checks that the federal schema is the
// non-federal one plus required, non-null bureauCode and programCode, and
// that every labelled $defs name exists.
func TestSchemasDifferOnlyInCodes(t *testing.T) {
	t.Parallel()
	load := func(file string) map[string]any {
		data, err := schemaFS.ReadFile(file)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(data, &m))
		return m
	}
	federal := load(schemaFiles[schemaTypeFederal])
	nonFederal := load(schemaFiles[schemaTypeNonFederal])

	for name := range defLabels {
		require.Contains(t, federal["$defs"], name)
		require.Contains(t, nonFederal["$defs"], name)
	}

	require.Equal(t, append([]any{"bureauCode", "programCode"}, nonFederal["required"].([]any)...), federal["required"])
	props := nonFederal["properties"].(map[string]any)
	for _, code := range []string{"bureauCode", "programCode"} {
		alts := props[code].(map[string]any)["anyOf"].([]any)
		require.Contains(t, alts, map[string]any{"type": "null"})
		var kept []any
		for _, a := range alts {
			if !reflect.DeepEqual(a, map[string]any{"type": "null"}) {
				kept = append(kept, a)
			}
		}
		props[code].(map[string]any)["anyOf"] = kept
	}
	for _, m := range []map[string]any{federal, nonFederal} {
		delete(m, "$id")
		delete(m, "title")
		delete(m, "$comment")
		delete(m, "required")
	}
	require.Equal(t, nonFederal, federal)
}
