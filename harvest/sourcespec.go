package harvest

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// SourceSpec is one row of the source rule table: what a harvest source of one type is, the
// schema types its records may follow, the settings (options) it takes, and which of the
// type-bound fields it has. The API (POST and PUT of a source), the web UI's source form and
// `harvester harvest` check a source with the one table (SourceFields.Check), so each says the
// same thing about the same bad source; the form's select lists are built from it.
type SourceSpec struct {
	Type SourceType
	// Family is the EXTRACT family that lists sources of this type (one package of
	// stages/extract each).
	Family Family
	// What says what a source of this type is, for messages ("lists ISO 19115 XML files").
	What string
	// Schemas are the schema types its records may follow, in the order forms offer them.
	Schemas []SchemaType
	// DefaultSchema is the schema type of a source sent without one; "" makes it required.
	DefaultSchema SchemaType
	// LocalFile: the source may be a local file (harvester harvest --file) rather than a URL.
	LocalFile bool
	// CollectionParent: the source has a collection_parent_url, and must (a waf-collection).
	CollectionParent bool
	// WAFTimeZone: the source may have a waf_time_zone (the zone of its listing's dates).
	WAFTimeZone bool
	// Settings are the options the source type reads; no other option key is accepted.
	Settings []SourceSetting
}

// Family is a group of source types that EXTRACT lists with the same code: the name of the
// stages/extract package that lists them.
type Family string

// Families of source types.
const (
	// FamilyDocument is one downloaded document: a data.json (DCAT-US 1.1 or 3.0) or one ISO
	// 19115 or FGDC XML file.
	FamilyDocument Family = "document"
	FamilyWAF      Family = "waf"    // a web-accessible folder of XML files (waf, waf-collection)
	FamilyCSW      Family = "csw"    // an OGC CSW's GetRecords pages
	FamilyRDF      Family = "rdf"    // a DCAT-AP RDF document, maybe paged (Hydra)
	FamilyPortal   Family = "portal" // a portal API's search pages (CKAN, DKAN, Socrata, ArcGIS, OpenDataSoft)
)

// Families lists every Family, in the order of the rule table's first type of each.
func Families() []Family {
	var fs []Family
	for i := range SourceSpecs {
		if !slices.Contains(fs, SourceSpecs[i].Family) {
			fs = append(fs, SourceSpecs[i].Family)
		}
	}
	return fs
}

// SourceSetting is one option of a source type (its `options` member, the CLI's --option
// key=value). "" (the option left out) always means its default.
type SourceSetting struct {
	Name string
	// Values are the values it takes besides "" when they are few, the default (if one is) first
	// (forms offer them as a select list); nil when it takes any value Check accepts.
	Values []string
	// Help says what it does, for forms and --help.
	Help string
	// Default is what "" means, as EXTRACT applies it ("" when the setting's absence means
	// none, e.g. no filter); the source-type reference (harvester source types) shows it.
	Default string
	// Check says what is wrong with a value of a setting without Values; nil accepts any.
	Check func(value string) error
}

// SHACL profile names an rdf source's shacl_profile option takes (shacl/profiles holds the
// shapes; a test there checks that the two lists agree). ProfileNone checks nothing.
const (
	ProfileDCATAP300 = "dcat-ap-3.0.0" // the default
	ProfileDCATAP211 = "dcat-ap-2.1.1"
	ProfileDCATAPNO2 = "dcat-ap-no-2.0"
	ProfileNone      = "none"
)

var (
	dcatus11 = []SchemaType{SchemaDCATUS11NonFederal, SchemaDCATUS11Federal}
	// xmlSchemas are the schema types of XML record sources (a WAF, a CSW).
	xmlSchemas = []SchemaType{SchemaISO19115_1, SchemaISO19115_2, SchemaFGDC}
)

// portalSpec is the row of a portal source type: its items are mapped to DCAT-US 1.1.
func portalSpec(t SourceType, what string, settings ...SourceSetting) SourceSpec {
	return SourceSpec{Type: t, Family: FamilyPortal, What: what, Schemas: dcatus11, DefaultSchema: SchemaDCATUS11NonFederal,
		Settings: settings}
}

