package dublincore

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// Warning is a non-fatal note about a transformed record (a placeholder was used, a value was
// dropped…).
type Warning = dcatus.Warning

// Transform turns one CSW Dublin Core record (csw:Record, csw:SummaryRecord or csw:BriefRecord,
// CSW 2.0.2 or 3.0, as a CSW server's GetRecords returns it with outputSchema
// http://www.opengis.net/cat/csw/2.0.2) into a DCAT-US 1.1 dataset object (JSON, keys in a
// stable order, meant to validate against Data.gov's non-federal dataset schema). The mapping
// is the package comment's table.
//
// identifier is the record's harvest identifier (its dc:identifier, as the CSW source names
// it); "" takes the record's first dc:identifier. publisher.name is the record's dc:publisher;
// when it names none, publisherName (the harvest source's organization, as the ISO mapper
// uses), else iso.PlaceholderPublisher. Missing required fields get the ISO mapper's (Data.gov's)
// placeholders, each with a Warning; a record without a title is mapped without one, so that
// VALIDATE names the missing field.
//
// Input: as package iso (a UTF-8 BOM and leading white space tolerated; ISO-8859-1,
// Windows-1252 and ASCII declarations decoded; no DTD or external entity ever fetched).
// Errors wrap iso.ErrEncoding, ErrMalformedXML (also for nesting deeper than MaxDepth) or
// ErrNotDublinCore (another root element, named in the message).
func Transform(xml []byte, identifier, publisherName string) (dcat []byte, warnings []Warning, err error) {
	rec, err := parse(xml)
	if err != nil {
		return nil, nil, err
	}
	m := &mapper{rec: rec}
	if w := iso.CharsetWarning(xml); w != "" {
		m.Warn("encoding", "%s", w)
	}
	dcat, err = m.dataset(identifier, publisherName).Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode DCAT-US: %w", err)
	}
	return dcat, m.Warnings, nil
}

// mapper maps one parsed record and collects warnings.
type mapper struct {
	rec *record
	dcatus.Warnings
}

// dataset maps the record to a DCAT-US dataset (see Transform).
func (m *mapper) dataset(identifier, publisherName string) *dcatus.Dataset {
	r := m.rec
	if identifier == "" {
		identifier = r.first("dc:identifier")
		if identifier == "" {
			m.Warn("identifier", "the record has no dc:identifier and the harvest gave none")
		}
	}
	ds := dcatus.NewDataset(identifier)
	ds.Title = r.first("dc:title")
	if ds.Title == "" {
		m.Warn("title", "the record has no dc:title")
	} else if n := len(distinct(r.all("dc:title"))); n > 1 {
		m.Warn("title", "the record has %d different dc:title values; kept the first", n)
	}
	ds.Description = r.first("dct:abstract", "dc:description")
	if ds.Description == "" {
		ds.Description = iso.PlaceholderDescription
		m.Warn("description", "the record has no dct:abstract or dc:description; used the placeholder %q", iso.PlaceholderDescription)
	}
	if d, w := dcatus.ShortenDescription(ds.Description); w != "" {
		ds.Description = d
		m.Warn("description", "%s", w)
	}
	ds.Keyword = distinct(r.all("dc:subject"))
	if len(ds.Keyword) == 0 {
		ds.Keyword = []string{iso.PlaceholderKeyword}
		m.Warn("keyword", "the record has no dc:subject; used the placeholder %q", iso.PlaceholderKeyword)
	}
	if kw, w := dcatus.ShortenKeywords(ds.Keyword); w != "" {
		ds.Keyword = kw
		m.Warn("keyword", "%s", w)
	}
	m.dates(ds)
	ds.Publisher = dcatus.NewOrganization(m.publisher(publisherName))
	ds.ContactPoint = m.contactPoint()
	m.rights(ds)
	m.spatial(ds)
	m.temporal(ds)
	m.links(ds)
	m.languages(ds)
	ds.Theme = []string{"geospatial"} // as the ISO mapping (Data.gov H2.0) gives every CSW/WAF record
	return ds
}

// dates sets modified (dct:modified, else dc:date, else the time of transformation) and issued
// (dct:issued), in the ISO mapper's layout.
func (m *mapper) dates(ds *dcatus.Dataset) {
	var bad dropped
	for _, name := range []string{"dct:modified", "dc:date"} {
		for _, v := range m.rec.all(name) {
			if t, ok := parseDate(v); ok {
				ds.Modified = t.Format(dateLayout)
				break
			}
			bad.add(name + " " + strconv.Quote(clip(v)))
		}
		if ds.Modified != "" {
			break
		}
	}
	m.warnDropped("modified", bad, "not a W3C-DTF (ISO 8601) date; ignored")
	if ds.Modified == "" {
		ds.Modified = time.Now().UTC().Format(dateLayout)
		m.Warn("modified", "the record has no usable dct:modified or dc:date; used the time of transformation")
	}
	if t, ok := parseDate(m.rec.first("dct:issued")); ok {
		ds.Issued = t.Format(dateLayout)
	}
}

