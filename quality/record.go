package quality

import (
	"encoding/json"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// record is what the MQA reads of a DCAT-US dataset (1.1 or 3.0), read loosely: any field may
// be missing, null, a string where a list belongs or a list where a string belongs.
type record struct {
	keyword, theme, spatial, temporal bool
	contactPoint, publisher           bool
	issued, modified                  bool
	accessRights                      string // accessLevel (1.1) or accessRights (3.0), else ""
	license, rights                   any    // the dataset's; 1.1 puts them here for every distribution
	distributions                     []map[string]any
}

// recordFields are the members of a DCAT-US dataset that the MQA reads, as they are written
// (the last of a name written twice); json v2 skips the others without making them maps and
// strings, as a map[string]any of the whole record would. Each member read is decoded as
// encoding/json decodes it into a map.
type recordFields struct {
	Keyword      jsontext.Value `json:"keyword"`
	Theme        jsontext.Value `json:"theme"`
	Category     jsontext.Value `json:"category"`
	Spatial      jsontext.Value `json:"spatial"`
	Temporal     jsontext.Value `json:"temporal"`
	ContactPoint jsontext.Value `json:"contactPoint"`
	Publisher    jsontext.Value `json:"publisher"`
	Issued       jsontext.Value `json:"issued"`
	Modified     jsontext.Value `json:"modified"`
	AccessLevel  jsontext.Value `json:"accessLevel"`
	AccessRights jsontext.Value `json:"accessRights"`
	License      jsontext.Value `json:"license"`
	Rights       jsontext.Value `json:"rights"`
	Distribution jsontext.Value `json:"distribution"`
}

// readOptions read a record as encoding/json reads it: names matched exactly, the last of a
// repeated name kept, invalid UTF-8 let through (and replaced when a member is decoded).
var readOptions = jsonv2.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// readRecord reads a stored DCAT-US record. It never fails: a record that is not a JSON object
// reads as empty (and scores 0 but for what Input says of it).
func readRecord(dcat json.RawMessage) record {
	var m recordFields
	if jsonv2.Unmarshal(dcat, &m, readOptions) != nil {
		return record{}
	}
	r := record{
		keyword:      present(value(m.Keyword)),
		theme:        present(value(m.Theme)) || present(value(m.Category)),
		spatial:      present(value(m.Spatial)),
		temporal:     present(value(m.Temporal)),
		contactPoint: present(value(m.ContactPoint)),
		publisher:    present(value(m.Publisher)),
		issued:       present(value(m.Issued)),
		modified:     present(value(m.Modified)),
		accessRights: text(value(m.AccessLevel)),
		license:      value(m.License),
		rights:       value(m.Rights),
	}
	if r.accessRights == "" {
		r.accessRights = text(value(m.AccessRights))
	}
	r.distributions = distributions(value(m.Distribution))
	return r
}

// distributions are the distribution objects of a record's distribution member d: those of a
// list (other elements skipped), or d alone when it is one object not in a list.
func distributions(d any) []map[string]any {
	var out []map[string]any
	switch d := d.(type) {
	case []any:
		for _, x := range d {
			if dist, ok := x.(map[string]any); ok {
				out = append(out, dist)
			}
		}
	case map[string]any:
		out = append(out, d)
	}
	return out
}

// value is the member v decoded as encoding/json decodes into an any; nil when absent.
func value(v jsontext.Value) any {
	if len(v) == 0 {
		return nil
	}
	var x any
	_ = jsonv2.Unmarshal(v, &x, jsonv1.DefaultOptionsV1()) // json.Unmarshal's result, in less time
	return x
}

// present reports whether a JSON value says something: a non-blank string, a number or a
// boolean, a list with a present element, or an object with a present member other than @type
// (so {"@type": "vcard:Contact"} is no contact point).
func present(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case string:
		return strings.TrimSpace(v) != ""
	case []any:
		for _, x := range v {
			if present(x) {
				return true
			}
		}
		return false
	case map[string]any:
		for k, x := range v {
			if k != "@type" && present(x) {
				return true
			}
		}
		return false
	}
	return true
}

// text returns a JSON string trimmed, the first string of a list, or a 3.0 object's @id, else "".
func text(v any) string {
	switch v := v.(type) {
	case string:
		return strings.TrimSpace(v)
	case []any:
		for _, x := range v {
			if s := text(x); s != "" {
				return s
			}
		}
	case map[string]any:
		return text(v["@id"])
	}
	return ""
}
