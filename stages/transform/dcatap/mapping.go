package dcatap

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/rdf"
)

// mapper builds the DCAT-US object from the record graph and collects the warnings.
type mapper struct {
	graph
	warnings []Warning
}

func (m *mapper) warn(field, format string, args ...any) {
	m.warnings = append(m.warnings, Warning{Field: field, Message: fmt.Sprintf(format, args...)})
}

// nameProps are the properties that name an agent or a concept, in order of preference.
var nameProps = []string{foafName, skosPrefLabel, vcardFN, vcardOrgName, rdfsLabel, dctTitle}

func (m *mapper) dataset(s rdf.Term) *dcatus.Dataset {
	d := &dcatus.Dataset{
		Type:               dcatus.TypeDataset,
		Identifier:         s.Value,
		Title:              m.literal(s, dctTitle),
		Description:        m.literal(s, dctDescription),
		Keyword:            m.keywords(m.objects(s, dcatKeyword)),
		Publisher:          m.publisher(s),
		ContactPoint:       m.contactPoint(s),
		Issued:             m.date("issued", m.objects(s, dctIssued)),
		Modified:           m.date("modified", m.objects(s, dctModified)),
		Theme:              m.themes(s),
		Spatial:            m.spatial(s),
		Temporal:           m.temporal(s),
		Language:           m.languages(s),
		AccrualPeriodicity: m.accrualPeriodicity(s),
	}
	if d.Modified == "" {
		// DCAT-US requires modified; a dataset never modified was last changed when issued.
		d.Modified = d.Issued
	}
	d.AccessLevel, d.Rights = m.accessLevel(s)
	d.LandingPage = m.single("landingPage", m.objects(s, dcatLandingPage))
	d.IsPartOf = m.single("isPartOf", m.objects(s, dcatInSeries))
	for _, t := range m.objects(s, foafPage) {
		if named(t) {
			d.References = append(d.References, t.Value)
		}
	}
	var licenses []rdf.Term
	for i, dist := range m.distributionNodes(s) {
		d.Distribution = append(d.Distribution, m.distribution(i, dist))
		licenses = append(licenses, m.objects(dist, dctLicense)...)
	}
	d.License = m.license(m.objects(s, dctLicense), licenses)
	return d
}

// single returns the first named IRI of ts, warning when there are several.
func (m *mapper) single(field string, ts []rdf.Term) string {
	v, n := firstNamed(ts)
	if n > 1 {
		m.warn(field, "%d values; <%s> kept, the others dropped", n, v)
	}
	return v
}

func (m *mapper) publisher(s rdf.Term) *dcatus.Organization {
	pubs := m.objects(s, dctPublisher)
	for _, p := range pubs {
		if p.IsLiteral() && strings.TrimSpace(p.Value) != "" {
			return dcatus.NewOrganization(strings.TrimSpace(p.Value))
		}
	}
	var found *dcatus.Organization
	for _, p := range pubs {
		if name := m.literal(p, nameProps...); name != "" {
			found = dcatus.NewOrganization(name)
			break
		}
	}
	if found == nil {
		if iri, _ := firstNamed(pubs); iri != "" {
			m.warn("publisher", "publisher <%s> has no name in the record graph; its IRI is the name", iri)
			found = dcatus.NewOrganization(iri)
		}
	}
	if found != nil && len(pubs) > 1 {
		m.warn("publisher", "%d publishers; %q kept, the others dropped", len(pubs), found.Name)
	}
	return found
}

func (m *mapper) contactPoint(s rdf.Term) *dcatus.ContactPoint {
	nodes := m.objects(s, dcatContactPoint)
	var best *dcatus.ContactPoint
	for _, n := range nodes {
		if n.IsLiteral() {
			continue
		}
		c := dcatus.NewContactPoint(m.literal(n, vcardFN, vcardOrgName, vcardHasOrgName, foafName, rdfsLabel), m.email(n))
		if c.FN == "" && c.HasEmail == "" {
			continue
		}
		if best == nil || (best.HasEmail == "" && c.HasEmail != "") {
			best = c
		}
	}
	if best != nil && len(nodes) > 1 {
		m.warn("contactPoint", "%d contact points; %q kept, the others dropped", len(nodes), best.FN+" "+best.HasEmail)
	}
	return best
}

