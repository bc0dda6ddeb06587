package iso

import (
	"net/url"
	pathpkg "path"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/dcatus"
)

// mapper maps one parsed record to DCAT-US and collects warnings.
type mapper struct {
	root *node
	dcatus.Warnings
}

// dataset maps the record to a DCAT-US dataset with the identifier; publisherName names the
// publisher when the record names none (see Transform).
func (m *mapper) dataset(identifier, publisherName string) *dcatus.Dataset {
	root := m.root
	idents := identifications(root)
	ident := first(idents)
	cit := first(path([]*node{ident}, "citation", "CI_Citation"))

	ds := dcatus.NewDataset(identifier)
	ds.Title = value(child(cit, "title"))
	if ds.Title == "" {
		m.Warn("title", "the record has no citation title")
	}
	ds.Description = value(child(ident, "abstract"))
	if ds.Description == "" {
		ds.Description = PlaceholderDescription
		m.Warn("description", "the record has no abstract; used the placeholder %q", PlaceholderDescription)
	}
	if d, w := dcatus.ShortenDescription(ds.Description); w != "" {
		ds.Description = d
		m.Warn("description", "%s", w)
	}
	ds.Keyword = m.keywords(idents)
	m.dates(ds, cit)
	contacts := append(parties(path(idents, "pointOfContact")), parties(path([]*node{root}, "contact"))...)
	ds.ContactPoint = m.contactPoint(contacts)
	ds.Publisher = dcatus.NewOrganization(m.publisher(cit, idents, contacts, publisherName))
	m.constraints(ds, idents)
	m.extents(ds, idents)
	m.distributions(ds, cit, idents)
	if f := code(first(find(idents, "MD_MaintenanceFrequencyCode"))); f != "" {
		if p, ok := frequencies[f]; ok {
			ds.AccrualPeriodicity = p
		} else if f != "asNeeded" && f != "unknown" && f != "notPlanned" {
			m.Warn("accrualPeriodicity", "unknown maintenance frequency %q dropped", f)
		}
	}
	if l := m.language(idents); l != "" {
		ds.Language = []string{l}
	}
	ds.Theme = []string{"geospatial"}
	return ds
}

// keywords returns all descriptive keywords, de-duplicated case-sensitively, order kept, the
// first dcatus.MaxKeywords of them (with a warning); the placeholder when there are none.
func (m *mapper) keywords(idents []*node) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range path(idents, "descriptiveKeywords", "MD_Keywords", "keyword") {
		v := value(k)
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	if len(out) == 0 {
		m.Warn("keyword", "the record has no keywords; used the placeholder %q", PlaceholderKeyword)
		return []string{PlaceholderKeyword}
	}
	out, w := dcatus.ShortenKeywords(out)
	if w != "" {
		m.Warn("keyword", "%s", w)
	}
	return out
}

// language returns the language tag of the resource, else of the metadata; "" when unknown.
func (m *mapper) language(idents []*node) string {
	lang := first(path(idents, "language"))
	if lang == nil {
		lang = first(find(idents, "defaultLocale"))
	}
	if lang == nil {
		lang = first(path([]*node{m.root}, "language"))
	}
	if lang == nil {
		lang = first(find([]*node{m.root}, "defaultLocale"))
	}
	return languageTag(code(first(append(find([]*node{lang}, "LanguageCode"), lang))))
}

// frequencies maps MD_MaintenanceFrequencyCode to ISO 8601 repeating durations.
var frequencies = map[string]string{
	"continual":    "R/PT1S",
	"daily":        "R/P1D",
	"weekly":       "R/P1W",
	"fortnightly":  "R/P2W",
	"semimonthly":  "R/P0.5M",
	"monthly":      "R/P1M",
	"quarterly":    "R/P3M",
	"biannually":   "R/P6M",
	"semiannually": "R/P6M",
	"annually":     "R/P1Y",
	"biennially":   "R/P2Y",
	"irregular":    "irregular",
}

