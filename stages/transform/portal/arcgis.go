package portal

import (
	"encoding/json"
	"html"
	"regexp"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// arcgisItem is one item of the ArcGIS portal search (sharing/rest/search results[]), or the
// properties of one ArcGIS Hub dataset search record (a GeoJSON Feature).
type arcgisItem struct {
	ID                lenientString   `json:"id"`
	Owner             lenientString   `json:"owner"`
	Created           lenientInt      `json:"created"`
	Modified          lenientInt      `json:"modified"`
	Title             lenientString   `json:"title"`
	Name              lenientString   `json:"name"` // Hub records: the title
	Type              lenientString   `json:"type"`
	Description       lenientString   `json:"description"`
	Snippet           lenientString   `json:"snippet"`
	Tags              stringOrList    `json:"tags"`
	Categories        stringOrList    `json:"categories"`
	Extent            json.RawMessage `json:"extent"`
	AccessInformation lenientString   `json:"accessInformation"`
	LicenseInfo       lenientString   `json:"licenseInfo"`
	License           lenientString   `json:"license"` // Hub records
	StructuredLicense struct {
		URL  lenientString `json:"url"`
		Abbr lenientString `json:"abbr"`
		Name lenientString `json:"name"`
	} `json:"structuredLicense"` // Hub records
	Culture         lenientString `json:"culture"`
	URL             lenientString `json:"url"`
	Access          lenientString `json:"access"`
	Slug            lenientString `json:"slug"`            // Hub records
	Source          lenientString `json:"source"`          // Hub records: the publishing organization
	OrgName         lenientString `json:"orgName"`         // Hub records
	OrgContactEmail lenientString `json:"orgContactEmail"` // Hub records
	AdditionalRes   []struct {
		Name lenientString `json:"name"`
		URL  lenientString `json:"url"`
	} `json:"additionalResources"` // Hub records
}

// ArcGIS maps one ArcGIS item to a DCAT-US 1.1 dataset object (JSON, keys in a stable order,
// meant to validate against the non-federal schema). The item is either a result of the
// portal search API (sharing/rest/search: epoch-millisecond created/modified, extent as
// [[xmin, ymin], [xmax, ymax]], HTML licenseInfo) or an ArcGIS Hub dataset search record (a
// GeoJSON Feature whose properties hold the item: name, source, structuredLicense, slug,
// extent {coordinates}), told apart by its "type" "Feature".
//
// identifier is the record's identifier, the item's page under the portal
// (<portal>/home/item.html?id=<item id>) or Hub site (<hub>/datasets/<item id>); it is the
// landing page (a Hub record's slug page when it has a slug). The extent becomes spatial as
// the bounding box "minx,miny,maxx,maxy" DCAT-US allows; contactPoint is the item's owner and
// the Hub organization's contact e-mail, as Esri's own DCAT-US feed writes it. The mapping,
// field by field, is in docs/source-types.md. A required field the item does not have is left out
// (VALIDATE names it); publisherName, the source's organization, names a publisher the item
// does not. A body that is not a JSON object: an error wrapping ErrNotItem.
func ArcGIS(item []byte, identifier, publisherName string) (dcat []byte, warnings []Warning, err error) {
	var feature struct {
		Type       lenientString   `json:"type"`
		Properties json.RawMessage `json:"properties"`
	}
	if err := decodeItem("ArcGIS", item, &feature); err != nil {
		return nil, nil, err
	}
	// A portal item has "properties" of its own; a Hub record is a GeoJSON Feature.
	hub := feature.Type == "Feature" && len(feature.Properties) > 0 && feature.Properties[0] == '{'
	body := item
	if hub {
		body = feature.Properties
	}
	var it arcgisItem
	if err := decodeItem("ArcGIS", body, &it); err != nil {
		return nil, nil, err
	}
	m := newMapping(identifier)
	m.ds.Title = firstOf(notNull(it.Title), notNull(it.Name))
	m.ds.Description = firstOf(notNull(it.Description), notNull(it.Snippet))
	m.ds.Keyword = appendUnique(nil, it.Tags...)
	for _, c := range it.Categories {
		if c = strings.TrimSpace(c); c != "" && c != "null" {
			m.ds.Theme = appendUnique(m.ds.Theme, c[strings.LastIndex(c, "/")+1:])
		}
	}
	m.ds.Issued = epochDate(int64(it.Created), true)
	m.ds.Modified = epochDate(int64(it.Modified), true)
	m.publisher = firstOf(notNull(it.Source), notNull(it.OrgName), plainText(notNull(it.AccessInformation)), notNull(it.Owner))
	m.fn = notNull(it.Owner)
	m.setEmail(notNull(it.OrgContactEmail))
	switch strings.ToLower(string(it.Access)) {
	case "org", "shared":
		m.ds.AccessLevel = "restricted public"
	case "private":
		m.ds.AccessLevel = "non-public"
	}
	m.ds.LandingPage = webURL(identifier)
	if hub && it.Slug != "" {
		if i := strings.LastIndex(identifier, "/datasets/"); i >= 0 {
			m.ds.LandingPage = identifier[:i] + "/datasets/" + string(it.Slug)
		}
	}
	m.arcgisLicense(&it)
	m.spatial = arcgisExtent(it.Extent)
	if l := languageTag(string(it.Culture)); l != "" {
		m.ds.Language = []string{l}
	}
	if u := notNull(it.URL); u != "" {
		m.addDistribution(dcatus.Distribution{Title: firstOf(notNull(it.Type), "Service"), Format: arcgisFormat(string(it.Type)), AccessURL: u})
	}
	for _, r := range it.AdditionalRes {
		if u := notNull(r.URL); u != "" {
			m.addDistribution(dcatus.Distribution{Title: notNull(r.Name), AccessURL: u})
		}
	}
	return m.finish(publisherName)
}

// arcgisLicense takes the license from a Hub record's structuredLicense (its URL, else its
// abbreviation) or license, else from licenseInfo: a URL or a known license name is the
// license; other text (often an HTML disclaimer) becomes rights.
func (m *mapping) arcgisLicense(it *arcgisItem) {
	if u := notNull(it.StructuredLicense.URL); isWebURL(u) {
		m.ds.License = u
		return
	}
	for _, s := range []string{notNull(it.StructuredLicense.Abbr), notNull(it.License)} {
		if u, ok := licenseNames[normLicense(s)]; ok {
			m.ds.License = u
			return
		}
	}
	info := plainText(notNull(it.LicenseInfo))
	if info == "" || strings.EqualFold(info, "none") {
		return
	}
	if u, ok := licenseNames[normLicense(info)]; ok || isWebURL(info) {
		if !ok {
			u = info
		}
		m.ds.License = u
		return
	}
	m.ds.Rights = info // a disclaimer or terms of use: what rights is for
}

// arcgisExtent turns an item extent, [[xmin, ymin], [xmax, ymax]] or a Hub envelope
// {"coordinates": [[xmin, ymin], [xmax, ymax]]}, into "minx,miny,maxx,maxy"; "" when absent.
func arcgisExtent(raw json.RawMessage) string {
	var pair [][]float64
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		var env struct {
			Coordinates [][]float64 `json:"coordinates"`
		}
		if err := json.Unmarshal(raw, &env); err != nil || len(env.Coordinates) != 2 {
			return ""
		}
		pair = env.Coordinates
	}
	if len(pair[0]) < 2 || len(pair[1]) < 2 {
		return ""
	}
	return bboxString(pair[0][0], pair[0][1], pair[1][0], pair[1][1])
}

