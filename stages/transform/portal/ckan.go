package portal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// ckanPackage is the part of a CKAN package (package_search result, package_show) mapped.
// Values are raw: CKAN-compatible portals give numbers for ids, JSON inside strings, nulls.
type ckanPackage struct {
	ID               json.RawMessage `json:"id"`
	Name             json.RawMessage `json:"name"`
	Title            json.RawMessage `json:"title"`
	Notes            json.RawMessage `json:"notes"`
	Tags             json.RawMessage `json:"tags"`
	Groups           json.RawMessage `json:"groups"`
	Organization     json.RawMessage `json:"organization"`
	Author           json.RawMessage `json:"author"`
	AuthorEmail      json.RawMessage `json:"author_email"`
	Maintainer       json.RawMessage `json:"maintainer"`
	MaintainerEmail  json.RawMessage `json:"maintainer_email"`
	MetadataModified json.RawMessage `json:"metadata_modified"`
	MetadataCreated  json.RawMessage `json:"metadata_created"`
	LicenseID        json.RawMessage `json:"license_id"`
	LicenseURL       json.RawMessage `json:"license_url"`
	Private          json.RawMessage `json:"private"`
	Spatial          json.RawMessage `json:"spatial"`
	Extras           json.RawMessage `json:"extras"`
	Resources        []ckanResource  `json:"resources"`
}

// ckanResource is the part of a CKAN resource the mapping reads.
type ckanResource struct {
	Name        json.RawMessage `json:"name"`
	Description json.RawMessage `json:"description"`
	Format      json.RawMessage `json:"format"`
	Mimetype    json.RawMessage `json:"mimetype"`
	URL         json.RawMessage `json:"url"`
	AccessURL   json.RawMessage `json:"accessURL"` // ckanext-datajson: the accessURL beside a downloadURL
}

// CKANExtras returns a package's extras by key: CKAN writes them as a list of {key, value}
// (keys may repeat: the first is kept; values may be strings, arrays or booleans), some
// portals as an object. Values are raw JSON.
func CKANExtras(raw json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	raw = bytes.TrimSpace(raw)
	var list []struct {
		Key   string          `json:"key"`
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &list) == nil {
		for _, kv := range list {
			if _, dup := out[kv.Key]; !dup {
				out[kv.Key] = kv.Value
			}
		}
		return out
	}
	_ = json.Unmarshal(raw, &out)
	return out
}

// CKAN maps one CKAN package (as package_search or package_show served it, JSON) to a DCAT-US
// 1.1 dataset object. identifier is the record's harvest identifier, "<portal base
// URL>/dataset/<package id>": it is the dataset's identifier unless the package carries the
// original one, and the landing page is the package's page under the same base (by name,
// else id). publisherName, the harvest source's organization, names the publisher when the
// package has no organization.
//
// Mapping: title ← title (else name); description ← notes; keyword ← tags[].name (or
// display_name; strings taken as they are); theme ← groups[].title (else name); publisher.name
// ← organization.title (else name, else publisherName); contactPoint ← maintainer and
// maintainer_email, else author and author_email (a JSON list of people encoded in a string,
// as EnviDat has, gives its first name and email); modified ← metadata_modified; issued ←
// metadata_created; license ← license_url, or license_id's URL (LicenseURL); accessLevel ←
// "public" ("non-public" for a private package); spatial ← the "spatial" extra or field
// (Spatial: GeoJSON → bounding box); temporal ← extras temporal_start/temporal_end
// ("start/end"); bureauCode, programCode ← those extras (a catalog.data.gov package harvested
// from a data.json); distribution ← resources: title ← name, description, format, mediaType ←
// mimetype when it is a media type, downloadURL ← url with a media type, accessURL ← url
// without one.
//
// A package that ckanext-datajson's harvester wrote from a data.json (catalog.data.gov's, or
// Harvester's own CKAN API) keeps the DCAT-US fields CKAN has no column for in its extras;
// those win over the columns: identifier, modified, issued, publisher (a name), accessLevel,
// license, landingPage, accrualPeriodicity, rights, isPartOf, language and references. So a
// catalog harvested through a chain of CKAN APIs keeps its records' own identifiers and dates.
// A resource's "accessURL" member (ckanext-datajson writes it beside a downloadURL) is the
// distribution's accessURL, and its url then the downloadURL.
func CKAN(body []byte, identifier, publisherName string) ([]byte, []Warning, error) {
	var p ckanPackage
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNotItem, err)
	}
	var warnings []Warning
	d := dcatus.NewDataset(identifier)
	d.Title = text(p.Title)
	if d.Title == "" {
		d.Title = text(p.Name)
	}
	d.Description = text(p.Notes)
	d.Keyword = unique(ckanNames(p.Tags, "name", "display_name"))
	d.Theme = unique(ckanNames(p.Groups, "title", "name"))
	if org := ckanNames(json.RawMessage("["+string(orNull(p.Organization))+"]"), "title", "name"); len(org) > 0 {
		d.Publisher = dcatus.NewOrganization(org[0])
	} else if publisherName != "" {
		d.Publisher = dcatus.NewOrganization(publisherName)
		warnings = append(warnings, Warning{Field: "publisher", Message: "the package has no organization: the source's organization names the publisher"})
	}
	d.ContactPoint = ckanContact(p.Maintainer, p.MaintainerEmail)
	if d.ContactPoint == nil {
		d.ContactPoint = ckanContact(p.Author, p.AuthorEmail)
	}
	d.Modified = text(p.MetadataModified)
	d.Issued = text(p.MetadataCreated)
	d.License = LicenseURL(text(p.LicenseURL), text(p.LicenseID))
	if string(bytes.TrimSpace(p.Private)) == "true" {
		d.AccessLevel = "non-public"
	}
	extras := CKANExtras(p.Extras)
	if s, ok := Spatial(extras["spatial"]); ok {
		d.Spatial = s
	} else if s, ok := Spatial(p.Spatial); ok {
		d.Spatial = s
	}
	if start, end := text(extras["temporal_start"]), text(extras["temporal_end"]); start != "" && end != "" {
		d.Temporal = start + "/" + end
	} else if t := text(extras["temporal"]); t != "" {
		d.Temporal = t
	}
	d.BureauCode = stringList(extras["bureauCode"])
	d.ProgramCode = stringList(extras["programCode"])
	datajsonExtras(d, extras)
	if base, ok := strings.CutSuffix(identifier, "/dataset/"+text(p.ID)); ok && isURL(base) && d.LandingPage == "" {
		page := text(p.Name)
		if page == "" {
			page = text(p.ID)
		}
		d.LandingPage = base + "/dataset/" + page
	}
	dists, w := ckanDistributions(p.Resources)
	d.Distribution = append(d.Distribution, dists...)
	warnings = append(warnings, w...)
	out, err := d.Encode()
	return out, warnings, err
}

