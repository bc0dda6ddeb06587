package portal

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
)

// socrataDiscovery is one result of the Socrata Discovery API (api/catalog/v1).
type socrataDiscovery struct {
	Resource struct {
		Name              lenientString   `json:"name"`
		ID                lenientString   `json:"id"`
		ParentFXF         json.RawMessage `json:"parent_fxf"`
		Description       lenientString   `json:"description"`
		Attribution       lenientString   `json:"attribution"`
		Type              lenientString   `json:"type"`
		UpdatedAt         lenientString   `json:"updatedAt"`
		CreatedAt         lenientString   `json:"createdAt"`
		DataUpdatedAt     lenientString   `json:"data_updated_at"`
		MetadataUpdatedAt lenientString   `json:"metadata_updated_at"`
	} `json:"resource"`
	Classification struct {
		Categories     stringOrList  `json:"categories"`
		Tags           stringOrList  `json:"tags"`
		DomainCategory lenientString `json:"domain_category"`
		DomainTags     stringOrList  `json:"domain_tags"`
		DomainMetadata []struct {
			Key   lenientString `json:"key"`
			Value lenientString `json:"value"`
		} `json:"domain_metadata"`
	} `json:"classification"`
	Metadata struct {
		Domain  lenientString `json:"domain"`
		License lenientString `json:"license"`
	} `json:"metadata"`
	Permalink lenientString `json:"permalink"`
	Link      lenientString `json:"link"`
}

// socrataView is the metadata of one view (api/views/<id>.json).
type socrataView struct {
	ID               lenientString   `json:"id"`
	Name             lenientString   `json:"name"`
	Description      lenientString   `json:"description"`
	Attribution      lenientString   `json:"attribution"`
	Category         lenientString   `json:"category"`
	Tags             stringOrList    `json:"tags"`
	CreatedAt        lenientInt      `json:"createdAt"`
	PublicationDate  lenientInt      `json:"publicationDate"`
	RowsUpdatedAt    lenientInt      `json:"rowsUpdatedAt"`
	ViewLastModified lenientInt      `json:"viewLastModified"`
	LicenseID        lenientString   `json:"licenseId"`
	ViewType         lenientString   `json:"viewType"`
	DisplayType      lenientString   `json:"displayType"`
	AssetType        lenientString   `json:"assetType"`
	ModifyingViewUID lenientString   `json:"modifyingViewUid"`
	Flags            stringOrList    `json:"flags"`
	ViewFilters      json.RawMessage `json:"viewFilters"`
	Query            struct {
		FilterCondition json.RawMessage `json:"filterCondition"`
		NamedFilters    json.RawMessage `json:"namedFilters"`
	} `json:"query"`
	BlobID       lenientString `json:"blobId"`
	BlobFilename lenientString `json:"blobFilename"`
	BlobMimeType lenientString `json:"blobMimeType"`
	Columns      []any         `json:"columns"`
	License      struct {
		Name      lenientString `json:"name"`
		TermsLink lenientString `json:"termsLink"`
	} `json:"license"`
	Metadata struct {
		CustomFields map[string]map[string]lenientString `json:"custom_fields"`
	} `json:"metadata"`
}

