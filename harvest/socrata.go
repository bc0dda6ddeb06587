package harvest

import "strings"

// SocrataDerivedType reports whether a Socrata asset type (the Discovery API's resource.type,
// the views API's assetType) is a view over another dataset rather than a dataset of its own:
// filter (a filtered or sorted view), chart, datalens (and its charts and maps), calendar,
// form, measure, story, visualization. dataset, map (a geospatial dataset; a map over a
// dataset also has a parent), file, href and types not known are not.
func SocrataDerivedType(t string) bool {
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "filter", "chart", "datalens", "datalens_chart", "datalens_map", "calendar", "form", "measure",
		"story", "visualization":
		return true
	}
	return false
}
