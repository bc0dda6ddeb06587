package feeds

import (
	"cmp"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/store"
)

// MaxSchemaOrgText is the most characters of a description the schema.org JSON-LD carries
// (Google's Dataset guidelines take descriptions of 50 to 5,000 characters); a longer one is
// cut at a rune boundary and ends with "…". The record's .json form has it whole.
const MaxSchemaOrgText = 5000

// SchemaOrgDataset maps a live dataset's DCAT-US record to a schema.org Dataset
// (https://schema.org/Dataset) for the JSON-LD of its public page, as Google's Dataset
// structured data and the W3C DCAT ↔ schema.org alignment (DCAT 3 §B) read it:
//
//	title → name, description → description (cut at MaxSchemaOrgText), identifier →
//	identifier, keyword → keywords, license → license, publisher → creator and publisher (an
//	Organization, with subOrganizationOf as parentOrganization), distribution → distribution
//	(DataDownload: downloadURL, else accessURL → contentUrl; mediaType, else format →
//	encodingFormat; title → name), spatial → spatialCoverage (a Place; "west,south,east,north"
//	becomes a GeoShape box "south west north east"), temporal → temporalCoverage (ISO 8601
//	interval as given), modified → dateModified, issued → datePublished, landingPage → sameAs,
//	language → inLanguage, theme → about; url is the dataset's page on this catalog, @id its
//	DatasetIRI, and includedInDataCatalog the catalog.
//
// Fields of odd shapes are read as Record reads them; empty ones are left out. The value is
// for encoding/json, whose output escapes <, > and & (safe inside a <script> element).
func SchemaOrgDataset(c Catalog, r *http.Request, ds *store.LiveDataset) map[string]any {
	rec := ParseRecord(ds.DCAT)
	out := map[string]any{
		"@context":              "https://schema.org/",
		"@type":                 "Dataset",
		"@id":                   c.DatasetIRI(r, ds.Identifier, ds.Slug),
		"url":                   c.DatasetURL(r, ds.Slug),
		"identifier":            ds.Identifier,
		"name":                  cmp.Or(rec.Text("title"), ds.Identifier),
		"includedInDataCatalog": map[string]any{"@type": "DataCatalog", "name": c.Title, "url": c.Base(r) + "/"},
	}
	set := func(k string, v any) {
		switch x := v.(type) {
		case string:
			if x == "" {
				return
			}
		case []string:
			if len(x) == 0 {
				return
			}
		case []any:
			if len(x) == 0 {
				return
			}
		case map[string]any:
			if x == nil {
				return
			}
		}
		out[k] = v
	}
	set("description", Cut(rec.Text("description"), MaxSchemaOrgText))
	set("keywords", rec.Texts("keyword"))
	set("license", rec.Text("license"))
	set("dateModified", rec.Text("modified"))
	set("datePublished", rec.Text("issued"))
	set("temporalCoverage", rec.Text("temporal"))
	set("inLanguage", rec.Texts("language"))
	set("about", rec.Texts("theme"))
	if lp := rec.Text("landingPage"); IsWebURL(lp) {
		out["sameAs"] = lp
	}
	if org := schemaOrgOrganization(rec); org != nil {
		out["creator"], out["publisher"] = org, org
	}
	set("spatialCoverage", schemaOrgPlace(rec.Text("spatial")))
	var dists []any
	for _, d := range rec.Objects("distribution") {
		if dd := schemaOrgDownload(d); dd != nil {
			dists = append(dists, dd)
		}
	}
	set("distribution", dists)
	return out
}

func schemaOrgOrganization(rec Record) map[string]any {
	name := rec.Text("publisher")
	if name == "" {
		return nil
	}
	org := map[string]any{"@type": "Organization", "name": name}
	if pub := rec.Object("publisher"); pub != nil {
		if parent := pub.Text("subOrganizationOf"); parent != "" {
			org["parentOrganization"] = map[string]any{"@type": "Organization", "name": parent}
		}
	}
	return org
}

// schemaOrgDownload is a DataDownload of a distribution, or nil when it has no web URL.
func schemaOrgDownload(d Record) map[string]any {
	u := d.Text("downloadURL")
	if !IsWebURL(u) {
		u = d.Text("accessURL")
	}
	if !IsWebURL(u) {
		return nil
	}
	dd := map[string]any{"@type": "DataDownload", "contentUrl": u}
	if f := cmp.Or(d.Text("mediaType"), d.Text("format")); f != "" {
		dd["encodingFormat"] = f
	}
	if t := d.Text("title"); t != "" {
		dd["name"] = t
	}
	if t := Cut(d.Text("description"), MaxSchemaOrgText); t != "" {
		dd["description"] = t
	}
	return dd
}

// schemaOrgPlace is the Place of a DCAT-US spatial: a GeoShape box for a bounding box
// "west,south,east,north", a name for a short place name, nil for nothing or for GeoJSON
// (kept out: it can be megabytes).
func schemaOrgPlace(spatial string) map[string]any {
	if spatial == "" || strings.HasPrefix(spatial, "{") || utf8.RuneCountInString(spatial) > 300 {
		return nil
	}
	if w, s, e, n, ok := BBox(spatial); ok {
		box := strings.Join([]string{num(s), num(w), num(n), num(e)}, " ")
		return map[string]any{"@type": "Place", "geo": map[string]any{"@type": "GeoShape", "box": box}}
	}
	return map[string]any{"@type": "Place", "name": spatial}
}

// BBox reads a DCAT-US spatial bounding box "west,south,east,north" (commas or spaces between
// four decimal degrees), reporting whether spatial is one with longitudes in -180..180 and
// latitudes in -90..90.
func BBox(spatial string) (west, south, east, north float64, ok bool) {
	f := strings.FieldsFunc(spatial, func(r rune) bool { return r == ',' || r == ' ' })
	if len(f) != 4 {
		return 0, 0, 0, 0, false
	}
	var v [4]float64
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return 0, 0, 0, 0, false
		}
		v[i] = x
	}
	if v[0] < -180 || v[0] > 180 || v[2] < -180 || v[2] > 180 || v[1] < -90 || v[1] > 90 || v[3] < -90 || v[3] > 90 {
		return 0, 0, 0, 0, false
	}
	return v[0], v[1], v[2], v[3], true
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Cut returns s cut to at most n runes, ending in "…" when it was cut.
func Cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i = range s {
		if k == n {
			break
		}
		k++
	}
	return s[:i] + "…"
}
