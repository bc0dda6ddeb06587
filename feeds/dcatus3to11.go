package feeds

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/harvester-dev/harvester/dcatus"
)

// ErrNotMappable is the cause of every error of MapDCATUS3To11: the DCAT-US 3.0 record cannot be
// written as a valid DCAT-US 1.1 dataset.
var ErrNotMappable = errors.New("cannot be mapped to DCAT-US 1.1")

// nonFederal is the DCAT-US 1.1 schema a mapped 3.0 record is checked against (3.0 has no
// bureauCode or programCode, which the federal schema requires).
const nonFederal = "dcatus1.1: non-federal"

// dataset11 is a DCAT-US 1.1 dataset as MapDCATUS3To11 writes it, its members in the order of
// the Project Open Data v1.1 schema's field list.
type dataset11 struct {
	Type               string           `json:"@type"`
	Title              string           `json:"title"`
	Description        string           `json:"description"`
	Keyword            []string         `json:"keyword"`
	Modified           string           `json:"modified"`
	Publisher          organization11   `json:"publisher"`
	ContactPoint       contact11        `json:"contactPoint"`
	Identifier         string           `json:"identifier"`
	AccessLevel        string           `json:"accessLevel"`
	License            string           `json:"license,omitempty"`
	Rights             string           `json:"rights,omitempty"`
	Spatial            string           `json:"spatial,omitempty"`
	Temporal           string           `json:"temporal,omitempty"`
	Distribution       []distribution11 `json:"distribution,omitempty"`
	AccrualPeriodicity string           `json:"accrualPeriodicity,omitempty"`
	ConformsTo         string           `json:"conformsTo,omitempty"`
	DescribedBy        string           `json:"describedBy,omitempty"`
	DescribedByType    string           `json:"describedByType,omitempty"`
	IsPartOf           string           `json:"isPartOf,omitempty"`
	Issued             string           `json:"issued,omitempty"`
	Language           []string         `json:"language,omitempty"`
	LandingPage        string           `json:"landingPage,omitempty"`
	References         []string         `json:"references,omitempty"`
	Theme              []string         `json:"theme,omitempty"`
}

type organization11 struct {
	Type              string          `json:"@type"`
	Name              string          `json:"name"`
	SubOrganizationOf *organization11 `json:"subOrganizationOf,omitempty"`
}

type contact11 struct {
	Type     string `json:"@type"`
	FN       string `json:"fn"`
	HasEmail string `json:"hasEmail"`
}

type distribution11 struct {
	Type            string `json:"@type"`
	Title           string `json:"title,omitempty"`
	Description     string `json:"description,omitempty"`
	DownloadURL     string `json:"downloadURL,omitempty"`
	MediaType       string `json:"mediaType,omitempty"`
	AccessURL       string `json:"accessURL,omitempty"`
	Format          string `json:"format,omitempty"`
	ConformsTo      string `json:"conformsTo,omitempty"`
	DescribedBy     string `json:"describedBy,omitempty"`
	DescribedByType string `json:"describedByType,omitempty"`
}

// MapDCATUS3To11 writes a DCAT-US 3.0 Dataset record as a DCAT-US 1.1 dataset by the mapping
// docs/catalog.md tables ("From DCAT-US 3.0 to 1.1"), and checks the result against the
// non-federal DCAT-US 1.1 schema (dcatus.NewValidator). A record that is not a JSON object, lacks
// what 1.1 requires (keyword, modified, publisher, contactPoint with fn and hasEmail) or maps to
// something the schema rejects is an error wrapping ErrNotMappable that says why. What 1.1 has
// no field for is not carried. It holds no state and is safe for concurrent use.
func MapDCATUS3To11(record []byte) ([]byte, error) {
	var d map[string]any
	if err := json.Unmarshal(record, &d); err != nil || d == nil {
		return nil, fmt.Errorf("%w: not a JSON object", ErrNotMappable)
	}
	out := dataset11{Type: "dcat:Dataset", Title: str(d["title"]), Description: str(d["description"]),
		Identifier: identifier3(d["identifier"])}
	out.Keyword = unique(strs(d["keyword"]))
	if len(out.Keyword) == 0 {
		out.Keyword = unique(conceptLabels(d["theme"]))
	}
	out.Modified = first(str(d["modified"]), str(d["issued"]), str(d["created"]))
	out.Publisher = publisher11(d["publisher"])
	out.ContactPoint = contact11FromKind(d["contactPoint"])
	out.AccessLevel = accessLevel(str(d["accessRights"]))
	out.Rights = strings.Join(strs(d["rights"]), "; ")
	if len(out.Rights) > 255 { // 1.1's rights is at most 255 characters
		out.Rights = ""
	}
	out.Spatial = spatial11(d["spatial"])
	out.Temporal = temporal11(d["temporal"])
	out.AccrualPeriodicity = periodicity11(str(d["accrualPeriodicity"]))
	out.ConformsTo = standardIRI(d["conformsTo"])
	if db, ok := d["describedBy"].(map[string]any); ok {
		out.DescribedBy = first(str(db["downloadURL"]), str(db["accessURL"]))
		out.DescribedByType = str(db["mediaType"])
	}
	if series, ok := d["inSeries"].([]any); ok && len(series) > 0 {
		if s, ok := series[0].(map[string]any); ok {
			out.IsPartOf = first(identifier3(s["identifier"]), str(s["@id"]))
		}
	}
	out.Issued = str(d["issued"])
	out.Language = unique(strs(d["language"]))
	out.LandingPage = str(d["landingPage"])
	out.References = unique(append(strs(d["isReferencedBy"]), strs(d["relation"])...))
	out.Theme = unique(conceptLabels(d["theme"]))
	out.Distribution, out.License = distributions11(d["distribution"])
	return check11(out)
}