// arcgisFormat names the format of an item's URL by the item type.
func arcgisFormat(itemType string) string {
	switch itemType {
	case "Feature Service", "Map Service", "Image Service", "Vector Tile Service", "Scene Service", "Feature Layer", "Table":
		return "Esri REST"
	case "WMS":
		return "WMS"
	case "WFS":
		return "WFS"
	case "KML":
		return "KML"
	}
	return ""
}

// notNull is the trimmed string, with the literal "null" ArcGIS writes for missing values as "".
func notNull(s lenientString) string {
	t := strings.TrimSpace(string(s))
	if t == "null" {
		return ""
	}
	return t
}

var tagRe = regexp.MustCompile(`<[^>]*>`)

// plainText strips HTML tags and entities and collapses white space.
func plainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return strings.Join(strings.Fields(s), " ")
	}
	return strings.Join(strings.Fields(html.UnescapeString(tagRe.ReplaceAllString(s, " "))), " ")
}

// languageTag writes a culture or language code ("en-us", "en_US", "fr") as an RFC 5646 tag
// ("en-US"); "" when it is not one.
func languageTag(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "_", "-"))
	lang, region, _ := strings.Cut(s, "-")
	if len(lang) < 2 || len(lang) > 3 || !letters(lang) {
		return ""
	}
	lang = strings.ToLower(lang)
	if region == "" {
		return lang
	}
	if len(region) != 2 || !letters(region) {
		return lang
	}
	return lang + "-" + strings.ToUpper(region)
}

func letters(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}
