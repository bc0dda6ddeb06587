package dcatap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/rdf"
)

// CRS IRIs of WKT literals (GeoSPARQL 1.1 §8.5.1): CRS84 (longitude, latitude) is the default;
// EPSG:4326 has latitude first.
const (
	crsCRS84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84"
	crs4326  = "http://www.opengis.net/def/crs/EPSG/0/4326"
)

// geometry turns a locn:geometry, dcat:bbox or dcat:centroid literal into a DCAT-US spatial
// string: a GeoJSON literal (datatype gsp:geoJSONLiteral, or text starting with '{') is kept
// as compact GeoJSON; a WKT literal (gsp:wktLiteral, or untyped text that parses as WKT) in
// CRS84 or EPSG:4326 becomes "W,S,E,N", the bounding box of its coordinates, except a POINT,
// which becomes a GeoJSON Point. A WKT literal in another CRS, or one that does not parse, is
// dropped with a warning (ok false).
func (m *mapper) geometry(t rdf.Term) (string, bool) {
	if !t.IsLiteral() {
		return "", false
	}
	v := strings.TrimSpace(t.Value)
	if t.Datatype == gspGeoJSON || strings.HasPrefix(v, "{") {
		var buf bytes.Buffer
		var probe struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(v), &probe) != nil || probe.Type == "" || json.Compact(&buf, []byte(v)) != nil {
			m.warn("spatial", "GeoJSON %.80q does not parse; dropped", v)
			return "", false
		}
		return buf.String(), true
	}
	bbox, point, err := wktEnvelope(v)
	if err != nil {
		if t.Datatype == gspWKT {
			m.warn("spatial", "WKT %.80q: %v; dropped", v, err)
		} else if t.Datatype == "" {
			m.warn("spatial", "geometry %.80q is neither WKT nor GeoJSON; dropped", v)
		}
		return "", false
	}
	if point {
		return fmt.Sprintf(`{"type":"Point","coordinates":[%s,%s]}`, num(bbox[0]), num(bbox[1])), true
	}
	return strings.Join([]string{num(bbox[0]), num(bbox[1]), num(bbox[2]), num(bbox[3])}, ","), true
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// wktEnvelope returns the bounding box [W, S, E, N] of a WKT literal's coordinates (the first
// two ordinates of each; Z and M ignored) and whether it is a POINT.
func wktEnvelope(v string) (bbox [4]float64, point bool, err error) {
	swap := false
	if strings.HasPrefix(v, "<") {
		end := strings.IndexByte(v, '>')
		if end < 0 {
			return bbox, false, fmt.Errorf("unterminated CRS IRI")
		}
		switch crs := v[1:end]; crs {
		case crsCRS84:
		case crs4326:
			swap = true
		default:
			return bbox, false, fmt.Errorf("CRS <%s> is not CRS84 or EPSG:4326 (no reprojection)", crs)
		}
		v = strings.TrimSpace(v[end+1:])
	}
	open := strings.IndexByte(v, '(')
	if open < 0 {
		return bbox, false, fmt.Errorf("no coordinates")
	}
	kind := strings.ToUpper(strings.Fields(v[:open] + " x")[0])
	point = kind == "POINT"
	n := 0
	for _, tuple := range strings.FieldsFunc(v[open:], func(r rune) bool { return r == '(' || r == ')' || r == ',' }) {
		f := strings.Fields(tuple)
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return bbox, false, fmt.Errorf("coordinate %q has one ordinate", tuple)
		}
		x, errX := strconv.ParseFloat(f[0], 64)
		y, errY := strconv.ParseFloat(f[1], 64)
		if errX != nil || errY != nil {
			return bbox, false, fmt.Errorf("coordinate %q is not numeric", tuple)
		}
		if swap {
			x, y = y, x
		}
		if n == 0 {
			bbox = [4]float64{x, y, x, y}
		}
		bbox = [4]float64{min(bbox[0], x), min(bbox[1], y), max(bbox[2], x), max(bbox[3], y)}
		n++
	}
	if n == 0 {
		return bbox, false, fmt.Errorf("no coordinates")
	}
	return bbox, point, nil
}
