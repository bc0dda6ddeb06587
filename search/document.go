package search

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// Document is what the index holds of one dataset. Field names follow DCAT-US 1.1
// (https://resources.data.gov/resources/dcat-us/) in snake case; DCAT is the whole record,
// stored but not indexed field by field.
type Document struct {
	ID                 string          `json:"id"`
	Slug               string          `json:"slug,omitempty"`
	Title              string          `json:"title,omitempty"`
	TitleSort          string          `json:"title_sort,omitempty"` // SortKey(Title): the order of searches without text
	Description        string          `json:"description,omitempty"`
	Keyword            []string        `json:"keyword,omitempty"`
	Theme              []string        `json:"theme,omitempty"`
	Publisher          string          `json:"publisher,omitempty"`
	Organization       string          `json:"organization,omitempty"`
	Identifier         string          `json:"identifier"`
	LandingPage        string          `json:"landing_page,omitempty"`
	DistributionTitle  []string        `json:"distribution_title,omitempty"`
	DistributionFormat []string        `json:"distribution_format,omitempty"`
	Modified           string          `json:"modified,omitempty"` // RFC 3339, only when the record's value is a date or date-time
	Issued             string          `json:"issued,omitempty"`   // RFC 3339, likewise
	SourceID           string          `json:"source_id"`
	RecordID           string          `json:"record_id,omitempty"`
	Extent             *Extent         `json:"extent,omitempty"`   // the spatial value's bounding box (SpatialBBox), when it has one
	Temporal           string          `json:"temporal,omitempty"` // DCAT-US 1.1 text, or a 3.0 PeriodOfTime as "start/end"
	DCAT               json.RawMessage `json:"dcat,omitempty"`
}

// Extent is a dataset's bounding box as the index holds it, in WGS84 degrees, with East
// unwrapped: a box across the 180th meridian (BBox West > East) has East+360, so West ≤ East
// always, West in -180..180 and East in -180..540. Both indexes store the four numbers and
// compare them the same way (Query.BBox; BBox.Intersects is the rule in Go).
type Extent struct {
	West  float64 `json:"west"`
	South float64 `json:"south"`
	East  float64 `json:"east"`
	North float64 `json:"north"`
}

// ExtentOf returns the Extent of b.
func ExtentOf(b BBox) *Extent {
	e := &Extent{West: b.West, South: b.South, East: b.East, North: b.North}
	if b.West > b.East {
		e.East += 360
	}
	return e
}

// LonRanges are the longitude ranges (each West ≤ East, in -180..180) that b covers: one, or
// two for a box across the 180th meridian.
func (b BBox) LonRanges() [][2]float64 {
	if b.West <= b.East {
		return [][2]float64{{b.West, b.East}}
	}
	return [][2]float64{{b.West, 180}, {-180, b.East}}
}

// Intersects reports whether an indexed extent e meets b (edges touching count): their
// latitudes overlap, and one of b's longitude ranges [w, e] overlaps [e.West, e.East] or, for
// an extent across the 180th meridian, [w+360, e+360]. Search implementations express this same
// rule as range queries on the four numbers.
func (b BBox) Intersects(e Extent) bool {
	if e.South > b.North || e.North < b.South {
		return false
	}
	for _, r := range b.LonRanges() {
		if (e.West <= r[1] && e.East >= r[0]) || (e.West <= r[1]+360 && e.East >= r[0]+360) {
			return true
		}
	}
	return false
}

// dcatFields are the DCAT-US fields a Document is made of. Types are loose on purpose:
// harvested records put strings where arrays belong and the other way round.
type dcatFields struct {
	Title        any `json:"title"`
	Description  any `json:"description"`
	Keyword      any `json:"keyword"`
	Theme        any `json:"theme"`
	Publisher    any `json:"publisher"`
	LandingPage  any `json:"landingPage"`
	Modified     any `json:"modified"`
	Issued       any `json:"issued"`
	Spatial      any `json:"spatial"`
	Distribution any `json:"distribution"`
	Identifier   any `json:"identifier"`
	Temporal     any `json:"temporal"`
}