// distributions11 are a 3.0 distribution list's members as 1.1 distributions, and the license
// they share ("" when they name none or several).
func distributions11(v any) (out []distribution11, license string) {
	licenses := map[string]bool{}
	dists, _ := v.([]any)
	for _, x := range dists {
		m, ok := x.(map[string]any)
		if !ok {
			continue
		}
		dist := distribution11{Type: "dcat:Distribution", Title: str(m["title"]), Description: str(m["description"]),
			DownloadURL: str(m["downloadURL"]), AccessURL: str(m["accessURL"]), MediaType: str(m["mediaType"]),
			Format: first(str(m["format"]), conceptLabel(m["format"])), ConformsTo: standardIRI(m["conformsTo"])}
		if db, ok := m["describedBy"].(map[string]any); ok {
			dist.DescribedBy = first(str(db["downloadURL"]), str(db["accessURL"]))
			dist.DescribedByType = str(db["mediaType"])
		}
		if l := first(str(m["license"]), str(mapOf(m["license"])["@id"])); l != "" {
			licenses[l] = true
		}
		out = append(out, dist)
	}
	if len(licenses) == 1 {
		for l := range licenses {
			license = l
		}
	}
	return out, license
}

// validator11 is the non-federal DCAT-US 1.1 validator check11 uses, made once (a Validator is
// safe for concurrent use).
var validator11 = sync.OnceValues(func() (*dcatus.Validator, error) { return dcatus.NewValidator(nonFederal) })

// check11 is the 1.1 record out as JSON once it has 1.1's required fields and passes the
// non-federal schema; ErrNotMappable naming what is missing or wrong otherwise.
func check11(out dataset11) ([]byte, error) {
	var missing []string
	for _, f := range []struct{ name, v string }{{"title", out.Title}, {"description", out.Description},
		{"identifier", out.Identifier}, {"keyword (or a theme's prefLabel)", strings.Join(out.Keyword, "")},
		{"modified (or issued, or created)", out.Modified}, {"publisher's name", out.Publisher.Name},
		{"contactPoint's fn", out.ContactPoint.FN}, {"contactPoint's hasEmail", out.ContactPoint.HasEmail}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: no %s", ErrNotMappable, strings.Join(missing, ", no "))
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotMappable, err)
	}
	v, err := validator11()
	if err != nil {
		return nil, err
	}
	problems, err := v.Validate(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotMappable, err)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %s: %s", ErrNotMappable, problems[0].Path, problems[0].Message)
	}
	return b, nil
}

// accessLevel is DCAT-US 1.1's accessLevel for a 3.0 accessRights text: "non-public" or
// "restricted public" when the text says so, else "public" (the record is in a public catalog).
func accessLevel(rights string) string {
	r := strings.ToLower(rights)
	switch {
	case strings.Contains(r, "non-public"), strings.Contains(r, "not public"):
		return "non-public"
	case strings.Contains(r, "restricted"):
		return "restricted public"
	}
	return "public"
}

// publisher11 is a 3.0 publisher (an Organization, or the first of a list) as a 1.1
// org:Organization, with the first level of subOrganizationOf.
func publisher11(v any) organization11 {
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0]
	}
	m := mapOf(v)
	if m == nil {
		return organization11{Type: "org:Organization"}
	}
	o := organization11{Type: "org:Organization", Name: first(str(m["name"]), str(m["foaf:name"]), str(m["prefLabel"]))}
	if sub := publisher11(m["subOrganizationOf"]); sub.Name != "" {
		sub.SubOrganizationOf = nil
		o.SubOrganizationOf = &sub
	}
	return o
}