// dates sets modified (the newest citation date, else the metadata date stamp) and issued (the
// publication date).
func (m *mapper) dates(ds *dcatus.Dataset, cit *node) {
	var newest time.Time
	for _, d := range path([]*node{cit}, "date", "CI_Date") {
		raw := value(child(d, "date"))
		t, ok := parseDate(raw)
		if !ok {
			if raw != "" {
				m.Warn("modified", "citation date %q is not an ISO 8601 date; ignored", raw)
			}
			continue
		}
		if t.After(newest) {
			newest = t
		}
		if ds.Issued == "" && code(child(d, "dateType")) == "publication" {
			ds.Issued = t.Format(dateLayout)
		}
	}
	if newest.IsZero() {
		stamps := append(path([]*node{m.root}, "dateStamp"), path([]*node{m.root}, "dateInfo", "CI_Date", "date")...)
		for _, s := range stamps {
			if t, ok := parseDate(value(s)); ok && t.After(newest) {
				newest = t
			}
		}
	}
	if newest.IsZero() {
		ds.Modified = time.Now().UTC().Format(dateLayout)
		m.Warn("modified", "the record has no usable citation date or date stamp; used the time of transformation")
		return
	}
	ds.Modified = newest.Format(dateLayout)
}

// maxRights is the longest rights DCAT-US 1.1 allows (maxLength), in characters.
const maxRights = 255

const (
	dateLayout     = "2006-01-02T15:04:05.000-07:00"
	temporalLayout = "2006-01-02T15:04:05-07:00"
)

var dateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02T15:04Z07:00",
	"2006-01-02", "20060102", "2006-01", "200601", "2006", "20060102T150405", "2006-01-02Z07:00", "2006-01-02 15:04:05",
}

// parseDate reads the ISO 8601 forms found in records; times without a zone are UTC.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil {
			if t.Year() < 1 || t.Year() > 9999 {
				return time.Time{}, false
			}
			return t, true
		}
	}
	return time.Time{}, false
}

// constraints sets rights and license. rights lists, constraint by constraint, the access
// restrictions (accessConstraints codes) and security classifications; the code
// otherRestrictions gives way to its constraint's otherConstraints text, which says what the
// restriction is ("no limitations": ISO 19115 makes otherConstraints mandatory with that
// code, and the code alone says nothing). It is cut at a word to DCAT-US's 255 characters,
// with a warning. license is the first URL among the use limitations and use constraints.
func (m *mapper) constraints(ds *dcatus.Dataset, idents []*node) {
	cons := path(idents, "resourceConstraints", "*")
	var rights []string
	add := func(v string) {
		if v != "" && !slices.Contains(rights, v) {
			rights = append(rights, v)
		}
	}
	for _, c := range cons {
		var texts []string
		for _, o := range find([]*node{c}, "otherConstraints") {
			if v := strings.Join(strings.Fields(value(o)), " "); v != "" {
				texts = append(texts, v)
			}
		}
		for _, n := range find([]*node{c}, "accessConstraints") {
			if v := code(n); v == "otherRestrictions" && len(texts) > 0 {
				for _, t := range texts {
					add(t)
				}
			} else {
				add(v)
			}
		}
		for _, n := range find([]*node{c}, "classification") {
			add(code(n))
		}
	}
	if r := strings.Join(rights, "; "); r != "" {
		if cut, ok := dcatus.Shorten(r, maxRights); ok {
			m.Warn("rights", "the access constraints are %d characters, over the %d DCAT-US allows; cut to %d at a word, ending in \"…\"",
				utf8.RuneCountInString(r), maxRights, utf8.RuneCountInString(cut))
			r = cut
		}
		ds.Rights = r
	}
	for _, n := range append(find(cons, "useLimitation"), find(cons, "otherConstraints")...) {
		for _, cand := range []string{child(n, "Anchor").Attr("href"), value(n)} {
			if cand == "" {
				continue
			}
			if u, ok := cleanURL(cand); ok && !strings.ContainsAny(cand, " \t\n") {
				ds.License = u
				return
			}
		}
	}
}

