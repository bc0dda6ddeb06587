// Package portal maps portal API items (CKAN and DKAN packages, Socrata views, ArcGIS items,
// OpenDataSoft datasets; one file per platform) to
// DCAT-US 1.1 dataset objects, meant to validate as "dcatus1.1: non-federal". It is pure: an
// item's JSON as the portal served it in, DCAT-US JSON out. Fields the item does not have are
// left out, never filled with placeholders, so an item missing a required field (a portal
// package without tags has no keyword) fails validation with the field named. The dataset's
// identifier is the record's harvest identifier ("<portal base URL>/dataset/<id>"), which is
// unique across sources, except for a CKAN package that carries its original DCAT-US
// identifier in its "identifier" extra (ckanext-datajson's harvester writes it; see CKAN).
package portal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// ErrNotItem is the cause of a Transform error for a body that is not a JSON object.
var ErrNotItem = errors.New("the portal item is not a JSON object")

// Warning is a non-fatal note about a mapped item: the DCAT-US field and what was done.
type Warning = dcatus.Warning

// text returns a JSON value as text: a string trimmed, a number's digits, "" for anything else.
func text(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return strings.TrimSpace(s)
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return string(raw)
	}
	return ""
}

// decoded returns the JSON document a string field holds (CKAN-compatible portals encode
// arrays and objects inside strings: EnviDat's author, spatial…), or raw itself when it is
// not such a string.
func decoded(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return raw
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	s = strings.TrimSpace(s)
	if (strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{")) && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return raw
}

// strings of a JSON array of strings (or of a string holding one); nil otherwise.
func stringList(raw json.RawMessage) []string {
	raw = decoded(raw)
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		if s := text(raw); s != "" {
			return []string{s}
		}
		return nil
	}
	var out []string
	for _, v := range list {
		if s := text(v); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// mailto makes an e-mail address a mailto: URI ("" stays "").
func mailto(email string) string {
	email = strings.TrimSpace(email)
	if email == "" || strings.HasPrefix(strings.ToLower(email), "mailto:") {
		return email
	}
	return "mailto:" + email
}

// isURL reports whether s is an absolute http(s) URL.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// isMediaType reports whether s looks like a media type (type/subtype, no spaces).
func isMediaType(s string) bool {
	i := strings.IndexByte(s, '/')
	return i > 0 && i < len(s)-1 && !strings.ContainsAny(s, " \t,;") && strings.Count(s, "/") == 1
}

// unique drops repeats and empty strings, keeping the first of each.
func unique(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Spatial maps a portal's spatial value to DCAT-US spatial: a GeoJSON geometry (an object, or
// a string holding one, as CKAN's ckanext-spatial "spatial" extra and EnviDat's field are)
// becomes its bounding box "west,south,east,north" (Data.gov's form); any other non-empty
// string (a place name, a WKT text) is kept as it is. ok is false when there is nothing.
func Spatial(raw json.RawMessage) (spatial string, ok bool) {
	doc := decoded(raw)
	if len(doc) > 0 && doc[0] == '{' {
		if box, ok := bbox(doc); ok {
			return box, true
		}
	}
	if s := text(raw); s != "" {
		return s, true
	}
	return "", false
}

// bbox returns the bounding box of a GeoJSON geometry, feature or feature collection.
func bbox(doc json.RawMessage) (string, bool) {
	var g struct {
		Coordinates json.RawMessage   `json:"coordinates"`
		Geometry    json.RawMessage   `json:"geometry"`
		Geometries  []json.RawMessage `json:"geometries"`
		Features    []json.RawMessage `json:"features"`
	}
	if json.Unmarshal(doc, &g) != nil {
		return "", false
	}
	w, s, e, n := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	var walk func(v any)
	walk = func(v any) {
		arr, ok := v.([]any)
		if !ok {
			return
		}
		if len(arr) >= 2 {
			x, okx := arr[0].(float64)
			y, oky := arr[1].(float64)
			if okx && oky {
				w, e, s, n = math.Min(w, x), math.Max(e, x), math.Min(s, y), math.Max(n, y)
				return
			}
		}
		for _, c := range arr {
			walk(c)
		}
	}
	var parts []json.RawMessage
	switch {
	case len(g.Coordinates) > 0:
		var c any
		if json.Unmarshal(g.Coordinates, &c) == nil {
			walk(c)
		}
	case len(g.Geometry) > 0:
		parts = append(parts, g.Geometry)
	}
	parts = append(parts, g.Geometries...)
	parts = append(parts, g.Features...)
	for _, p := range parts {
		if box, ok := bbox(p); ok {
			var bw, bs, be, bn float64
			fmt.Sscanf(box, "%g,%g,%g,%g", &bw, &bs, &be, &bn)
			w, s, e, n = math.Min(w, bw), math.Min(s, bs), math.Max(e, be), math.Max(n, bn)
		}
	}
	if math.IsInf(w, 0) {
		return "", false
	}
	return fmt.Sprintf("%g,%g,%g,%g", w, s, e, n), true
}

// licenseURLs maps CKAN license ids (CKAN's default license list and common variants) to
// their URLs.
var licenseURLs = map[string]string{
	"cc-by":           "https://creativecommons.org/licenses/by/4.0/",
	"cc-by-4.0":       "https://creativecommons.org/licenses/by/4.0/",
	"cc-by-sa":        "https://creativecommons.org/licenses/by-sa/4.0/",
	"cc-by-sa-4.0":    "https://creativecommons.org/licenses/by-sa/4.0/",
	"cc-zero":         "https://creativecommons.org/publicdomain/zero/1.0/",
	"cc0-1.0":         "https://creativecommons.org/publicdomain/zero/1.0/",
	"cc-nc":           "https://creativecommons.org/licenses/by-nc/4.0/",
	"gfdl":            "https://www.gnu.org/licenses/fdl-1.3.html",
	"odc-by":          "https://opendatacommons.org/licenses/by/1-0/",
	"odc-odbl":        "https://opendatacommons.org/licenses/odbl/1-0/",
	"odc-pddl":        "https://opendatacommons.org/licenses/pddl/1-0/",
	"uk-ogl":          "https://www.nationalarchives.gov.uk/doc/open-government-licence/version/3/",
	"us-pd":           "https://www.usa.gov/government-works",
	"other-pd":        "https://creativecommons.org/publicdomain/mark/1.0/",
	"lov2":            "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
	"fr-lo":           "https://www.etalab.gouv.fr/licence-ouverte-open-licence/",
	"odc-odbl-1.0":    "https://opendatacommons.org/licenses/odbl/1-0/",
	"mit":             "https://opensource.org/licenses/MIT",
	"apache-2.0":      "https://www.apache.org/licenses/LICENSE-2.0",
	"cc-by-nc-4.0":    "https://creativecommons.org/licenses/by-nc/4.0/",
	"cc-by-nd-4.0":    "https://creativecommons.org/licenses/by-nd/4.0/",
	"cc-by-nc-sa-4.0": "https://creativecommons.org/licenses/by-nc-sa/4.0/",
}

// LicenseURL returns the license URL of a CKAN package: license_url when it is a URL, else
// the URL of a known license_id (licenseURLs, case-insensitive), else a license_id that is
// itself a URL; "" when none is known ("notspecified", "other-open"…).
func LicenseURL(licenseURL, licenseID string) string {
	if isURL(licenseURL) {
		return licenseURL
	}
	if u, ok := licenseURLs[strings.ToLower(strings.TrimSpace(licenseID))]; ok {
		return u
	}
	if isURL(licenseID) {
		return licenseID
	}
	return ""
}