// ckanDistributions are a package's resources as DCAT-US distributions, with a warning for
// each resource whose url cannot be one (left out).
func ckanDistributions(resources []ckanResource) (out []dcatus.Distribution, warnings []Warning) {
	for _, r := range resources {
		dist := dcatus.Distribution{Type: dcatus.TypeDistribution, Title: text(r.Name), Description: text(r.Description),
			Format: text(r.Format)}
		u := text(r.URL)
		if mt := text(r.Mimetype); isMediaType(mt) {
			dist.MediaType = mt
		}
		if access := text(r.AccessURL); isResourceURL(access) {
			dist.AccessURL = access
			if u == access {
				u = ""
			} else if isResourceURL(u) {
				dist.DownloadURL = u
				u = ""
			}
		}
		switch {
		case u == "" && dist.AccessURL != "":
		case !isResourceURL(u):
			if u != "" {
				warnings = append(warnings, Warning{Field: "distribution", Message: fmt.Sprintf("resource %q: url %q is not an http(s) or ftp URL; left out", dist.Title, u)})
			}
		case dist.MediaType != "":
			dist.DownloadURL = u
		default:
			dist.AccessURL = u
		}
		out = append(out, dist)
	}
	return out, warnings
}

// isResourceURL reports whether a resource's url can be a distribution's URL: http(s), or
// ftp as many federal distributions are.
func isResourceURL(u string) bool {
	return isURL(u) || strings.HasPrefix(u, "ftp://") || strings.HasPrefix(u, "ftps://")
}

// datajsonExtras sets the fields that ckanext-datajson's harvester keeps in a package's
// extras (MAPPING_V1_1: identifier, modified, publisher, accessLevel, license, ...) over what
// the package's columns gave.
func datajsonExtras(d *dcatus.Dataset, extras map[string]json.RawMessage) {
	set := func(field *string, key string) {
		if v := text(extras[key]); v != "" {
			*field = v
		}
	}
	set(&d.Identifier, "identifier")
	set(&d.Modified, "modified")
	set(&d.Issued, "issued")
	set(&d.License, "license")
	set(&d.LandingPage, "landingPage")
	set(&d.AccrualPeriodicity, "accrualPeriodicity")
	set(&d.Rights, "rights")
	set(&d.IsPartOf, "isPartOf")
	if v := text(extras["publisher"]); v != "" {
		d.Publisher = dcatus.NewOrganization(v)
	}
	switch v := text(extras["accessLevel"]); v {
	case "public", "restricted public", "non-public":
		d.AccessLevel = v
	}
	if v := stringList(extras["language"]); len(v) > 0 {
		d.Language = v
	}
	if v := stringList(extras["references"]); len(v) > 0 {
		d.References = v
	}
}

// orNull is raw, or null when empty.
func orNull(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// ckanNames returns, for each element of a list of CKAN objects (tags, groups, an
// organization), the first of the named members that is a non-empty string; an element that
// is itself a string is taken as it is.
func ckanNames(raw json.RawMessage, members ...string) []string {
	var list []json.RawMessage
	if json.Unmarshal(decoded(raw), &list) != nil {
		return nil
	}
	var out []string
	for _, el := range list {
		if s := text(el); s != "" {
			out = append(out, s)
			continue
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(el, &obj) != nil {
			continue
		}
		for _, m := range members {
			if s := text(obj[m]); s != "" {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// ckanContact is the contact point of a name and email pair, nil without a name or email. A
// name that is a JSON list (or object) of people encoded in a string gives its first person's
// name and email.
func ckanContact(name, email json.RawMessage) *dcatus.ContactPoint {
	fn, mail := text(name), text(email)
	if doc := decoded(name); len(doc) > 0 && (doc[0] == '[' || doc[0] == '{') {
		var people []map[string]json.RawMessage
		if doc[0] == '{' {
			doc = json.RawMessage("[" + string(doc) + "]")
		}
		fn = ""
		if json.Unmarshal(doc, &people) == nil && len(people) > 0 {
			p := people[0]
			fn = text(p["name"])
			if fn == "" {
				fn = strings.TrimSpace(text(p["given_name"]) + " " + text(p["surname"]))
			}
			if mail == "" {
				mail = text(p["email"])
			}
		}
	}
	if fn == "" && mail == "" {
		return nil
	}
	if fn == "" {
		fn = mail
	}
	if mail != "" {
		mail = mailto(mail)
	}
	return dcatus.NewContactPoint(fn, mail)
}