// extents sets spatial ("W,S,E,N" of the first bounding box) and temporal ("begin/end").
func (m *mapper) extents(ds *dcatus.Dataset, idents []*node) {
	ext := path(idents, "extent", "EX_Extent")
	if ext == nil {
		ext = find(idents, "EX_Extent")
	}
	if bb := first(find(ext, "EX_GeographicBoundingBox")); bb != nil {
		var vals []string
		for _, side := range []string{"westBoundLongitude", "southBoundLatitude", "eastBoundLongitude", "northBoundLatitude"} {
			v := value(child(bb, side))
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				m.Warn("spatial", "bounding box %s %q is not a number; spatial dropped", side, v)
				vals = nil
				break
			}
			vals = append(vals, v)
		}
		if len(vals) == 4 {
			ds.Spatial = strings.Join(vals, ",")
		}
	}
	te := find(ext, "EX_TemporalExtent")
	if len(te) == 0 {
		return
	}
	begin := first(find(te[:1], "beginPosition"))
	end := first(find(te[:1], "endPosition"))
	if begin == nil {
		begin = first(find(path(find(te[:1], "begin"), "*"), "timePosition"))
		end = first(find(path(find(te[:1], "end"), "*"), "timePosition"))
	}
	if begin == nil {
		pos := find(te[:1], "timePosition")
		if len(pos) > 0 {
			begin, end = pos[0], pos[len(pos)-1]
		}
	}
	if begin == nil {
		return
	}
	b, okb := parseDate(value(begin))
	e, oke := parseDate(value(end))
	if !oke && end != nil && strings.EqualFold(end.Attr("indeterminatePosition"), "now") {
		e, oke = time.Now().UTC().Truncate(24*time.Hour), true
	}
	if !okb || !oke {
		m.Warn("temporal", "temporal extent %q/%q is not a pair of ISO 8601 dates; dropped", value(begin), value(end))
		return
	}
	ds.Temporal = b.Format(temporalLayout) + "/" + e.Format(temporalLayout)
}

// onlineResource is a CI_OnlineResource.
type onlineResource struct {
	url, protocol, name, description, function string
}

// onlineResources returns the CI_OnlineResources under the nodes, in document order, but not
// a party's own web page (ownContactInfo): it tells who the party is, not where the data is.
func onlineResources(from []*node) []onlineResource {
	var out []onlineResource
	for _, n := range findPruned(from, "CI_OnlineResource", ownContactInfo) {
		out = append(out, onlineResource{
			url:         value(child(n, "linkage")),
			protocol:    value(child(n, "protocol")),
			name:        value(child(n, "name")),
			description: value(child(n, "description")),
			function:    code(child(n, "function")),
		})
	}
	return out
}

// distributions sets distribution (distribution online resources, then the endpoints of the
// services the record describes, then the resource's other online resources, then the landing
// page), references (aggregate resources) and landingPage (the citation's online resource).
func (m *mapper) distributions(ds *dcatus.Dataset, cit *node, idents []*node) {
	seen := map[string]bool{}
	add := func(r onlineResource) {
		u, ok := cleanURL(r.url)
		if !ok {
			if r.url != "" {
				m.Warn("distribution", "online resource URL %q is not a valid URL; dropped", r.url)
			}
			return
		}
		if seen[u] {
			return
		}
		seen[u] = true
		d := Distribution(u, r.protocol)
		d.Title, d.Description = r.name, r.description
		ds.Distribution = append(ds.Distribution, d)
	}
	landing := onlineResources([]*node{cit})
	if len(landing) > 0 {
		if u, ok := cleanURL(landing[0].url); ok {
			ds.LandingPage = u
			seen[u] = true // added last
		}
	}
	for _, r := range onlineResources(path([]*node{m.root}, "distributionInfo")) {
		add(r)
	}
	for _, r := range serviceEndpoints(idents) {
		u, ok := cleanURL(r.url)
		if !ok {
			if r.url != "" {
				m.Warn("distribution", "service endpoint URL %q is not a valid URL; dropped", r.url)
			}
			continue
		}
		if !seen[u] {
			seen[u] = true
			ds.Distribution = append(ds.Distribution, serviceDistribution(u, r))
		}
	}
	aggregates := append(path(idents, "aggregationInfo"), path(idents, "associatedResource")...)
	for _, r := range onlineResources(aggregates) {
		if u, ok := cleanURL(r.url); ok && !slices.Contains(ds.References, u) {
			ds.References = append(ds.References, u)
		}
		add(r)
	}
	for _, r := range onlineResources(idents) {
		add(r)
	}
	if ds.LandingPage != "" {
		d := dcatus.Distribution{Type: dcatus.TypeDistribution, AccessURL: ds.LandingPage, MediaType: "text/html"}
		if len(landing) > 0 {
			d.Title, d.Description = landing[0].name, landing[0].description
		}
		ds.Distribution = append(ds.Distribution, d)
	}
}