// FromDataset returns the Document of a live dataset owned by the organization named org.
// Fields of the wrong JSON type are left out; a record that is not a JSON object gives a
// document with ids only. It never fails: the index must hold every dataset.
func FromDataset(d *store.Dataset, org string) Document {
	doc := Document{ID: d.ID, Slug: d.Slug, Identifier: d.Identifier, SourceID: d.SourceID,
		RecordID: d.RecordID, Organization: org, DCAT: d.DCAT}
	var f dcatFields
	if json.Unmarshal(d.DCAT, &f) != nil {
		return doc
	}
	doc.Title = str(f.Title)
	doc.TitleSort = SortKey(doc.Title)
	doc.Description = str(f.Description)
	doc.Keyword = uniq(strs(f.Keyword))
	doc.Theme = uniq(strs(f.Theme))
	if p, ok := f.Publisher.(map[string]any); ok {
		doc.Publisher = agentName(p)
	}
	if f.Identifier != nil {
		doc.Identifier = cmpStr(identifierOf(f.Identifier), doc.Identifier)
	}
	if s := periodOf(f.Temporal); s != "" {
		doc.Temporal = s
	}
	doc.LandingPage = str(f.LandingPage)
	doc.Modified = date(str(f.Modified))
	doc.Issued = date(str(f.Issued))
	b := SpatialBBox(f.Spatial)
	if b == nil && f.Spatial != nil {
		b = SpatialBBox(locationGeometry(f.Spatial))
	}
	if b != nil {
		doc.Extent = ExtentOf(*b)
	}
	dists, _ := f.Distribution.([]any)
	for _, x := range dists {
		dist, ok := x.(map[string]any)
		if !ok {
			continue
		}
		if t := str(dist["title"]); t != "" {
			doc.DistributionTitle = append(doc.DistributionTitle, t)
		}
		if ft := cmpStr(str(dist["format"]), str(dist["mediaType"])); ft != "" && !slices.Contains(doc.DistributionFormat, ft) {
			doc.DistributionFormat = append(doc.DistributionFormat, ft)
		}
	}
	return doc
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func str(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(s)
}

// strs returns the non-empty strings of a JSON array, or a one-element slice of a string.
func strs(v any) []string {
	var out []string
	switch v := v.(type) {
	case string:
		if s := strings.TrimSpace(v); s != "" {
			out = append(out, s)
		}
	case []any:
		for _, x := range v {
			if s := cmpStr(str(x), conceptLabel(x)); s != "" {
				out = append(out, s)
			}
		}
	case map[string]any:
		if s := conceptLabel(v); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// conceptLabel is the prefLabel of a DCAT-US 3.0 Concept (a theme), else "".
func conceptLabel(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	return cmpStr(str(m["prefLabel"]), str(m["skos:prefLabel"]))
}

// agentName is the name of a DCAT-US publisher: 1.1's Organization name, or a 3.0 Agent's
// name (foaf:name), else its prefLabel.
func agentName(p map[string]any) string {
	return cmpStr(cmpStr(str(p["name"]), str(p["foaf:name"])), str(p["prefLabel"]))
}

// identifierOf reads a DCAT-US identifier: a string, or a 3.0 Identifier object's @id, else
// its notation.
func identifierOf(v any) string {
	if m, ok := v.(map[string]any); ok {
		return cmpStr(str(m["@id"]), str(m["notation"]))
	}
	return str(v)
}

// periodOf writes a temporal value: DCAT-US 1.1's text as is, or a 3.0 PeriodOfTime (an object
// or the first of an array) as "startDate/endDate" (either may be empty).
func periodOf(v any) string {
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0]
	}
	if m, ok := v.(map[string]any); ok {
		start, end := cmpStr(str(m["startDate"]), str(m["hasBeginning"])), cmpStr(str(m["endDate"]), str(m["hasEnd"]))
		if start == "" && end == "" {
			return ""
		}
		return start + "/" + end
	}
	return str(v)
}

// locationGeometry is the geometry of a DCAT-US 3.0 Location (an object, or the first of an
// array, with a bbox or geometry member: GeoJSON, an object or a string), else v itself.
func locationGeometry(v any) any {
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		v = arr[0]
	}
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for _, k := range []string{"bbox", "geometry", "centroid"} {
		if g := m[k]; g != nil {
			return g
		}
	}
	return v
}

