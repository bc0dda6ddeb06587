package portal

import (
	"encoding/json"
	"net/url"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// odsDataset is one dataset of the OpenDataSoft Explore API v2.1 (catalog/datasets results[]),
// of v2.0 (datasets[].dataset) or of the v1 search (api/datasets/1.0/search datasets[], whose
// metas are flat and whose id is "datasetid").
type odsDataset struct {
	DatasetID          lenientString `json:"dataset_id"`
	DatasetUID         lenientString `json:"dataset_uid"`
	DatasetIDv1        lenientString `json:"datasetid"`
	HasRecords         *bool         `json:"has_records"`
	Features           stringOrList  `json:"features"`
	Attachments        []odsFile     `json:"attachments"`
	AlternativeExports []odsFile     `json:"alternative_exports"`
	Metas              struct {
		odsDefault
		Default odsDefault `json:"default"`
		DCAT    odsDCAT    `json:"dcat"`
	} `json:"metas"`
}

type odsFile struct {
	ID          lenientString `json:"id"`
	URL         lenientString `json:"url"`
	Mimetype    lenientString `json:"mimetype"`
	Title       lenientString `json:"title"`
	Description lenientString `json:"description"`
}

// odsDefault is the "default" metadata template (v1: the metas themselves).
type odsDefault struct {
	Title             lenientString   `json:"title"`
	Description       lenientString   `json:"description"`
	Keyword           stringOrList    `json:"keyword"`
	Theme             stringOrList    `json:"theme"`
	License           lenientString   `json:"license"`
	LicenseURL        lenientString   `json:"license_url"`
	Language          lenientString   `json:"language"`
	Modified          lenientString   `json:"modified"`
	MetadataProcessed lenientString   `json:"metadata_processed"`
	DataProcessed     lenientString   `json:"data_processed"`
	Publisher         lenientString   `json:"publisher"`
	Attributions      stringOrList    `json:"attributions"`
	References        lenientString   `json:"references"`
	UpdateFrequency   lenientString   `json:"update_frequency"`
	BBox              json.RawMessage `json:"bbox"`
}

// odsDCAT is the "dcat" metadata template.
type odsDCAT struct {
	Created            lenientString `json:"created"`
	Issued             lenientString `json:"issued"`
	ContactName        lenientString `json:"contact_name"`
	ContactEmail       lenientString `json:"contact_email"`
	Creator            lenientString `json:"creator"`
	AccrualPeriodicity lenientString `json:"accrualperiodicity"`
	Spatial            lenientString `json:"spatial"`
	Temporal           lenientString `json:"temporal"`
	TemporalStart      lenientString `json:"temporal_coverage_start"`
	TemporalEnd        lenientString `json:"temporal_coverage_end"`
}

// OpenDataSoft maps one OpenDataSoft dataset to a DCAT-US 1.1 dataset object (JSON, keys in a
// stable order, meant to validate against the non-federal schema). The item is a dataset of the
// Explore API v2.1 (catalog/datasets results[]: dataset_id, dataset_uid, metas.default,
// metas.dcat), of v2.0 ({dataset: …}) or of the v1 search (datasetid, flat metas).
//
// identifier is the record's identifier, <portal>/datasets/<dataset uid> (v1 items, which have
// no uid: <portal>/datasets/<datasetid>); the portal base before "/datasets/" gives the landing
// page <portal>/explore/dataset/<dataset_id>/, the exports (CSV, JSON, and GeoJSON for a dataset
// with the "geo" feature) and the attachment URLs (odsfile://… becomes the API's attachment
// URL). keyword may be a list or a comma-joined string (split on commas); theme may be a list
// or one string (kept whole: ODS theme names hold commas). metas.default.bbox (GeoJSON) becomes
// spatial as "minx,miny,maxx,maxy". The mapping, field by field, is in docs/source-types.md. A required
// field the item does not have is left out (VALIDATE names it); publisherName, the source's
// organization, names a publisher the item does not. A body that is not a JSON object: an
// error wrapping ErrNotItem.
func OpenDataSoft(item []byte, identifier, publisherName string) (dcat []byte, warnings []Warning, err error) {
	var wrapped struct {
		Dataset json.RawMessage `json:"dataset"`
	}
	if err := decodeItem("OpenDataSoft", item, &wrapped); err != nil {
		return nil, nil, err
	}
	if len(wrapped.Dataset) > 0 && wrapped.Dataset[0] == '{' {
		item = wrapped.Dataset // v2.0
	}
	var d odsDataset
	if err := decodeItem("OpenDataSoft", item, &d); err != nil {
		return nil, nil, err
	}
	meta := d.Metas.Default
	if meta.Title == "" && len(meta.Keyword) == 0 && meta.Modified == "" {
		meta = d.Metas.odsDefault // v1: flat metas
	}
	dc := d.Metas.DCAT
	id := firstOf(string(d.DatasetID), string(d.DatasetIDv1))
	base := ""
	if i := strings.LastIndex(identifier, "/datasets/"); i > 0 {
		base = identifier[:i]
	}
	m := newMapping(identifier)
	m.ds.Title = strings.TrimSpace(string(meta.Title))
	m.ds.Description = strings.TrimSpace(string(meta.Description))
	for _, k := range meta.Keyword {
		m.ds.Keyword = appendUnique(m.ds.Keyword, strings.Split(k, ",")...)
	}
	m.ds.Theme = appendUnique(nil, meta.Theme...)
	m.publisher = firstOf(string(meta.Publisher), strings.Join(meta.Attributions, ", "), string(dc.Creator))
	m.fn = strings.TrimSpace(string(dc.ContactName))
	m.setEmail(string(dc.ContactEmail))
	for _, s := range []lenientString{meta.Modified, meta.MetadataProcessed, meta.DataProcessed} {
		if v, ok := isoDate(string(s)); ok {
			m.ds.Modified = v
			break
		}
	}
	for _, s := range []lenientString{dc.Issued, dc.Created} {
		if v, ok := isoDate(string(s)); ok {
			m.ds.Issued = v
			break
		}
	}
	if u := webURL(string(meta.LicenseURL)); u != "" {
		m.ds.License = u
	} else {
		m.setLicense(string(meta.License))
	}
	if l := languageTag(string(meta.Language)); l != "" {
		m.ds.Language = []string{l}
	}
	if r := webURL(string(meta.References)); r != "" {
		m.ds.References = []string{r}
	}
	m.setFrequency(firstOf(string(dc.AccrualPeriodicity), string(meta.UpdateFrequency)))
	m.spatial = firstOf(geoJSONBBox(meta.BBox), string(dc.Spatial))
	if t := strings.TrimSpace(string(dc.Temporal)); t != "" && strings.Contains(t, "/") {
		s, e, _ := strings.Cut(t, "/")
		m.setTemporal(s, e)
	} else {
		m.setTemporal(string(dc.TemporalStart), string(dc.TemporalEnd))
	}
	if base != "" && id != "" {
		m.ds.LandingPage = base + "/explore/dataset/" + url.PathEscape(id) + "/"
		m.odsDistributions(&d, base, id)
	}
	return m.finish(publisherName)
}

// odsDistributions adds the exports of a dataset with records and its attachments and
// alternative exports (odsfile:// URLs are the API's file URLs).
func (m *mapping) odsDistributions(d *odsDataset, base, id string) {
	api := base + "/api/explore/v2.1/catalog/datasets/" + url.PathEscape(id)
	if d.HasRecords == nil || *d.HasRecords {
		m.addDistribution(dcatus.Distribution{Title: "CSV", Format: "CSV", MediaType: "text/csv", DownloadURL: api + "/exports/csv"})
		m.addDistribution(dcatus.Distribution{Title: "JSON", Format: "JSON", MediaType: "application/json", DownloadURL: api + "/exports/json"})
		for _, f := range d.Features {
			if f == "geo" {
				m.addDistribution(dcatus.Distribution{Title: "GeoJSON", Format: "GeoJSON", MediaType: "application/geo+json", DownloadURL: api + "/exports/geojson"})
				break
			}
		}
	}
	for _, group := range []struct {
		files []odsFile
		path  string
	}{{d.Attachments, "/attachments/"}, {d.AlternativeExports, "/alternative_exports/"}} {
		for _, f := range group.files {
			u := strings.TrimSpace(string(f.URL))
			if strings.HasPrefix(u, "odsfile://") || u == "" {
				if f.ID == "" {
					continue
				}
				u = api + group.path + url.PathEscape(string(f.ID))
			}
			mt, _, _ := strings.Cut(string(f.Mimetype), ";")
			m.addDistribution(dcatus.Distribution{Title: firstOf(string(f.Title), string(f.ID)), Description: strings.TrimSpace(string(f.Description)),
				MediaType: strings.TrimSpace(mt), DownloadURL: u})
		}
	}
}

// geoJSONBBox returns the bounding box "minx,miny,maxx,maxy" of a GeoJSON geometry or Feature
// (ODS metas.default.bbox), or "" when it has no coordinates.
func geoJSONBBox(raw json.RawMessage) string {
	var g struct {
		Type        string          `json:"type"`
		Geometry    json.RawMessage `json:"geometry"`
		Coordinates json.RawMessage `json:"coordinates"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &g) != nil {
		return ""
	}
	if g.Type == "Feature" {
		return geoJSONBBox(g.Geometry)
	}
	var pts [][2]float64
	collect(g.Coordinates, &pts)
	if len(pts) == 0 {
		return ""
	}
	minx, miny, maxx, maxy := pts[0][0], pts[0][1], pts[0][0], pts[0][1]
	for _, p := range pts[1:] {
		minx, miny, maxx, maxy = min(minx, p[0]), min(miny, p[1]), max(maxx, p[0]), max(maxy, p[1])
	}
	return bboxString(minx, miny, maxx, maxy)
}

// collect appends every position of nested GeoJSON coordinates to pts.
func collect(raw json.RawMessage, pts *[][2]float64) {
	var pos []float64
	if json.Unmarshal(raw, &pos) == nil && len(pos) >= 2 {
		*pts = append(*pts, [2]float64{pos[0], pos[1]})
		return
	}
	var nested []json.RawMessage
	if json.Unmarshal(raw, &nested) == nil {
		for _, n := range nested {
			collect(n, pts)
		}
	}
}
