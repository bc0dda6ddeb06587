package ckan

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/store"
)

// Package is a dataset as CKAN 2.10's package_show answers it. Members CKAN answers null when
// unset are pointers.
type Package struct {
	Author          *string `json:"author"`
	AuthorEmail     *string `json:"author_email"`
	CreatorUserID   *string `json:"creator_user_id"`
	ID              string  `json:"id"`
	IsOpen          bool    `json:"isopen"`
	LicenseID       *string `json:"license_id"`
	LicenseTitle    *string `json:"license_title"`
	LicenseURL      *string `json:"license_url"`
	Maintainer      *string `json:"maintainer"`
	MaintainerEmail *string `json:"maintainer_email"`
	// MetadataCreated and MetadataModified are CKAN's timestamps (UTC, no zone,
	// microseconds): when the catalog first harvested the dataset and last created or
	// changed it. The record's own dates are the "issued" and "modified" extras.
	MetadataCreated        string        `json:"metadata_created"`
	MetadataModified       string        `json:"metadata_modified"`
	Name                   string        `json:"name"`
	Notes                  *string       `json:"notes"`
	NumResources           int           `json:"num_resources"`
	NumTags                int           `json:"num_tags"`
	Organization           *Organization `json:"organization"`
	OwnerOrg               *string       `json:"owner_org"`
	Private                bool          `json:"private"`
	State                  string        `json:"state"`
	Title                  string        `json:"title"`
	Type                   string        `json:"type"`
	URL                    *string       `json:"url"`
	Version                *string       `json:"version"`
	Extras                 []Extra       `json:"extras"`
	Groups                 []Group       `json:"groups"`
	Resources              []Resource    `json:"resources"`
	Tags                   []Tag         `json:"tags"`
	RelationshipsAsObject  []any         `json:"relationships_as_object"`
	RelationshipsAsSubject []any         `json:"relationships_as_subject"`
}

// Extra is one of a package's extras: CKAN's free key/value pairs, values always strings.
type Extra struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Tag is a package's tag: one DCAT-US keyword, as it is (ckanext-datajson munges keywords
// to CKAN tag names; this API keeps them whole, so that a catalog harvesting it gets the
// keywords back).
type Tag struct {
	DisplayName  string  `json:"display_name"`
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	State        string  `json:"state"`
	VocabularyID *string `json:"vocabulary_id"`
}

// Group is a package's group: one DCAT-US theme. Its name is the theme as it is (not a CKAN
// slug), so that fq=groups:"<name>" and the groups facet's names match it.
type Group struct {
	Description     string `json:"description"`
	DisplayName     string `json:"display_name"`
	ID              string `json:"id"`
	ImageDisplayURL string `json:"image_display_url"`
	Name            string `json:"name"`
	Title           string `json:"title"`
}

// Resource is one distribution of a dataset.
type Resource struct {
	Created          string  `json:"created"`
	Description      string  `json:"description"`
	Format           string  `json:"format"`
	Hash             string  `json:"hash"`
	ID               string  `json:"id"`
	LastModified     *string `json:"last_modified"`
	MetadataModified string  `json:"metadata_modified"`
	Mimetype         *string `json:"mimetype"`
	Name             string  `json:"name"`
	PackageID        string  `json:"package_id"`
	Position         int     `json:"position"`
	State            string  `json:"state"`
	URL              string  `json:"url"`
	URLType          *string `json:"url_type"`
	// AccessURL, ConformsTo, DescribedBy and DescribedByType are the distribution's DCAT-US
	// fields that the resource's columns do not hold, as ckanext-datajson adds them.
	AccessURL       string `json:"accessURL,omitempty"`
	ConformsTo      string `json:"conformsTo,omitempty"`
	DescribedBy     string `json:"describedBy,omitempty"`
	DescribedByType string `json:"describedByType,omitempty"`
}

// TimeFormat is how CKAN writes metadata_created and metadata_modified: UTC without a zone.
const TimeFormat = "2006-01-02T15:04:05.000000"

// Timestamp is t in TimeFormat, in UTC; "" for the zero time.
func Timestamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(TimeFormat)
}

// columnFields are the DCAT-US fields that go to package or resource columns, not extras.
var columnFields = map[string]bool{"title": true, "description": true, "keyword": true, "contactPoint": true,
	"distribution": true, "@type": true}