// contact11FromKind is a 3.0 contactPoint (a Kind, or the first of a list) as a vcard:Contact.
func contact11FromKind(v any) contact11 {
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0]
	}
	m := mapOf(v)
	email := str(m["hasEmail"])
	if email != "" && !strings.HasPrefix(email, "mailto:") {
		email = "mailto:" + email
	}
	return contact11{Type: "vcard:Contact", FN: str(m["fn"]), HasEmail: email}
}

// spatial11 is a 3.0 spatial Location (or the first of a list) as 1.1's text: its bbox,
// geometry or centroid (a string as is, GeoJSON as its JSON text), else its prefLabel; a string
// as is.
func spatial11(v any) string {
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0]
	}
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s)
	}
	m := mapOf(v)
	for _, k := range []string{"bbox", "geometry", "centroid"} {
		switch g := m[k].(type) {
		case string:
			if s := strings.TrimSpace(g); s != "" {
				return s
			}
		case map[string]any, []any:
			b, _ := json.Marshal(g)
			return string(b)
		}
	}
	return str(m["prefLabel"])
}

// temporal11 is the first 3.0 PeriodOfTime with both a start and an end date as 1.1's
// "start/end" interval; "" when none has both (1.1 has no open interval).
func temporal11(v any) string {
	if m, ok := v.(map[string]any); ok {
		v = []any{m}
	}
	arr, _ := v.([]any)
	for _, x := range arr {
		m := mapOf(x)
		start, end := str(m["startDate"]), str(m["endDate"])
		if start != "" && end != "" {
			return start + "/" + end
		}
	}
	return ""
}

// frequencies11 are DCAT-US 1.1's accrualPeriodicity for ISO 19115 MD_MaintenanceFrequencyCode
// and Dublin Core Collection Description Frequency words (what 3.0 takes), lowercased.
var frequencies11 = map[string]string{
	"continual": "R/PT1S", "continuous": "R/PT1S", "hourly": "R/PT1H", "daily": "R/P1D", "weekly": "R/P1W",
	"fortnightly": "R/P2W", "biweekly": "R/P2W", "monthly": "R/P1M", "bimonthly": "R/P2M", "quarterly": "R/P3M",
	"biannually": "R/P6M", "semiannual": "R/P6M", "annually": "R/P1Y", "annual": "R/P1Y", "biennial": "R/P2Y",
	"triennial": "R/P3Y", "decennial": "R/P10Y", "irregular": "irregular", "asneeded": "irregular",
	"notplanned": "irregular", "unknown": "irregular",
}

// periodicity11 is a 3.0 accrualPeriodicity as 1.1's: an R/… duration or "irregular" as it is,
// else a frequency word (alone or the last segment of a vocabulary IRI) by frequencies11; ""
// for anything else.
func periodicity11(v string) string {
	if strings.HasPrefix(v, "R/") || v == "irregular" {
		return v
	}
	word := strings.ToLower(v[strings.LastIndexAny(v, "/#")+1:])
	return frequencies11[word]
}

// standardIRI is the first 3.0 Standard's IRI (its @id, else its identifier when that is a
// URI); a string as is.
func standardIRI(v any) string {
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0]
	}
	if s, ok := v.(string); ok {
		return strings.TrimSpace(s)
	}
	m := mapOf(v)
	if id := str(m["@id"]); id != "" {
		return id
	}
	if id := identifier3(m["identifier"]); isHTTP(id) {
		return id
	}
	return ""
}

// identifier3 reads a DCAT-US 3.0 identifier: a string, or an Identifier object's notation,
// else its @id.
func identifier3(v any) string {
	if m, ok := v.(map[string]any); ok {
		return first(str(m["notation"]), str(m["@id"]))
	}
	return str(v)
}

func isHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// conceptLabels are the prefLabels of a list of 3.0 Concepts (strings as they are).
func conceptLabels(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, x := range arr {
		if s := first(str(x), conceptLabel(x)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func conceptLabel(v any) string {
	m := mapOf(v)
	return first(str(m["prefLabel"]), str(m["skos:prefLabel"]))
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// strs are the non-empty strings of a JSON array, or a string as a one-item list.
func strs(v any) []string {
	switch v := v.(type) {
	case string:
		if s := strings.TrimSpace(v); s != "" {
			return []string{s}
		}
	case []any:
		var out []string
		for _, x := range v {
			if s := str(x); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// unique is vs without repeats, in first-seen order (1.1's lists are uniqueItems).
func unique(vs []string) []string {
	seen := make(map[string]bool, len(vs))
	out := vs[:0]
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