// Socrata maps one Socrata item to a DCAT-US 1.1 dataset object (JSON, keys in a stable order,
// meant to validate against the non-federal schema). The item is either a Discovery API result
// (api/catalog/v1: resource, classification, metadata, permalink) or a view's metadata
// (api/views/<id>.json, epoch-second timestamps, metadata.custom_fields); which one is told by
// its "resource" member.
//
// identifier is the record's identifier, the view's permalink https://<domain>/d/<4x4>: the
// domain of the download URLs and the landing page come from it. The mapping, field by field,
// is in docs/source-types.md ("Portal sources"): DCAT-US fields kept in the domain's metadata
// (Common-Core_Publisher, -Contact-Name, -Contact-Email, -Bureau-Code, -Program-Code, -License,
// -Spatial, -Temporal, -Issued, -Language, -Frequency, -Theme, -Public-Access-Level, …) win over
// the platform's own fields. A required field the item does not have is left out (VALIDATE names it);
// publisherName, the source's organization, names a publisher the item does not.
//
// A derived view (a filtered view, chart or map over another dataset: socrataDiscovery's
// resource.parent_fxf set or a resource.type harvest.SocrataDerivedType names; a view's, as
// socrataView.derived tells) is not a dataset of its own: the error wraps ErrNotDataset. A body that is not a JSON object: an error
// wraps ErrNotItem.
func Socrata(item []byte, identifier, publisherName string) (dcat []byte, warnings []Warning, err error) {
	var probe struct {
		Resource json.RawMessage `json:"resource"`
	}
	if err := decodeItem("Socrata", item, &probe); err != nil {
		return nil, nil, err
	}
	base := socrataBase(identifier)
	m := newMapping(identifier)
	var meta map[string]string
	if len(probe.Resource) > 0 && string(probe.Resource) != "null" {
		var d socrataDiscovery
		if err := decodeItem("Socrata", item, &d); err != nil {
			return nil, nil, err
		}
		if p := strings.TrimSpace(string(d.Resource.ParentFXF)); p != "" && p != "null" && p != "[]" {
			return nil, nil, fmt.Errorf("%w: Socrata view %s is derived from %s", ErrNotDataset, d.Resource.ID, p)
		}
		if harvest.SocrataDerivedType(string(d.Resource.Type)) {
			return nil, nil, fmt.Errorf("%w: Socrata view %s is a %s over another dataset", ErrNotDataset, d.Resource.ID, d.Resource.Type)
		}
		meta = map[string]string{}
		for _, kv := range d.Classification.DomainMetadata {
			meta[string(kv.Key)] = strings.TrimSpace(string(kv.Value))
		}
		m.socrataDiscovery(&d, base)
	} else {
		var v socrataView
		if err := decodeItem("Socrata", item, &v); err != nil {
			return nil, nil, err
		}
		if why := v.derived(); why != "" {
			return nil, nil, fmt.Errorf("%w: Socrata view %s %s", ErrNotDataset, v.ID, why)
		}
		meta = map[string]string{}
		for group, fields := range v.Metadata.CustomFields {
			for name, value := range fields {
				meta[strings.ReplaceAll(group, " ", "-")+"_"+strings.ReplaceAll(name, " ", "-")] = strings.TrimSpace(string(value))
			}
		}
		m.socrataView(&v, base)
	}
	m.socrataCommonCore(meta)
	if m.publisher == "" {
		m.publisher = meta["Data-Owner_Owner"]
	}
	return m.finish(publisherName)
}

// socrataDisplayTypes are the displayType values of a tabular view that shows its own rows: a
// dataset's default view ("table", the older "fatrow" and "page"). Any other (map, chart,
// calendar, form…) on a tabular view draws another dataset's rows.
var socrataDisplayTypes = map[string]bool{"": true, "table": true, "fatrow": true, "page": true}

// derived says why the view is a view over another dataset, or "" when it is a dataset of its
// own: a modifyingViewUid (the view it modifies), an assetType harvest.SocrataDerivedType names, flags
// without "default" (every dataset's own view has it), a tabular view displayed otherwise than
// as a table (a map or chart of a dataset's rows), or filters (viewFilters, query.filterCondition
// or query.namedFilters; a dataset's own view may be sorted, never filtered).
func (v *socrataView) derived() string {
	set := func(raw json.RawMessage) bool {
		s := strings.TrimSpace(string(raw))
		return s != "" && s != "null" && s != "[]" && s != "{}"
	}
	switch {
	case v.ModifyingViewUID != "":
		return "is derived from " + string(v.ModifyingViewUID)
	case harvest.SocrataDerivedType(string(v.AssetType)):
		return "is a " + string(v.AssetType) + " over another dataset"
	case v.Flags != nil && !slices.Contains(v.Flags, "default"):
		return "is not a dataset's default view (no \"default\" flag)"
	case v.ViewType == "tabular" && !socrataDisplayTypes[string(v.DisplayType)]:
		return "is a " + string(v.DisplayType) + " drawn from a tabular dataset"
	case set(v.ViewFilters) || set(v.Query.FilterCondition) || set(v.Query.NamedFilters):
		return "is a filtered view"
	}
	return ""
}

