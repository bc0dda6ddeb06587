package dcatap

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

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
