package fgdc

import (
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// spatial sets spatial to "west,south,east,north" of the bounding coordinates
// (idinfo/spdom/bounding westbc, southbc, eastbc, northbc). A box with a side that is not a
// number, a longitude outside ±180, a latitude outside ±90 or south north of north is
// dropped with a warning; a west side east of the east side is kept, with a warning, as a
// box crossing the 180th meridian (how CSDGM writes one). With no usable box, the Biological
// Data Profile's description of geographic extent (spdom/descgeog) is the spatial, as a
// place name.
func (m *mapper) spatial(ds *dcatus.Dataset) {
	spdom := child(m.idinfo, "spdom")
	if bb := child(spdom, "bounding"); bb != nil {
		ds.Spatial = m.bbox(bb)
	}
	if ds.Spatial == "" {
		ds.Spatial = value(child(spdom, "descgeog"))
	}
}

// bbox returns the box of a bounding element, or "" with a warning.
func (m *mapper) bbox(bb *node) string {
	sides := []struct {
		name  string
		limit float64
	}{{"westbc", 180}, {"southbc", 90}, {"eastbc", 180}, {"northbc", 90}}
	vals := make([]string, 4)
	nums := make([]float64, 4)
	for i, s := range sides {
		v := value(child(bb, s.name))
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			m.Warn("spatial", "bounding coordinate %s %q is not a number; spatial dropped", s.name, short(v))
			return ""
		}
		if f < -s.limit || f > s.limit {
			m.Warn("spatial", "bounding coordinate %s %s is outside -%g..%g; spatial dropped", s.name, short(v), s.limit, s.limit)
			return ""
		}
		vals[i], nums[i] = v, f
	}
	west, south, east, north := nums[0], nums[1], nums[2], nums[3]
	if south > north {
		m.Warn("spatial", "bounding coordinates put south (%s) north of north (%s); spatial dropped", short(vals[1]), short(vals[3]))
		return ""
	}
	if west > east {
		m.Warn("spatial", "bounding coordinates put west (%s) east of east (%s): read as a box crossing the 180th meridian", short(vals[0]), short(vals[2]))
	}
	return strings.Join(vals, ",")
}