func (m *mapping) socrataDiscovery(d *socrataDiscovery, base string) {
	r, c := &d.Resource, &d.Classification
	m.ds.Title = strings.TrimSpace(string(r.Name))
	m.ds.Description = strings.TrimSpace(string(r.Description))
	m.ds.Keyword = appendUnique(nil, append(c.Tags, c.DomainTags...)...)
	m.ds.Theme = appendUnique(nil, append(c.Categories, string(c.DomainCategory))...)
	m.publisher = strings.TrimSpace(string(r.Attribution))
	m.ds.Issued, _ = isoDate(string(r.CreatedAt))
	var newest string
	for _, s := range []lenientString{r.UpdatedAt, r.DataUpdatedAt, r.MetadataUpdatedAt} {
		if v, ok := isoDate(string(s)); ok && v > newest { // RFC 3339 UTC strings sort by time
			newest = v
		}
	}
	m.ds.Modified = newest
	m.ds.LandingPage = firstOf(webURL(string(d.Permalink)), webURL(string(d.Link)), webURL(m.ds.Identifier))
	m.setLicense(string(d.Metadata.License))
	id := string(r.ID)
	switch string(r.Type) {
	case "dataset":
		m.socrataTabular(base, id)
	case "map":
		m.socrataGeo(base, id)
	}
}

func (m *mapping) socrataView(v *socrataView, base string) {
	m.ds.Title = strings.TrimSpace(string(v.Name))
	m.ds.Description = strings.TrimSpace(string(v.Description))
	m.ds.Keyword = appendUnique(nil, v.Tags...)
	m.ds.Theme = appendUnique(nil, string(v.Category))
	m.publisher = strings.TrimSpace(string(v.Attribution))
	m.ds.Issued = epochDate(int64(firstInt(v.PublicationDate, v.CreatedAt)), false)
	m.ds.Modified = epochDate(int64(max(v.RowsUpdatedAt, v.ViewLastModified, v.PublicationDate, v.CreatedAt)), false)
	m.ds.LandingPage = webURL(m.ds.Identifier)
	if t := string(v.License.TermsLink); isWebURL(t) {
		m.ds.License = t
	} else if v.LicenseID != "" {
		m.setLicense(string(v.LicenseID))
	} else {
		m.setLicense(string(v.License.Name))
	}
	id := string(v.ID)
	if len(v.Columns) > 0 {
		m.socrataTabular(base, id)
	}
	if v.ViewType == "geo" || v.DisplayType == "map" {
		m.socrataGeo(base, id)
	}
	if v.BlobID != "" && base != "" {
		mt, _, _ := strings.Cut(string(v.BlobMimeType), ";")
		name := firstOf(string(v.BlobFilename), id)
		m.addDistribution(dcatus.Distribution{Title: name, MediaType: strings.TrimSpace(mt),
			DownloadURL: base + "/api/views/" + url.PathEscape(id) + "/files/" + url.PathEscape(string(v.BlobID)) +
				"?download=true&filename=" + url.QueryEscape(name)})
	}
}

// socrataTabular adds the exports Socrata serves for every tabular view: CSV and JSON downloads
// and the SODA API endpoint.
func (m *mapping) socrataTabular(base, id string) {
	if base == "" || id == "" {
		return
	}
	v := base + "/api/views/" + url.PathEscape(id)
	m.addDistribution(dcatus.Distribution{Title: "CSV", Format: "CSV", MediaType: "text/csv", DownloadURL: v + "/rows.csv?accessType=DOWNLOAD"})
	m.addDistribution(dcatus.Distribution{Title: "JSON", Format: "JSON", MediaType: "application/json", DownloadURL: v + "/rows.json?accessType=DOWNLOAD"})
	m.addDistribution(dcatus.Distribution{Title: "SODA API", Format: "API", AccessURL: base + "/resource/" + url.PathEscape(id) + ".json"})
}