// email returns the contact's vcard:hasEmail as a mailto: URI (an IRI, a literal, or a node
// with vcard:hasValue).
func (m *mapper) email(n rdf.Term) string {
	for _, e := range m.objects(n, vcardHasEmail) {
		v := strings.TrimSpace(e.Value)
		if !e.IsLiteral() && !named(e) { // a node: its vcard:hasValue
			v = ""
			for _, inner := range m.objects(e, vcardHasValue) {
				if inner.IsLiteral() || named(inner) {
					v = strings.TrimSpace(inner.Value)
					break
				}
			}
		}
		if v == "" {
			continue
		}
		if !strings.HasPrefix(strings.ToLower(v), "mailto:") {
			v = "mailto:" + v
		}
		return v
	}
	return ""
}

func (m *mapper) themes(s rdf.Term) []string {
	var out []string
	for _, t := range m.objects(s, dcatTheme) {
		switch {
		case t.IsLiteral():
			if v := strings.TrimSpace(t.Value); v != "" {
				out = append(out, v)
			}
		default:
			if label := m.literal(t, skosPrefLabel, rdfsLabel); label != "" {
				out = append(out, label)
			} else if named(t) {
				out = append(out, t.Value)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// xsdPatterns are the lexical forms of the date types DCAT-AP allows (xsd:date,
// xsd:dateTime, xsd:gYear, xsd:gYearMonth), time zones optional.
var (
	reDateTime = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(:\d{2}(\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?$`)
	reDate     = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(Z|[+-]\d{2}:\d{2})?$`)
	reYearMon  = regexp.MustCompile(`^(\d{4}-\d{2})(Z|[+-]\d{2}:\d{2})?$`)
	reYear     = regexp.MustCompile(`^(\d{4})(Z|[+-]\d{2}:\d{2})?$`)
)

// isoDate returns the ISO 8601 form of a date literal: an xsd:date loses its time zone
// (ISO 8601 has no zoned calendar date), an xsd:dateTime keeps it ("T" put in place of a
// space), a gYear or gYearMonth is the year or year-month. ok is false for anything else.
func isoDate(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if g := reDateTime.FindStringSubmatch(v); g != nil && validYMD(g[1]) {
		return g[1] + "T" + g[2] + g[5], true
	}
	if g := reDate.FindStringSubmatch(v); g != nil && validYMD(g[1]) {
		return g[1], true
	}
	if g := reYearMon.FindStringSubmatch(v); g != nil && validYMD(g[1]+"-01") {
		return g[1], true
	}
	if g := reYear.FindStringSubmatch(v); g != nil {
		return g[1], true
	}
	return "", false
}

func validYMD(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// date returns the first date of ts (in sorted order) in ISO 8601, warning for each literal
// that is not a date and when several dates are given.
func (m *mapper) date(field string, ts []rdf.Term) string {
	var dates []string
	for _, t := range ts {
		if !t.IsLiteral() {
			continue
		}
		if v, ok := isoDate(t.Value); ok {
			dates = append(dates, v)
		} else {
			m.warn(field, "%s is not a date (xsd:date, xsd:dateTime, xsd:gYear or xsd:gYearMonth); dropped", t.NTriples())
		}
	}
	if len(dates) == 0 {
		return ""
	}
	if len(dates) > 1 {
		m.warn(field, "%d dates; %s kept, the others dropped", len(dates), dates[0])
	}
	return dates[0]
}

// periodDate reads the start or end of a period: a literal, or a time:Instant node's
// time:inXSDDate / inXSDDateTime / inXSDDateTimeStamp.
func (m *mapper) periodDate(field string, period rdf.Term, props []string, instant string) string {
	var ts []rdf.Term
	for _, p := range props {
		ts = append(ts, m.objects(period, p)...)
	}
	for _, i := range m.objects(period, instant) {
		for _, p := range []string{timeInXSDDate, timeInXSDDateTime, timeInXSDDateTimeS} {
			ts = append(ts, m.objects(i, p)...)
		}
	}
	return m.date(field, ts)
}

// intervalSpaces is the white space around an interval's "/".
var intervalSpaces = regexp.MustCompile(`\s*/\s*`)

func (m *mapper) temporal(s rdf.Term) string {
	periods := m.objects(s, dctTemporal)
	var values []string
	for _, p := range periods {
		if p.IsLiteral() {
			// GeoNetwork writes "start\n   /\n   end": an ISO 8601 interval has no spaces.
			if v := intervalSpaces.ReplaceAllString(strings.TrimSpace(p.Value), "/"); v != "" {
				values = append(values, v)
			}
			continue
		}
		start := m.periodDate("temporal", p, []string{dcatStartDate, schemaStartDate}, timeHasBeginning)
		end := m.periodDate("temporal", p, []string{dcatEndDate, schemaEndDate}, timeHasEnd)
		switch {
		case start != "" && end != "":
			start, end = samePrecision(start, end)
			values = append(values, start+"/"+end)
		case start != "" || end != "":
			m.warn("temporal", "period %s has only a %s; DCAT-US has no open intervals, dropped", p.NTriples(),
				map[bool]string{true: "start (" + start + ")", false: "end (" + end + ")"}[start != ""])
		}
	}
	if len(values) == 0 {
		return ""
	}
	if len(values) > 1 {
		m.warn("temporal", "%d periods; %s kept, the others dropped", len(values), values[0])
	}
	return values[0]
}

// samePrecision widens a year or year-month end of an interval to a date when the other end
// is more precise ("1951/2023-12-31" → "1951-01-01/2023-12-31"): DCAT-US's interval pattern
// wants both ends written alike.
func samePrecision(start, end string) (string, string) {
	if len(start) == len(end) || len(start) > 7 && len(end) > 7 { // same precision, or both dates
		return start, end
	}
	widen := func(v string, last bool) string {
		switch len(v) {
		case 4:
			if last {
				return v + "-12-31"
			}
			return v + "-01-01"
		case 7:
			if !last {
				return v + "-01"
			}
			for d := 31; d >= 28; d-- {
				if validYMD(fmt.Sprintf("%s-%02d", v, d)) {
					return fmt.Sprintf("%s-%02d", v, d)
				}
			}
		}
		return v
	}
	return widen(start, false), widen(end, true)
}

func (m *mapper) spatial(s rdf.Term) string {
	places := m.objects(s, dctSpatial)
	var geoms, names []string
	for _, p := range places {
		if p.IsLiteral() {
			// GeoNetwork writes "start\n   /\n   end": an ISO 8601 interval has no spaces.
			if v := intervalSpaces.ReplaceAllString(strings.TrimSpace(p.Value), "/"); v != "" {
				names = append(names, v)
			}
			continue
		}
		var g string
		for _, prop := range []string{dcatBbox, locnGeometry, dcatCentroid} {
			for _, lit := range m.objects(p, prop) {
				if v, ok := m.geometry(lit); ok {
					g = v
					break
				}
			}
			if g != "" {
				break
			}
		}
		switch {
		case g != "":
			geoms = append(geoms, g)
		case named(p):
			names = append(names, p.Value)
		}
	}
	// A geometry wins over a place's name or IRI (which usually names the same area: not a
	// loss worth a warning); several geometries, or several names without one, are.
	values := geoms
	if len(values) == 0 {
		values = names
	}
	if len(values) == 0 {
		return ""
	}
	if len(values) > 1 {
		m.warn("spatial", "%d places; %s kept, the others dropped", len(values), values[0])
	}
	return values[0]
}

func (m *mapper) languages(s rdf.Term) []string {
	var out []string
	for _, t := range m.objects(s, dctLanguage) {
		if tag, ok := languageTag(t); ok {
			out = append(out, tag)
		} else if t.IsLiteral() || named(t) {
			// DCAT-US language items must be RFC 5646 tags: keeping the value would make the
			// dataset invalid.
			m.warn("language", "%s is not a language code; dropped", t.NTriples())
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

var reLangTag = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// languageTag maps a dct:language value to an RFC 5646 tag: an EU language IRI
// (…/authority/language/ENG) by the languageTags table, else its code lower-cased; an
// ISO 639 IRI of id.loc.gov or lexvo.org by its last segment; a literal that is a tag as it is.
func languageTag(t rdf.Term) (string, bool) {
	code := ""
	switch {
	case t.IsLiteral():
		code = strings.TrimSpace(t.Value)
	case named(t):
		if c := euCode(t.Value, "language"); c != "" {
			code = c
		} else if strings.Contains(t.Value, "/iso639") {
			code = lastSegment(t.Value)
		}
	}
	if tag, ok := languageTags[strings.ToUpper(code)]; ok {
		return tag, true
	}
	if reLangTag.MatchString(code) {
		return strings.ToLower(code), true
	}
	return "", false
}

func (m *mapper) accrualPeriodicity(s rdf.Term) string {
	var out []string
	for _, t := range m.objects(s, dctAccrual) {
		code := ""
		switch {
		case t.IsLiteral():
			code = strings.TrimSpace(t.Value)
		case named(t):
			code = euCode(t.Value, "frequency")
			if rest, ok := strings.CutPrefix(t.Value, "http://purl.org/cld/freq/"); ok {
				code = rest
			}
		}
		if v, ok := frequencies[code]; ok {
			out = append(out, v)
		} else if reRepeat.MatchString(code) {
			out = append(out, code)
		} else {
			m.warn("accrualPeriodicity", "%s has no ISO 8601 repeating duration; dropped", t.NTriples())
		}
	}
	if len(out) == 0 {
		return ""
	}
	if len(out) > 1 {
		m.warn("accrualPeriodicity", "%d frequencies; %s kept, the others dropped", len(out), out[0])
	}
	return out[0]
}

var reRepeat = regexp.MustCompile(`^R/P(\d+(\.\d+)?[YMWD])*(T(\d+(\.\d+)?[HMS])+)?$`)

// accessLevel maps dct:accessRights: EU access-right PUBLIC, RESTRICTED and NON_PUBLIC to
// "public", "restricted public" and "non-public". No accessRights is "public" (DCAT-AP
// sources are open data portals). Another value is "public" with a warning, and its label or
// IRI goes to rights.
func (m *mapper) accessLevel(s rdf.Term) (level, rights string) {
	level = "public"
	for _, t := range m.objects(s, dctAccessRights) {
		if named(t) {
			if l, ok := accessLevels[euCode(t.Value, "access-right")]; ok {
				return l, ""
			}
		}
	}
	for _, t := range m.objects(s, dctAccessRights) {
		r := ""
		switch {
		case t.IsLiteral():
			r = strings.TrimSpace(t.Value)
		default:
			r = m.literal(t, skosPrefLabel, rdfsLabel, dctTitle, dctDescription)
			if r == "" && named(t) {
				r = t.Value
			}
		}
		if r != "" {
			if len(r) > 255 {
				r = strings.ToValidUTF8(r[:255], "") // DCAT-US rights: at most 255
			}
			m.warn("accessLevel", "access rights %s are not an EU access-right; accessLevel \"public\" assumed, rights %q", t.NTriples(), r)
			return level, r
		}
	}
	return level, ""
}

// license is the dataset's dct:license IRI, else its distributions' (DCAT-AP puts the licence
// on the distribution) when they name one. A licence given only as a blank node is dropped
// with a warning (DCAT-US wants a URI).
func (m *mapper) license(own, fromDistributions []rdf.Term) string {
	for _, ts := range [][]rdf.Term{own, fromDistributions} {
		var iris []string
		anonymous := false
		for _, t := range ts {
			switch {
			case named(t):
				iris = append(iris, t.Value)
			case t.IsLiteral() && strings.Contains(t.Value, "://"):
				iris = append(iris, strings.TrimSpace(t.Value))
			default:
				anonymous = true
			}
		}
		slices.Sort(iris)
		iris = slices.Compact(iris)
		if len(iris) > 1 {
			m.warn("license", "%d licences; <%s> kept, the others dropped", len(iris), iris[0])
		}
		if len(iris) > 0 {
			return iris[0]
		}
		if anonymous {
			m.warn("license", "the licence has no IRI; dropped")
		}
	}
	return ""
}

// distributionNodes returns the dataset's distributions in a stable order: by download URL,
// access URL, then node.
func (m *mapper) distributionNodes(s rdf.Term) []rdf.Term {
	nodes := slices.DeleteFunc(m.objects(s, dcatDistribution), rdf.Term.IsLiteral)
	key := func(n rdf.Term) string {
		d, _ := firstNamed(m.objects(n, dcatDownloadURL))
		a, _ := firstNamed(m.objects(n, dcatAccessURL))
		return d + "\x00" + a + "\x00" + n.NTriples()
	}
	slices.SortStableFunc(nodes, func(a, b rdf.Term) int { return strings.Compare(key(a), key(b)) })
	return nodes
}

var reMediaType = regexp.MustCompile(`^[-\w]+/[-\w]+(\.[-\w]+)*([+][-\w]+)?$`)

func (m *mapper) distribution(i int, n rdf.Term) dcatus.Distribution {
	field := fmt.Sprintf("distribution[%d]", i)
	d := dcatus.Distribution{
		Type:        dcatus.TypeDistribution,
		Title:       m.literal(n, dctTitle),
		Description: m.literal(n, dctDescription),
		AccessURL:   m.single(field+".accessURL", m.objects(n, dcatAccessURL)),
		DownloadURL: m.single(field+".downloadURL", m.objects(n, dcatDownloadURL)),
	}
	for _, t := range m.objects(n, dcatMediaType) {
		if mt := mediaType(t); mt != "" {
			d.MediaType = mt
			break
		}
		m.warn(field+".mediaType", "%s is not a media type; dropped", t.NTriples())
	}
	for _, t := range m.objects(n, dctFormat) {
		f, mt := m.format(t)
		if d.Format == "" {
			d.Format = f
		}
		if d.MediaType == "" {
			d.MediaType = mt
		}
	}
	return d
}

// mediaType returns the media type of an IANA media-types IRI or a literal, "" when t is
// neither.
func mediaType(t rdf.Term) string {
	v := strings.TrimSpace(t.Value)
	switch {
	case t.IsIRI():
		i := strings.Index(v, ianaMediaType)
		if i < 0 {
			return ""
		}
		v = v[i+len(ianaMediaType):]
	case !t.IsLiteral():
		return ""
	}
	if reMediaType.MatchString(v) {
		return v
	}
	return ""
}

// format reads a dct:format value: an EU file-type IRI gives its code ("CSV") and the media
// type of the code when fileTypeMediaTypes knows it; an IANA IRI or a media-type literal gives
// the media type for both; another literal is the format; a node (dct:MediaTypeOrExtent)
// gives its label or rdf:value; another IRI its last segment.
func (m *mapper) format(t rdf.Term) (format, mt string) {
	if mt := mediaType(t); mt != "" {
		return mt, mt
	}
	switch {
	case t.IsLiteral():
		return strings.TrimSpace(t.Value), ""
	case named(t):
		if code := euCode(t.Value, "file-type"); code != "" {
			return code, fileTypeMediaTypes[code]
		}
	}
	if label := m.literal(t, rdfsLabel, skosPrefLabel, dctTitle); label != "" {
		return label, ""
	}
	for _, v := range m.objects(t, rdfValue) {
		if f, mt := m.format(v); f != "" {
			return f, mt
		}
	}
	if named(t) {
		return lastSegment(t.Value), ""
	}
	return "", ""
}