// cleanURL returns an absolute URL, prefixing https:// when that makes a scheme-less address
// valid (as Data.gov does) and percent-encoding spaces, non-ASCII characters and the like
// (escapeURL).
func cleanURL(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "\n\r\t") {
		return "", false
	}
	s = escapeURL(s)
	u, err := url.Parse(s)
	if err == nil && u.Scheme == "" && !strings.HasPrefix(s, "/") {
		u, err = url.Parse("https://" + s)
		if err == nil && !strings.Contains(u.Host, ".") {
			return "", false
		}
		s = "https://" + s
	}
	if err != nil || u.Host == "" {
		return "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ftp", "ftps", "sftp", "s3", "gs":
		return s, true
	}
	return "", false
}

// guessMediaType guesses the media type from the URL's file extension and query, and says
// whether the URL names a file (a downloadURL) rather than a page or service (an accessURL).
func guessMediaType(raw, protocol string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "text/html", false
	}
	q := strings.ToLower(u.RawQuery)
	if strings.Contains(q, "service=wms") || strings.Contains(q, "service=wfs") || strings.Contains(q, "service=wcs") ||
		strings.Contains(q, "request=getcapabilities") {
		return "application/xml", false
	}
	ext := strings.ToLower(pathpkg.Ext(u.Path))
	if mt, ok := fileTypes[ext]; ok {
		return mt, true
	}
	p := strings.ToLower(protocol)
	if strings.Contains(p, "opendap") {
		return "application/octet-stream", false
	}
	return "text/html", false
}

// fileTypes maps file extensions of downloadable files to media types.
var fileTypes = map[string]string{
	".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip", ".tgz": "application/gzip",
	".tar": "application/x-tar", ".csv": "text/csv", ".txt": "text/plain", ".json": "application/json",
	".geojson": "application/geo+json", ".xml": "application/xml", ".kml": "application/vnd.google-earth.kml+xml",
	".kmz": "application/vnd.google-earth.kmz", ".nc": "application/x-netcdf", ".nc4": "application/x-netcdf",
	".hdf": "application/x-hdf", ".h5": "application/x-hdf5", ".he5": "application/x-hdf5",
	".tif": "image/tiff", ".tiff": "image/tiff", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".xls": "application/vnd.ms-excel",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".doc": "application/msword",
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ".shp": "application/octet-stream",
	".gdb": "application/octet-stream", ".bz2": "application/x-bzip2", ".7z": "application/x-7z-compressed",
	".grb": "application/octet-stream", ".grib": "application/octet-stream", ".grb2": "application/octet-stream",
	".las": "application/octet-stream", ".laz": "application/octet-stream", ".dat": "application/octet-stream",
	".bin": "application/octet-stream",
}

// languageTag maps an ISO 639-2 code with an optional country ("eng; USA", "eng", "en") to an
// RFC 5646 tag ("en-US"); unknown values give "".
func languageTag(s string) string {
	fields := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ';' || r == ',' || r == ' ' || r == '_' || r == '-' })
	if len(fields) == 0 {
		return ""
	}
	lang, ok := languages[fields[0]]
	if !ok {
		if len(fields[0]) != 2 || !isAlpha(fields[0]) {
			return ""
		}
		lang = fields[0]
	}
	if len(fields) > 1 {
		switch c := strings.ToUpper(fields[1]); {
		case c == "USA" || c == "US":
			return lang + "-US"
		case len(c) == 2 && isAlpha(c):
			return lang + "-" + c
		}
	}
	return lang
}

func isAlpha(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') {
			return false
		}
	}
	return true
}

// languages maps ISO 639-2 codes (B and T) and English names of common languages to ISO 639-1;
// the Dublin Core mapper reads it too (LanguageCode).
var languages = map[string]string{
	"eng": "en", "english": "en", "spa": "es", "spanish": "es", "fre": "fr", "fra": "fr", "french": "fr",
	"ger": "de", "deu": "de", "german": "de", "por": "pt", "ita": "it", "chi": "zh", "zho": "zh",
	"jpn": "ja", "rus": "ru", "kor": "ko", "vie": "vi", "ara": "ar", "dut": "nl", "nld": "nl",
}