// dateLayouts are the DCAT-US date forms (ISO 8601) a Document keeps; intervals, durations
// and free text are left out of the date fields (they stay in DCAT).
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", "2006-01", "2006"}

// date returns s as RFC 3339 in UTC when it is one of dateLayouts and in the years 1700–2199,
// else "". The years are bleve's date range (nanoseconds since 1970 in an int64: 1677–2262) with
// a margin, so both indexes hold, sort and show the same dates; a lying "9999-12-31" is no date.
func date(s string) string {
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil && t.Year() >= 1700 && t.Year() < 2200 {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

// SpatialBBox returns the bounding box of a DCAT-US spatial value, or nil when it has none. It
// takes the "W,S,E,N" form DCAT-US 1.1 names (commas or spaces; what our ISO and FGDC transforms
// write, West > East being a box across the 180th meridian), GeoJSON geometry (an object or a
// JSON string) whose coordinates it bounds, or whose "bbox" member it takes, and WKT POINT,
// LINESTRING, POLYGON and MULTIPOLYGON text. Place names, out-of-range numbers and a south edge
// north of the north edge give nil.
func SpatialBBox(spatial any) *BBox {
	var lons, lats []float64
	switch v := spatial.(type) {
	case string:
		s := strings.TrimSpace(v)
		if strings.HasPrefix(s, "{") {
			var obj any
			if json.Unmarshal([]byte(s), &obj) != nil {
				return nil
			}
			return SpatialBBox(obj)
		}
		if m := wkt.FindStringSubmatch(s); m != nil {
			for _, pair := range wktPair.FindAllStringSubmatch(m[2], -1) {
				lon, err1 := strconv.ParseFloat(pair[1], 64)
				lat, err2 := strconv.ParseFloat(pair[2], 64)
				if err1 != nil || err2 != nil {
					return nil
				}
				lons, lats = append(lons, lon), append(lats, lat)
			}
			if len(lons) == 0 {
				return nil
			}
			break
		}
		parts := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
		if len(parts) != 4 {
			return nil
		}
		var n [4]float64
		for i, p := range parts {
			f, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return nil
			}
			n[i] = f
		}
		b := &BBox{West: n[0], South: n[1], East: n[2], North: n[3]}
		if b.Valid() != nil {
			return nil
		}
		return b
	case map[string]any:
		if bb, ok := v["bbox"].([]any); ok && len(bb) == 4 {
			var n [4]float64
			for i, x := range bb {
				f, ok := x.(float64)
				if !ok {
					return nil
				}
				n[i] = f
			}
			b := &BBox{West: n[0], South: n[1], East: n[2], North: n[3]}
			if b.Valid() != nil {
				return nil
			}
			return b
		}
		collect(v["coordinates"], &lons, &lats)
		if len(lons) == 0 {
			return nil
		}
	default:
		return nil
	}
	b := &BBox{West: slices.Min(lons), South: slices.Min(lats), East: slices.Max(lons), North: slices.Max(lats)}
	if b.Valid() != nil {
		return nil
	}
	return b
}

// wkt matches the WKT geometries SpatialBBox reads; wktPair one "lon lat" position in them.
var (
	wkt     = regexp.MustCompile(`(?i)^(POINT|LINESTRING|POLYGON|MULTIPOLYGON)\s*(\(.*\))$`)
	wktPair = regexp.MustCompile(`(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)\s+(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)`)
)

// uniq drops repeated values, keeping the first of each.
func uniq(vs []string) []string {
	var out []string
	for _, v := range vs {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// collect appends the positions of GeoJSON coordinates (any nesting) to lons and lats.
func collect(c any, lons, lats *[]float64) {
	arr, ok := c.([]any)
	if !ok {
		return
	}
	if len(arr) >= 2 {
		lon, ok1 := arr[0].(float64)
		lat, ok2 := arr[1].(float64)
		if ok1 && ok2 {
			*lons, *lats = append(*lons, lon), append(*lats, lat)
			return
		}
	}
	for _, x := range arr {
		collect(x, lons, lats)
	}
}
