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
// into p with the source type (defaults applied). The type-bound fields (url, source_type,
// schema_type, collection_parent_url, waf_time_zone, options, precedence) follow the source
// rule table (harvest.SourceFields.Check: the CLI and the web form say the same); beyond them a name is
// required, and frequency, notification_frequency and each notification email must parse.
func CheckSource(p *SourceInsertParams, schemaType string, fields map[string]string) {
	if p.Name == "" {
		addField(fields, "name", "required")
	}
	in := harvest.SourceFields{URL: p.URL, SourceType: string(p.SourceType), SchemaType: schemaType,
		CollectionParentURL: p.CollectionParentURL, WAFTimeZone: p.WAFTimeZone, Options: p.Options,
		Precedence: p.Precedence}
	st, schema, bad := in.Check()
	for k, msg := range bad {
		addField(fields, k, "%s", msg)
	}
	if st != "" {
		p.SourceType = st
	}
	p.SchemaType = schema
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