// extraOrder is ckanext-datajson's MAPPING_V1_1 order of the fields it writes as extras; other
// fields of the record follow in name order.
var extraOrder = []string{"modified", "publisher", "identifier", "accessLevel", "bureauCode", "programCode",
	"rights", "license", "spatial", "temporal", "theme", "dataDictionary", "dataQuality", "accrualPeriodicity",
	"landingPage", "language", "primaryITInvestmentUII", "references", "issued", "systemOfRecords"}

// FromDataset maps a live dataset to a CKAN package, as ckanext-datajson's harvester
// (harvester_base.import_stage, parse_datajson_entry) maps a DCAT-US dataset:
//
//	id ← the dataset's id; name ← its slug; title; notes ← description; tags ← keyword (whole);
//	maintainer, maintainer_email ← contactPoint fn, hasEmail (without mailto:);
//	license_url ← license, license_id ← its CKAN id (LicenseID); url ← landingPage;
//	groups ← theme; organization, owner_org ← the harvest source's owner organization;
//	resources ← distribution: url ← downloadURL, else accessURL; format ← format, else
//	mediaType; mimetype ← mediaType; name ← title; description; accessURL, conformsTo,
//	describedBy, describedByType as members of the resource;
//	extras ← every other field of the record (the original identifier, modified, issued,
//	publisher's name, publisher_hierarchy, accessLevel, bureauCode, ...): strings as they
//	are, arrays and objects as compact JSON; then harvest_source_id, harvest_source_title
//	and source_schema_version, as ckanext-datajson writes them.
//
// metadata_created is when the catalog first harvested the identifier (else its last
// harvest), metadata_modified its last harvest. A record that is not a JSON object gives a
// package with its ids and name only.
func FromDataset(ld *store.LiveDataset) *Package {
	created := ld.FirstHarvested
	if created.IsZero() {
		created = ld.LastHarvestedDate
	}
	p := &Package{ID: ld.ID, Name: ld.Slug, State: "active", Type: "dataset",
		MetadataCreated: Timestamp(created), MetadataModified: Timestamp(ld.LastHarvestedDate),
		Extras: []Extra{}, Groups: []Group{}, Resources: []Resource{}, Tags: []Tag{},
		RelationshipsAsObject: []any{}, RelationshipsAsSubject: []any{}}
	if ld.OrganizationID != "" {
		p.Organization = &Organization{ID: ld.OrganizationID, Name: ld.OrganizationSlug, Title: ld.OrganizationName,
			Type: "organization", IsOrganization: true, State: "active", ApprovalStatus: "approved"}
		p.OwnerOrg = &ld.OrganizationID
	}
	var rec map[string]any
	if json.Unmarshal(ld.DCAT, &rec) != nil || rec == nil {
		return p
	}
	p.Title = str(rec["title"])
	p.Notes = nullable(str(rec["description"]))
	for _, kw := range strs(rec["keyword"]) {
		p.Tags = append(p.Tags, Tag{DisplayName: kw, ID: childID(ld.ID, "tag", kw), Name: kw, State: "active"})
	}
	p.NumTags = len(p.Tags)
	for _, th := range strs(rec["theme"]) {
		p.Groups = append(p.Groups, Group{DisplayName: th, ID: childID("", "group", th), Name: th, Title: th})
	}
	fn, email := contact(rec["contactPoint"])
	p.Maintainer, p.MaintainerEmail = nullable(fn), nullable(email)
	if lic := str(rec["license"]); lic != "" {
		id, title := LicenseID(lic)
		p.LicenseURL, p.LicenseID, p.LicenseTitle = &lic, &id, &title
		p.IsOpen = openLicenses[id]
	}
	p.URL = nullable(str(rec["landingPage"]))
	p.Resources = resources(ld, rec["distribution"], p.MetadataCreated, p.MetadataModified)
	p.NumResources = len(p.Resources)
	p.Extras = extras(ld, rec)
	return p
}

