package quality

import (
	"encoding/json"
	"strings"
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

// readRecord reads a stored DCAT-US record. It never fails: a record that is not a JSON object
// reads as empty (and scores 0 but for what Input says of it).
func readRecord(dcat json.RawMessage) record {
	var m map[string]any
	if json.Unmarshal(dcat, &m) != nil || m == nil {
		return record{}
	}
	r := record{
		keyword:      present(m["keyword"]),
		theme:        present(m["theme"]) || present(m["category"]),
		spatial:      present(m["spatial"]),
		temporal:     present(m["temporal"]),
		contactPoint: present(m["contactPoint"]),
		publisher:    present(m["publisher"]),
		issued:       present(m["issued"]),
		modified:     present(m["modified"]),
		accessRights: text(m["accessLevel"]),
		license:      m["license"],
		rights:       m["rights"],
	}
	if r.accessRights == "" {
		r.accessRights = text(m["accessRights"])
	}
	switch d := m["distribution"].(type) {
	case []any:
		for _, x := range d {
			if dist, ok := x.(map[string]any); ok {
				r.distributions = append(r.distributions, dist)
			}
		}
	case map[string]any: // one distribution not in a list
		r.distributions = append(r.distributions, d)
	}
	return r
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
