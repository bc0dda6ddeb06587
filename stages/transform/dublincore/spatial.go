package dublincore

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// spatial sets spatial "west,south,east,north" from the first usable bounding box (an
// ows:WGS84BoundingBox before an ows:BoundingBox), else the place named by dct:spatial or
// dc:coverage.
func (m *mapper) spatial(ds *dcatus.Dataset) {
	boxes := make([]boundingBox, 0, len(m.rec.boxes))
	for _, b := range m.rec.boxes {
		if b.wgs84 {
			boxes = append(boxes, b)
		}
	}
	for _, b := range m.rec.boxes {
		if !b.wgs84 {
			boxes = append(boxes, b)
		}
	}
	var bad dropped
	defer func() { m.warnDropped("spatial", bad, "not a valid longitude/latitude box; dropped") }()
	for _, b := range boxes {
		if s, ok := b.wsen(); ok {
			ds.Spatial = s
			return
		}
		bad.add(fmt.Sprintf("bounding box %q / %q (crs %q)", clip(b.lower), clip(b.upper), clip(b.crs)))
	}
	if place := m.rec.first("dct:spatial", "dc:coverage"); place != "" {
		ds.Spatial = place
	}
}

// wsen returns the box as DCAT-US spatial "west,south,east,north". OWS corners are
// "x y" in the CRS's axis order: longitude first for ows:WGS84BoundingBox (OWS 1.1, 10.2.2),
// CRS84, a legacy "EPSG:4326" or no crs; latitude first for the EPSG URNs and URIs of 4326
// (urn:ogc:def:crs:EPSG::4326, urn:x-ogc:def:crs:EPSG:6.11:4326 as pycsw writes,
// http://www.opengis.net/def/crs/EPSG/0/4326). A box that is out of range in that order but
// in range in the other is read the other way (servers get the order wrong); ok is false for
// anything else, or another CRS.
func (b boundingBox) wsen() (string, bool) {
	lo, lok := corner(b.lower)
	hi, hok := corner(b.upper)
	if !lok || !hok {
		return "", false
	}
	latFirst := false
	crs := strings.ToLower(b.crs)
	switch {
	case b.wgs84 || crs == "" || strings.HasSuffix(crs, "crs84") || crs == "epsg:4326":
	case strings.HasSuffix(crs, ":4326") || strings.HasSuffix(crs, "/epsg/0/4326"):
		latFirst = true
	default:
		return "", false
	}
	for _, lf := range []bool{latFirst, !latFirst} {
		w, s, e, n := lo[0], lo[1], hi[0], hi[1]
		if lf {
			w, s, e, n = lo[1], lo[0], hi[1], hi[0]
		}
		if inRange(w, 180) && inRange(e, 180) && inRange(s, 90) && inRange(n, 90) && s <= n {
			return format(w) + "," + format(s) + "," + format(e) + "," + format(n), true
		}
	}
	return "", false
}

// corner reads an OWS corner, two numbers separated by white space.
func corner(s string) ([2]float64, bool) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return [2]float64{}, false
	}
	x, errx := strconv.ParseFloat(f[0], 64)
	y, erry := strconv.ParseFloat(f[1], 64)
	return [2]float64{x, y}, errx == nil && erry == nil
}

func inRange(v, limit float64) bool { return v >= -limit && v <= limit }

func format(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// temporal sets temporal "start/end" from dct:temporal: an ISO 8601 interval of two dates, or
// a DCMI Period ("start=1990-01-01; end=2020-12-31; scheme=W3C-DTF"). Anything else is dropped
// with a warning.
func (m *mapper) temporal(ds *dcatus.Dataset) {
	v := m.rec.first("dct:temporal")
	if v == "" {
		return
	}
	start, end, ok := strings.Cut(v, "/")
	if !ok {
		start, end = "", ""
		for _, part := range strings.Split(v, ";") {
			k, val, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch strings.TrimSpace(k) {
			case "start":
				start = strings.TrimSpace(val)
			case "end":
				end = strings.TrimSpace(val)
			}
		}
	}
	b, okb := parseDate(start)
	e, oke := parseDate(end)
	if !okb || !oke || e.Before(b) {
		m.Warn("temporal", "dct:temporal %q is not an interval of two W3C-DTF dates; dropped", clip(v))
		return
	}
	ds.Temporal = b.Format(temporalLayout) + "/" + e.Format(temporalLayout)
}