// extras are a record's fields that no column holds, with the harvest extras.
func extras(ld *store.LiveDataset, rec map[string]any) []Extra {
	out := []Extra{}
	done := map[string]bool{}
	add := func(key string, v any) {
		if s := extraValue(v); s != "" {
			out = append(out, Extra{Key: key, Value: s})
		}
		done[key] = true
	}
	for _, k := range extraOrder {
		if k == "publisher" {
			name, hierarchy := publisher(rec[k])
			add(k, name)
			if hierarchy != "" {
				add("publisher_hierarchy", hierarchy)
			}
			continue
		}
		add(k, rec[k])
	}
	for _, k := range slices.Sorted(maps.Keys(rec)) {
		if !done[k] && !columnFields[k] {
			add(k, rec[k])
		}
	}
	add("harvest_source_id", ld.SourceID)
	add("harvest_source_title", ld.SourceName)
	version := "1.1"
	if strings.Contains(ld.SchemaType, "3.0") {
		version = "3.0"
	}
	add("source_schema_version", version)
	return out
}

// resources maps a record's distributions (an array, or one object) to CKAN resources. A
// distribution without a URL is kept with an empty url (ckanext-datajson drops it), so that
// nothing is lost.
func resources(ld *store.LiveDataset, v any, created, modified string) []Resource {
	list, ok := v.([]any)
	if !ok {
		if obj, isObj := v.(map[string]any); isObj {
			list = []any{obj}
		}
	}
	out := []Resource{}
	for _, el := range list {
		d, ok := el.(map[string]any)
		if !ok {
			continue
		}
		download, access := str(d["downloadURL"]), str(d["accessURL"])
		r := Resource{Created: created, MetadataModified: modified, Description: str(d["description"]),
			Format: str(d["format"]), Mimetype: nullable(str(d["mediaType"])), Name: str(d["title"]),
			PackageID: ld.ID, Position: len(out), State: "active", URL: download, AccessURL: access,
			ConformsTo: str(d["conformsTo"]), DescribedBy: str(d["describedBy"]), DescribedByType: str(d["describedByType"])}
		if r.URL == "" {
			r.URL = access
		}
		if r.Format == "" && r.Mimetype != nil {
			r.Format = *r.Mimetype
		}
		r.ID = childID(ld.ID, "resource", strconv.Itoa(r.Position))
		out = append(out, r)
	}
	return out
}

// childID is a stable UUID (version 5) for a tag, group or resource of a dataset: the same
// input gives the same id on every answer.
func childID(datasetID, kind, key string) string {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("harvester:ckan:"+kind+":"+datasetID+":"+key)).String()
}

// contact is a contactPoint's name and e-mail (without mailto:); a DCAT-US 3.0 list gives its
// first.
func contact(v any) (fn, email string) {
	if list, ok := v.([]any); ok && len(list) > 0 {
		v = list[0]
	}
	cp, ok := v.(map[string]any)
	if !ok {
		return "", ""
	}
	email = str(cp["hasEmail"])
	if strings.HasPrefix(strings.ToLower(email), "mailto:") {
		email = email[len("mailto:"):]
	}
	return str(cp["fn"]), email
}

// publisher is a publisher's name and, when it has parents (subOrganizationOf), its hierarchy
// "top > ... > name", as ckanext-datajson writes the publisher and publisher_hierarchy extras.
func publisher(v any) (name, hierarchy string) {
	p, ok := v.(map[string]any)
	if !ok {
		return str(v), ""
	}
	name = str(p["name"])
	var chain []string
	for parent, ok := p["subOrganizationOf"].(map[string]any); ok && len(chain) < 20; parent, ok = parent["subOrganizationOf"].(map[string]any) {
		chain = append(chain, str(parent["name"]))
	}
	if len(chain) == 0 {
		return name, ""
	}
	slices.Reverse(chain)
	return name, strings.Join(append(chain, name), " > ")
}

// extraValue is an extra's value: a string trimmed, a number's or boolean's text, an array or
// object as compact JSON; "" for null and empty values.
func extraValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(x)
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		if len(x) == 0 {
			return ""
		}
	case map[string]any:
		if len(x) == 0 {
			return ""
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// str is a JSON string's value, trimmed; "" for anything else.
func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// strs is a JSON array's non-empty strings, or a lone string as a list of one.
func strs(v any) []string {
	if s := str(v); s != "" {
		return []string{s}
	}
	list, _ := v.([]any)
	var out []string
	for _, el := range list {
		if s := str(el); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// nullable is &s, or nil for "".
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