// publisher returns the record's dc:publisher, else publisherName, else the placeholder.
func (m *mapper) publisher(publisherName string) string {
	if p := m.rec.first("dc:publisher"); p != "" {
		return p
	}
	if publisherName != "" {
		m.Warn("publisher", "the record has no dc:publisher; used %q", publisherName)
		return publisherName
	}
	m.Warn("publisher", "the record has no dc:publisher; used the placeholder %q", iso.PlaceholderPublisher)
	return iso.PlaceholderPublisher
}

var emailPattern = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)

// contactPoint names the first dc:creator, else dc:publisher, else dc:contributor, with the
// first e-mail address any of them contains; Data.gov's placeholders for what is missing.
func (m *mapper) contactPoint() *dcatus.ContactPoint {
	parties := m.rec.all("dc:creator", "dc:publisher", "dc:contributor")
	fn, email := "", ""
	for _, p := range parties {
		if fn == "" {
			fn = p
		}
		if email == "" {
			email = emailPattern.FindString(p)
		}
	}
	if fn == "" {
		fn = iso.PlaceholderContactName
		m.Warn("contactPoint", "the record has no dc:creator, dc:publisher or dc:contributor; used the placeholder %q", fn)
	}
	if email == "" {
		email = iso.PlaceholderContactEmail
		m.Warn("contactPoint", "the record gives no e-mail address; used the placeholder %q", email)
	} else {
		email = "mailto:" + email
	}
	return dcatus.NewContactPoint(fn, email)
}

// rights sets accessLevel from dct:accessRights and dc:rights ("non-public" or "not public":
// non-public; "restricted": restricted public; else public), rights from their texts (at most
// 255 characters) and license from dct:license, or a dc:rights that is a URL alone.
func (m *mapper) rights(ds *dcatus.Dataset) {
	texts := distinct(m.rec.all("dct:accessRights", "dc:rights"))
	var kept []string
	for _, t := range texts {
		l := strings.ToLower(t)
		switch {
		case strings.Contains(l, "non-public") || strings.Contains(l, "not public"):
			ds.AccessLevel = "non-public"
		case strings.Contains(l, "restricted") && ds.AccessLevel == "public":
			ds.AccessLevel = "restricted public"
		}
		if u, ok := iso.CleanURL(t); ok && !strings.ContainsAny(t, " \t") && ds.License == "" {
			ds.License = u
			continue
		}
		kept = append(kept, t)
	}
	for _, l := range m.rec.all("dct:license") {
		if u, ok := iso.CleanURL(l); ok && !strings.ContainsAny(l, " \t") {
			ds.License = u
			break
		}
	}
	if r := strings.Join(kept, "; "); r != "" {
		if utf8.RuneCountInString(r) > 255 {
			r = string([]rune(r)[:255])
			m.Warn("rights", "rights cut to 255 characters")
		}
		ds.Rights = r
	}
}

// languages sets language from dc:language: RFC 5646 tags ("en", "en-US") as given, ISO 639-2
// codes and English names mapped ("eng": "en"); others dropped with a warning.
func (m *mapper) languages(ds *dcatus.Dataset) {
	var bad dropped
	for _, v := range distinct(m.rec.all("dc:language")) {
		tag := languageTag(v)
		if tag == "" {
			bad.add("dc:language " + strconv.Quote(clip(v)))
			continue
		}
		if !slices.Contains(ds.Language, tag) {
			ds.Language = append(ds.Language, tag)
		}
	}
	m.warnDropped("language", bad, "not a language tag; dropped")
}

// dropped counts the values of one kind a mapping dropped and keeps the first, so that a
// record repeating a bad value 10,000 times gives one warning, not 10,000.
type dropped struct {
	first string
	n     int
}

func (d *dropped) add(v string) {
	if d.n == 0 {
		d.first = v
	}
	d.n++
}

// warnDropped warns once about the values dropped: "<first> is <why>", and how many more.
func (m *mapper) warnDropped(field string, d dropped, why string) {
	switch d.n {
	case 0:
	case 1:
		m.Warn(field, "%s is %s", d.first, why)
	default:
		m.Warn(field, "%s is %s (and %d more like it)", d.first, why, d.n-1)
	}
}

// distinct returns the values trimmed, without empty ones and repeats, order kept.
func distinct(vals []string) []string {
	var out []string
	seen := make(map[string]bool, len(vals))
	for _, v := range vals {
		v = strings.TrimSpace(v)
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	return out
}

// clip shortens a value quoted in a warning to 100 characters.
func clip(s string) string {
	if utf8.RuneCountInString(s) <= 100 {
		return s
	}
	return string([]rune(s)[:100]) + "…"
}
