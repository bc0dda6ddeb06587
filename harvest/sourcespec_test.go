package harvest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSourceFieldsCheck(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    SourceFields
		field string // "" : good
		msg   string
	}{
		{"data.json", SourceFields{URL: "https://a.example.gov/data.json", SchemaType: "dcatus1.1: federal"}, "", ""},
		{"portal default schema", SourceFields{URL: "https://ckan.example.org", SourceType: "ckan",
			Options: map[string]string{"rows": "50"}}, "", ""},
		{"bad url", SourceFields{URL: "data.json", SchemaType: "dcatus3.0"}, "url", `"data.json" is not an absolute http(s) URL`},
		{"unknown type", SourceFields{URL: "https://a.example.gov/", SourceType: "geonode", SchemaType: "dcatus3.0"},
			"source_type", `unknown source type "geonode": want one of "document", "waf", "waf-collection", "rdf", ` +
				`"ckan", "dkan", "socrata", "arcgis", "opendatasoft" or "csw"`},
		{"schema of another type", SourceFields{URL: "https://a.example.gov/", SourceType: "waf", SchemaType: "dcatus3.0"},
			"schema_type", `a waf source lists ISO 19115 or FGDC XML files: want "iso19115_1", "iso19115_2" or "fgdc", not "dcatus3.0" ` +
				`("dcatus3.0" is the schema of a document source)`},
		{"schema required", SourceFields{URL: "https://a.example.gov/", SourceType: "rdf"}, "schema_type",
			`required for an rdf source: "dcat-ap"`},
		{"bad shacl_profile", SourceFields{URL: "https://a.example.gov/", SourceType: "rdf", SchemaType: "dcat-ap",
			Options: map[string]string{"shacl_profile": "dcat-ap-3"}}, "options.shacl_profile",
			`"dcat-ap-3" is not a shacl_profile value of an rdf source: want "dcat-ap-3.0.0", "dcat-ap-2.1.1", ` +
				`"dcat-ap-no-2.0" or "none"`},
		{"portal setting on data.json", SourceFields{URL: "https://a.example.gov/", SchemaType: "dcatus3.0",
			Options: map[string]string{"fq": "x"}}, "options.fq", `"fq" is not a setting of a document source: its settings are "link_checks"`},
		{"page size", SourceFields{URL: "https://a.example.gov/", SourceType: "socrata",
			Options: map[string]string{"limit": "0"}}, "options.limit", `"0": want a page size from 1 to 10000`},
		{"file of a portal", SourceFields{URL: "/tmp/x.json", LocalFile: true, SourceType: "dkan"}, "url",
			"a dkan source is a DKAN 2 metastore API on a web server: give its URL, not a local file"},
		{"parent url required", SourceFields{URL: "https://a.example.gov/", SourceType: "waf-collection",
			SchemaType: "iso19115_2"}, "collection_parent_url", "required for a waf-collection source: the URL of its parent record"},
		{"time zone of a document", SourceFields{URL: "https://a.example.gov/", SchemaType: "iso19115_2",
			WAFTimeZone: "UTC"}, "waf_time_zone", "only a waf or waf-collection source has one, not a document source"},
		{"precedence at the top", SourceFields{URL: "https://a.example.gov/", SourceType: "ckan", Precedence: 1000}, "", ""},
		{"precedence at the bottom", SourceFields{URL: "https://a.example.gov/", SourceType: "csw", Precedence: -1000}, "", ""},
		{"precedence too high", SourceFields{URL: "https://a.example.gov/", SourceType: "ckan", Precedence: 1001},
			"precedence", "1001 is out of range: want a whole number from -1000 to 1000 (higher wins a cross-source duplicate)"},
		{"precedence too low", SourceFields{URL: "https://a.example.gov/data.json", SchemaType: "dcatus3.0", Precedence: -5000},
			"precedence", "-5000 is out of range: want a whole number from -1000 to 1000 (higher wins a cross-source duplicate)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, bad := c.in.Check()
			if c.field == "" {
				require.Empty(t, bad)
				return
			}
			require.Len(t, bad, 1, "%v", bad)
			require.Equal(t, c.msg, bad[c.field])
		})
	}
}

// Every row's settings with values name them once, and every source type has a row.
func TestSourceSpecsComplete(t *testing.T) {
	for _, st := range SourceTypes() {
		spec := SpecOf(st)
		require.NotNil(t, spec, st)
		require.Contains(t, Families(), spec.Family, st)
		require.NotEmpty(t, spec.Schemas, st)
		if spec.DefaultSchema != "" {
			require.Contains(t, spec.Schemas, spec.DefaultSchema)
		}
		seen := map[string]bool{}
		for _, set := range spec.Settings {
			require.False(t, seen[set.Name], "%s: %s twice", st, set.Name)
			seen[set.Name] = true
			require.False(t, set.Values != nil && set.Check != nil, "%s: %s has values and a check", st, set.Name)
			if set.Default != "" && set.Values != nil { // forms preselect the first value
				require.Equal(t, set.Default, set.Values[0], "%s %s: its default first", st, set.Name)
			}
		}
	}
	require.Len(t, SourceSpecs, len(SourceTypes()))
	types := map[SourceType]bool{}
	for _, spec := range SourceSpecs {
		require.False(t, types[spec.Type], "%s: two rows", spec.Type)
		types[spec.Type] = true
		require.NotEmpty(t, spec.Family, spec.Type)
	}
}

// A form's, flag's or API body's precedence: "" is the default 0; anything but a whole number as
// JSON writes it (no spaces, no "+") is refused
// with a message that says what is wanted; the range is left to Check.
func TestParsePrecedence(t *testing.T) {
	for in, want := range map[string]int{"": 0, "7": 7, "-20": -20, "-0": 0, "5000": 5000} {
		n, err := ParsePrecedence(in)
		require.NoError(t, err, "%q", in)
		require.Equal(t, want, n, "%q", in)
	}
	for _, in := range []string{"high", "1.5", "1e3", " 7 ", "+3", "-", "5 ", "0x10"} {
		_, err := ParsePrecedence(in)
		require.EqualError(t, err, fmt.Sprintf("%q is not a whole number: want one from -1000 to 1000 "+
			"(higher wins a cross-source duplicate)", in))
	}
	_, err := ParsePrecedence("99999999999999999999999")
	require.EqualError(t, err, "99999999999999999999999 is out of range: want a whole number from -1000 to 1000 "+
		"(higher wins a cross-source duplicate)")
}