// socrataGeo adds the exports of a geospatial (map) view.
func (m *mapping) socrataGeo(base, id string) {
	if base == "" || id == "" {
		return
	}
	g := base + "/api/geospatial/" + url.PathEscape(id) + "?method=export&format="
	m.addDistribution(dcatus.Distribution{Title: "GeoJSON", Format: "GeoJSON", MediaType: "application/vnd.geo+json", DownloadURL: g + "GeoJSON"})
	m.addDistribution(dcatus.Distribution{Title: "Shapefile", Format: "Shapefile", MediaType: "application/zip", DownloadURL: g + "Shapefile"})
}

// socrataCommonCore applies the DCAT-US ("Common Core") fields a Socrata domain keeps in its
// custom metadata; they win over the platform's own fields.
func (m *mapping) socrataCommonCore(meta map[string]string) {
	get := func(name string) string { return meta["Common-Core_"+name] }
	if v := get("Publisher"); v != "" {
		m.publisher = v
	}
	m.fn = get("Contact-Name")
	m.setEmail(get("Contact-Email"))
	m.ds.BureauCode = codes(m, "bureauCode", get("Bureau-Code"), 3, 2)
	m.ds.ProgramCode = codes(m, "programCode", get("Program-Code"), 3, 3)
	if v := strings.ToLower(get("Public-Access-Level")); v == "public" || v == "restricted public" || v == "non-public" {
		m.ds.AccessLevel = v
	}
	if v := get("License"); v != "" {
		m.ds.License, m.ds.Rights = "", ""
		m.setLicense(v)
	}
	if v := get("Spatial"); v != "" {
		m.spatial = v
	}
	if v := get("Temporal"); v != "" {
		if s, e, ok := strings.Cut(v, "/"); ok {
			m.setTemporal(s, e)
		} else {
			m.warn("temporal", "temporal coverage %q is not an ISO 8601 interval; dropped", v)
		}
	}
	if v, ok := isoDate(get("Issued")); ok {
		m.ds.Issued = v
	}
	if v := get("Language"); v != "" {
		for _, l := range strings.Split(v, ",") {
			m.ds.Language = appendUnique(m.ds.Language, l)
		}
	}
	m.setFrequency(firstOf(get("Frequency"), meta["Refresh-Frequency_Frequency"]))
	if v := get("Theme"); v != "" {
		m.ds.Theme = appendUnique(m.ds.Theme, strings.Split(v, ",")...)
	}
	if v := get("Homepage"); isWebURL(v) {
		m.ds.LandingPage = v
	}
	for _, r := range strings.Split(get("References"), ",") {
		if r = strings.TrimSpace(r); isWebURL(r) {
			m.ds.References = appendUnique(m.ds.References, r)
		}
	}
}

// codes splits a comma-separated list of bureau or program codes ("NNN:NN", "NNN:NNN"),
// dropping malformed ones with a warning.
func codes(m *mapping, field, list string, left, right int) []string {
	var out []string
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		l, r, ok := strings.Cut(c, ":")
		if !ok || len(l) != left || len(r) != right || !digits(l) || !digits(r) {
			m.warn(field, "code %q is not of the form %s:%s; dropped", c, strings.Repeat("N", left), strings.Repeat("N", right))
			continue
		}
		out = appendUnique(out, c)
	}
	sort.Strings(out)
	return out
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// socrataBase returns "https://<domain>" of a Socrata identifier https://<domain>/d/<4x4>, or ""
// when it is not one.
func socrataBase(identifier string) string {
	u, err := url.Parse(identifier)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

func webURL(s string) string {
	if isWebURL(strings.TrimSpace(s)) {
		return strings.TrimSpace(s)
	}
	return ""
}

func firstOf(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func firstInt(vs ...lenientInt) lenientInt {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}