// SourceSpecs is the source rule table, one row per SourceType, in the order forms offer them.
// Every row also takes the settings every source takes (withCommonSettings: link_checks).
var SourceSpecs = withCommonSettings([]SourceSpec{
	{Type: SourceDocument, Family: FamilyDocument, What: "one data.json (DCAT-US 1.1 or 3.0) or one ISO 19115 or FGDC XML file",
		Schemas: []SchemaType{SchemaDCATUS11Federal, SchemaDCATUS11NonFederal, SchemaDCATUS30, SchemaISO19115_1,
			SchemaISO19115_2, SchemaFGDC}, LocalFile: true},
	{Type: SourceWAF, Family: FamilyWAF, What: "lists ISO 19115 or FGDC XML files", Schemas: xmlSchemas, WAFTimeZone: true},
	{Type: SourceWAFCollection, Family: FamilyWAF, What: "lists ISO 19115 or FGDC XML files, parts of a parent record",
		Schemas: xmlSchemas, CollectionParent: true, WAFTimeZone: true},
	{Type: SourceRDF, Family: FamilyRDF, What: "holds DCAT-AP RDF (Turtle, RDF/XML, JSON-LD, N-Triples)",
		Schemas: []SchemaType{SchemaDCATAP}, LocalFile: true, Settings: []SourceSetting{
			{Name: "shacl_profile", Values: []string{ProfileDCATAP300, ProfileDCATAP211, ProfileDCATAPNO2, ProfileNone},
				Help: "the SHACL profile its datasets are validated against (none: no check)", Default: ProfileDCATAP300},
			{Name: "languages", Help: "the languages of text kept, most wanted first, e.g. nb,en",
				Check: func(v string) error { _, err := ParseLanguages(v); return err }}}},
	portalSpec(SourceCKAN, "is a CKAN Action API (DKAN 7 too)",
		SourceSetting{Name: "fq", Help: "a package_search filter query, e.g. organization:epa-gov"},
		pageSize("rows", 100, 1000)),
	portalSpec(SourceDKAN, "is a DKAN 2 metastore API"),
	portalSpec(SourceSocrata, "is a Socrata domain's Discovery API",
		SourceSetting{Name: "domain", Help: "the Socrata domain harvested, when not the URL's host"},
		SourceSetting{Name: "only", Help: "the asset type listed", Default: "dataset"},
		pageSize("limit", 100, 10000)),
	portalSpec(SourceArcGIS, "is an ArcGIS Hub site or an ArcGIS portal's search API",
		SourceSetting{Name: "api", Values: []string{"hub", "search"},
			Help: "hub (a Hub site's catalog) or search (the portal's sharing/rest search); default: search when q or orgid is set"},
		SourceSetting{Name: "q", Help: `an ArcGIS search query, e.g. type:"Feature Service"`},
		SourceSetting{Name: "orgid", Help: "the ArcGIS organization whose items are listed"},
		pageSize("num", 100, 100)),
	portalSpec(SourceOpenDataSoft, "is an OpenDataSoft portal's Explore API",
		SourceSetting{Name: "api", Values: []string{"v2.1", "v2", "v1"}, Help: "the Explore API version", Default: "v2.1"},
		pageSize("limit", 100, 100)),
	{Type: SourceCSW, Family: FamilyCSW, What: "is an OGC CSW 2.0.2 or 3.0 catalogue (GetRecords)", Schemas: xmlSchemas,
		DefaultSchema: SchemaISO19115_1, Settings: []SourceSetting{
			{Name: "binding", Values: []string{"post", "get"},
				Help: "how GetRecords is sent: post (an XML request) or get (KVP); default post when the server offers it"},
			pageSize("max_records", 100, 1000),
			{Name: "modified_filter", Values: []string{"on", "off"},
				Help:    "on: a harvest after a complete one downloads only the records modified since (dct:modified), the others stay unchanged",
				Default: "on"},
			{Name: "constraint", Help: `a CQL constraint added to every GetRecords, e.g. dc:type = 'dataset'`}}},
})

// pageSize is a page size setting: a number from 1 to maxSize, def when not set.
func pageSize(name string, def, maxSize int) SourceSetting {
	return SourceSetting{Name: name, Help: fmt.Sprintf("the page size, 1 to %d", maxSize), Default: strconv.Itoa(def),
		Check: func(v string) error {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 1 || n > maxSize {
				return fmt.Errorf("%q: want a page size from 1 to %d", v, maxSize)
			}
			return nil
		}}
}

// aSource is "a <t> source" with the article English wants ("an rdf source").
func aSource(t SourceType) string {
	switch t {
	case SourceRDF, SourceArcGIS, SourceOpenDataSoft:
		return "an " + string(t) + " source"
	}
	return "a " + string(t) + " source"
}

// SpecOf returns the row of source type t, or nil for an unknown type.
func SpecOf(t SourceType) *SourceSpec {
	for i := range SourceSpecs {
		if SourceSpecs[i].Type == t {
			return &SourceSpecs[i]
		}
	}
	return nil
}

// Setting returns the setting named name, or nil when the type has none of that name.
func (s *SourceSpec) Setting(name string) *SourceSetting {
	for i := range s.Settings {
		if s.Settings[i].Name == name {
			return &s.Settings[i]
		}
	}
	return nil
}

// SourceFields are the type-bound fields of a harvest source as given (by the API's JSON, the
// web form or the CLI's flags), before they are checked.
type SourceFields struct {
	URL string // an http(s) URL; with LocalFile, an absolute file path (the CLI checked it exists)
	// LocalFile: URL is a local file (harvester harvest --file).
	LocalFile           bool
	SourceType          string // "": SourceDocument
	SchemaType          string // "": the type's DefaultSchema, or required
	CollectionParentURL string
	WAFTimeZone         string
	Options             map[string]string
	// Precedence is the source's precedence in a cross-source duplicate (CheckPrecedence).
	Precedence int
}

