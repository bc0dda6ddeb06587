package store

import (
	"fmt"
	"net/mail"
	"regexp"

	"github.com/harvester-dev/harvester/harvest"
)

// The rules a source's and an organization's fields follow wherever they come from: the API's
// POST and PUT, and harvester import-h2 (a row that breaks one is not imported).

// CheckSource records in fields (by field name, the first problem of each) what is wrong with
// each field of p but the organization; schemaType is the schema type as sent, which it parses
// into p. Beyond each field's own
// values: a waf or waf-collection source lists ISO 19115 XML files, so its schema type must be
// an ISO one, and a waf-collection source, and only one, has a collection_parent_url (its
// parent record, which EXTRACT downloads first). A portal source (ckan, dkan, …) sent without
// a schema type gets "dcatus1.1: non-federal": its items are mapped to it. A waf_time_zone is an
// IANA time zone name (harvest.ParseWAFTimeZone), of a waf or waf-collection source only. An rdf
// source, and only one, has schema type dcat-ap.
func CheckSource(p *SourceInsertParams, schemaType string, fields map[string]string) {
	if p.Name == "" {
		addField(fields, "name", "required")
	}
	if msg := CheckSourceURL(p.URL); msg != "" {
		addField(fields, "url", "%s", msg)
	}
	srcType, srcErr := harvest.ParseSourceType(string(p.SourceType))
	if srcErr != nil {
		addField(fields, "source_type", "%v", srcErr)
	}
	wafType := srcType == harvest.SourceWAF || srcType == harvest.SourceWAFCollection
	if schemaType == "" && srcErr == nil && srcType.IsPortal() {
		schemaType = string(harvest.SchemaDCATUS11NonFederal) // portal items are mapped to non-federal DCAT-US
	}
	if schemaType == "" {
		addField(fields, "schema_type", "required: %q, %q, %q, %q or %q", harvest.SchemaDCATUS11Federal,
			harvest.SchemaDCATUS11NonFederal, harvest.SchemaDCATUS30, harvest.SchemaISO19115_1, harvest.SchemaISO19115_2)
	} else if st, err := harvest.ParseSchemaType(schemaType); err != nil {
		addField(fields, "schema_type", "%v", err)
	} else if wafType && !st.IsISO() {
		addField(fields, "schema_type", "a %s source lists ISO 19115 XML files: want %q or %q, not %q",
			srcType, harvest.SchemaISO19115_1, harvest.SchemaISO19115_2, st)
	} else if srcType == harvest.SourceRDF && st != harvest.SchemaDCATAP {
		addField(fields, "schema_type", "an rdf source holds DCAT-AP: want %q, not %q", harvest.SchemaDCATAP, st)
	} else if st == harvest.SchemaDCATAP && srcErr == nil && srcType != harvest.SourceRDF {
		addField(fields, "schema_type", "DCAT-AP is RDF: its source_type is %q, not %q", harvest.SourceRDF, srcType)
	} else {
		p.SchemaType = st
	}
	switch {
	case srcType == harvest.SourceWAFCollection && p.CollectionParentURL == "":
		addField(fields, "collection_parent_url", "required for a waf-collection source: the URL of its parent record")
	case srcType == harvest.SourceWAFCollection:
		if msg := CheckSourceURL(p.CollectionParentURL); msg != "" {
			addField(fields, "collection_parent_url", "%s", msg)
		}
	case p.CollectionParentURL != "" && srcErr == nil:
		addField(fields, "collection_parent_url", "only a waf-collection source has one, not a %s source: leave it out or null",
			srcType)
	}
	switch _, err := harvest.ParseWAFTimeZone(p.WAFTimeZone); {
	case err != nil:
		addField(fields, "waf_time_zone", "%v", err)
	case p.WAFTimeZone != "" && !wafType && srcErr == nil:
		addField(fields, "waf_time_zone", "only a waf or waf-collection source has one, not a %s source: leave it out or null",
			srcType)
	}
	if _, err := harvest.ParseFrequency(string(p.Frequency)); err != nil {
		addField(fields, "frequency", "%v", err)
	}
	if _, err := harvest.ParseNotificationFrequency(string(p.NotificationFrequency)); err != nil {
		addField(fields, "notification_frequency", "%v", err)
	}
	for i, e := range p.NotificationEmails {
		if a, err := mail.ParseAddress(e); err != nil || a.Address != e {
			addField(fields, "notification_emails", "item %d, %q, is not an email address (write it bare: name@agency.gov)", i+1, e)
		}
	}
}

// CheckSourceURL says what is wrong with a source URL, or "": it must be one that
// harvest.NormalizeURL accepts.
func CheckSourceURL(raw string) string {
	if raw == "" {
		return "required"
	}
	if _, err := harvest.NormalizeURL(raw); err != nil {
		return fmt.Sprintf("%q is not an absolute http(s) URL", raw)
	}
	return ""
}

// orgSlugPattern is an organization slug: lowercase letters, digits and hyphens.
var orgSlugPattern = regexp.MustCompile(`^[a-z0-9-]+$`)

// MaxOrgSlugLen is the longest organization slug, in bytes (organization.slug is varchar(100)
// in Data.gov's schema).
const MaxOrgSlugLen = 100

// CheckOrganization records in fields what is wrong with an organization's name and slug (the
// API's POST and PUT, harvester import-h2): a name is required (callers trim it: the
// document's name pattern is a character that is not unicode.IsSpace); a slug is required, at
// most MaxOrgSlugLen bytes of lowercase letters, digits and hyphens.
func CheckOrganization(name, slug string, fields map[string]string) {
	if name == "" {
		addField(fields, "name", "required")
	}
	switch {
	case slug == "":
		addField(fields, "slug", "required")
	case len(slug) > MaxOrgSlugLen:
		addField(fields, "slug", "at most %d characters", MaxOrgSlugLen)
	case !orgSlugPattern.MatchString(slug):
		addField(fields, "slug", "%q: use only lowercase letters, digits and hyphens", slug)
	}
}

// addField records the first problem of a field; later ones (often consequences) are dropped.
func addField(fields map[string]string, field, format string, args ...any) {
	if _, ok := fields[field]; !ok {
		fields[field] = fmt.Sprintf(format, args...)
	}
}