// Check checks f against its type's row of SourceSpecs and returns what is wrong, by field
// name as the API names them ("url", "source_type", "schema_type", "collection_parent_url",
// "waf_time_zone", "options.<key>", "precedence"), one message per field; nil when f is good.
// The messages name no API member, form field or flag, so that every caller shows them as they are. It also
// returns the parsed source and schema types (the defaults applied; "" when bad).
func (f *SourceFields) Check() (SourceType, SchemaType, map[string]string) {
	bad := map[string]string{}
	st, err := ParseSourceType(cmp.Or(f.SourceType, string(SourceDocument)))
	if err != nil {
		bad["source_type"] = err.Error()
	}
	spec := SpecOf(st)
	switch {
	case f.LocalFile && spec != nil && !spec.LocalFile:
		bad["url"] = fmt.Sprintf("%s %s on a web server: give its URL, not a local file", aSource(st), spec.What)
	case !f.LocalFile:
		if msg := CheckSourceURL(f.URL); msg != "" {
			bad["url"] = msg
		}
	}
	if msg := CheckPrecedence(f.Precedence); msg != "" {
		bad["precedence"] = msg
	}
	if spec == nil {
		if _, err := ParseSchemaType(f.SchemaType); f.SchemaType != "" && err != nil {
			bad["schema_type"] = err.Error()
		}
		return "", "", bad
	}
	schema := spec.checkSchema(f.SchemaType, bad)
	spec.checkCollectionParent(f.CollectionParentURL, bad)
	if f.WAFTimeZone != "" {
		if _, err := ParseWAFTimeZone(f.WAFTimeZone); err != nil {
			bad["waf_time_zone"] = err.Error()
		} else if !spec.WAFTimeZone {
			bad["waf_time_zone"] = fmt.Sprintf("only a waf or waf-collection source has one, not %s", aSource(st))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(f.Options)) {
		if msg := spec.checkOption(k, f.Options[k]); msg != "" {
			bad["options."+k] = msg
		}
	}
	if len(bad) == 0 {
		bad = nil
	}
	return st, schema, bad
}

// CheckSourceURL says what is wrong with a source URL, or "": it must be one that NormalizeURL
// accepts (an absolute http or https URL with a host).
func CheckSourceURL(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return "required"
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return fmt.Sprintf("%q is not a URL: %v", raw, errors.Unwrap(err))
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Sprintf("%q is not an absolute http(s) URL", raw)
	case u.Host == "":
		return fmt.Sprintf("%q is not an absolute http(s) URL: it has no host", raw)
	}
	if _, err := NormalizeURL(raw); err != nil {
		return fmt.Sprintf("%q is not an absolute http(s) URL: %v", raw, err)
	}
	return ""
}

func (s *SourceSpec) checkSchema(raw string, bad map[string]string) SchemaType {
	raw = cmp.Or(raw, string(s.DefaultSchema))
	if raw == "" {
		bad["schema_type"] = fmt.Sprintf("required for %s: %s", aSource(s.Type), quoted(s.Schemas))
		return ""
	}
	schema, err := ParseSchemaType(raw)
	if err != nil {
		bad["schema_type"] = err.Error()
		return ""
	}
	if slices.Contains(s.Schemas, schema) {
		return schema
	}
	msg := fmt.Sprintf("%s %s: want %s, not %q", aSource(s.Type), s.What, quoted(s.Schemas), schema)
	var takers []SourceType
	for _, o := range SourceSpecs {
		if slices.Contains(o.Schemas, schema) {
			takers = append(takers, o.Type)
		}
	}
	if len(takers) == 1 { // say where it belongs when only one type takes it
		msg += fmt.Sprintf(" (%q is the schema of %s)", schema, aSource(takers[0]))
	}
	bad["schema_type"] = msg
	return ""
}

func (s *SourceSpec) checkCollectionParent(raw string, bad map[string]string) {
	switch {
	case s.CollectionParent && raw == "":
		bad["collection_parent_url"] = fmt.Sprintf("required for %s: the URL of its parent record", aSource(s.Type))
	case s.CollectionParent:
		if msg := CheckSourceURL(raw); msg != "" {
			bad["collection_parent_url"] = msg
		}
	case raw != "":
		bad["collection_parent_url"] = fmt.Sprintf("only a waf-collection source has one, not %s", aSource(s.Type))
	}
}

// checkOption says what is wrong with option k=v of a source of this type, or "".
func (s *SourceSpec) checkOption(k, v string) string {
	set := s.Setting(k)
	switch {
	case strings.TrimSpace(k) == "":
		return "a setting needs a name"
	case set == nil && len(s.Settings) == 0:
		return fmt.Sprintf("%q is not a setting of %s: it has none", k, aSource(s.Type))
	case set == nil:
		names := make([]string, len(s.Settings))
		for i, o := range s.Settings {
			names[i] = o.Name
		}
		return fmt.Sprintf("%q is not a setting of %s: its settings are %s", k, aSource(s.Type), quoted(names))
	case v == "":
		return ""
	case set.Values != nil && !slices.Contains(set.Values, v):
		return fmt.Sprintf("%q is not a %s value of %s: want %s", v, k, aSource(s.Type), quoted(set.Values))
	case set.Check != nil:
		if err := set.Check(v); err != nil {
			return err.Error()
		}
	}
	return ""
}
