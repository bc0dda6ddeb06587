package dcatapfeed

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/rdf"
)

// builder collects the triples of one document part (a dataset and the nodes it owns) and
// mints blank nodes whose labels are unique in the whole document.
type builder struct {
	ts    []rdf.Triple
	blank int
}

func (b *builder) add(s, p, o rdf.Term) { b.ts = append(b.ts, rdf.Triple{S: s, P: p, O: o}) }

// node returns a new blank node typed class.
func (b *builder) node(class rdf.Term) rdf.Term {
	b.blank++
	n := rdf.Blank("n" + strconv.Itoa(b.blank))
	b.add(n, rdfType, class)
	return n
}

// text adds (s, p, "v") when v is not blank.
func (b *builder) text(s, p rdf.Term, v string) {
	if strings.TrimSpace(v) != "" {
		b.add(s, p, rdf.Literal(v, "", ""))
	}
}

// record is a stored DCAT-US record read loosely: DCAT-US 1.1 and 3.0 records share the field
// names the mapping reads, and 3.0 gives some of them as objects or arrays where 1.1 has
// strings (str and strs read both).
type record map[string]any

// str is the string value of field k: a string as it is; a number in its JSON form; of an
// object its "@id", "name", "title" or "fn"; of an array its first string value.
func (r record) str(k string) string { return strOf(r[k]) }

func strOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case map[string]any:
		for _, k := range []string{"@id", "name", "title", "fn", "notation"} {
			if s := strOf(x[k]); s != "" {
				return s
			}
		}
	case []any:
		for _, e := range x {
			if s := strOf(e); s != "" {
				return s
			}
		}
	}
	return ""
}

// strs is field k as a list of strings: an array's string values, or a single value.
func (r record) strs(k string) []string {
	switch x := r[k].(type) {
	case []any:
		var out []string
		for _, e := range x {
			if s := strOf(e); strings.TrimSpace(s) != "" {
				out = append(out, s)
			}
		}
		return out
	case nil:
		return nil
	}
	if s := strOf(r[k]); strings.TrimSpace(s) != "" {
		return []string{s}
	}
	return nil
}

// objs is field k as a list of objects (an object alone is a list of one).
func (r record) objs(k string) []record {
	switch x := r[k].(type) {
	case map[string]any:
		return []record{x}
	case []any:
		var out []record
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	return nil
}

// classOf is the DCAT class of a stored record of type recordType (store.Dataset.RecordType).
func classOf(recordType string) rdf.Term {
	switch recordType {
	case harvest.RecordTypeDatasetSeries:
		return dcatDatasetSeries
	case harvest.RecordTypeDataService:
		return dcatDataService
	}
	return dcatDataset
}

// mapDCATUS adds the DCAT-AP 3.0 description of the stored DCAT-US record dcat (JSON) as
// subject s of class class, identifier the dataset's original identifier (dct:identifier).
// docs/catalog.md's table "DCAT-US → DCAT-AP" is this function, field by field. A record that
// is not a JSON object is an error.
func (b *builder) mapDCATUS(s, class rdf.Term, identifier string, dcat []byte) error {
	var r record
	if err := json.Unmarshal(dcat, &r); err != nil {
		return fmt.Errorf("dcatapfeed: the stored record of %q is not a JSON object: %w", identifier, err)
	}
	b.add(s, rdfType, class)
	b.add(s, dctIdentifier, rdf.Literal(identifier, "", ""))
	b.text(s, dctTitle, r.str("title"))
	b.text(s, dctDescription, r.str("description"))
	for _, k := range r.strs("keyword") {
		b.text(s, dcatKeyword, k)
	}
	if d, ok := typedDate(r.str("modified")); ok {
		b.add(s, dctModified, d)
	}
	if d, ok := typedDate(r.str("issued")); ok {
		b.add(s, dctIssued, d)
	}
	b.agents(s, r)
	b.rights(s, r)
	b.spatial(s, r.str("spatial"))
	b.temporal(s, r.str("temporal"))
	b.context(s, r)
	if class == dcatDataService {
		for _, e := range append(r.strs("endpointURL"), r.strs("endpointURLs")...) {
			if iri, ok := iriOf(e); ok {
				b.add(s, dcatEndpointURL, rdf.IRI(iri))
			}
		}
	}
	license, licensed := b.license(r.str("license"))
	dists := r.objs("distribution")
	for _, d := range dists {
		b.distribution(s, d, license, licensed)
	}
	if licensed && len(dists) == 0 {
		b.add(s, dctLicense, license)
	}
	return nil
}

// agents adds the record's publishers (foaf:Agent) and contact points (vcard:Kind) to s.
func (b *builder) agents(s rdf.Term, r record) {
	for _, p := range r.objs("publisher") {
		if name := strOf(map[string]any(p)); strings.TrimSpace(name) != "" {
			a := b.node(foafAgent)
			b.add(s, dctPublisher, a)
			b.add(a, rdfType, foafOrganization)
			b.text(a, foafName, name)
		}
	}
	for _, c := range r.objs("contactPoint") {
		fn, email := c.str("fn"), c.str("hasEmail")
		if strings.TrimSpace(fn+email) == "" {
			continue
		}
		k := b.node(vcardKind)
		b.add(s, dcatContactPoint, k)
		b.text(k, vcardFN, fn)
		if email = strings.TrimSpace(email); email != "" {
			if !strings.HasPrefix(strings.ToLower(email), "mailto:") {
				email = "mailto:" + email
			}
			if iri, ok := iriOf(email); ok {
				b.add(k, vcardHasEmail, rdf.IRI(iri))
			}
		}
	}
}

// rights adds the record's access level (the EU access-right authority) and rights to s.
func (b *builder) rights(s rdf.Term, r record) {
	if iri, ok := accessRights[r.str("accessLevel")]; ok {
		b.add(s, dctAccessRights, rdf.IRI(iri))
		b.add(rdf.IRI(iri), rdfType, dctRightsStatement)
	}
	if rights := r.str("rights"); strings.TrimSpace(rights) != "" {
		n := b.node(dctRightsStatement)
		b.add(s, dctRights, n)
		b.text(n, rdfsLabel, rights)
	}
}

// context adds the record's frequency, languages, themes, pages, standards and parent to s.
func (b *builder) context(s rdf.Term, r record) {
	if code, ok := frequencies[r.str("accrualPeriodicity")]; ok {
		f := rdf.IRI(euAuthority + "frequency/" + code)
		b.add(s, dctAccrual, f)
		b.add(f, rdfType, dctFrequency)
	}
	for _, tag := range r.strs("language") {
		if iri := languageIRI(tag); iri != "" {
			b.add(s, dctLanguage, rdf.IRI(iri))
			b.add(rdf.IRI(iri), rdfType, dctLinguisticSystem)
		}
	}
	for _, theme := range r.strs("theme") {
		c := b.node(skosConcept)
		b.add(s, dcatTheme, c)
		b.text(c, skosPrefLabel, theme)
	}
	b.document(s, dcatLandingPage, r.str("landingPage"))
	for _, ref := range r.strs("references") {
		b.document(s, foafPage, ref)
	}
	for _, std := range r.strs("conformsTo") {
		if iri, ok := iriOf(std); ok {
			b.add(s, dctConformsTo, rdf.IRI(iri))
			b.add(rdf.IRI(iri), rdfType, dctStandard)
		}
	}
	if iri, ok := iriOf(r.str("isPartOf")); ok {
		b.add(s, dctIsPartOf, rdf.IRI(iri))
	}
}

// license returns the dct:LicenseDocument of a DCAT-US license: its IRI when it is one, else
// a blank node labelled with the text.
func (b *builder) license(v string) (rdf.Term, bool) {
	if strings.TrimSpace(v) == "" {
		return rdf.Term{}, false
	}
	if iri, ok := iriOf(v); ok {
		l := rdf.IRI(iri)
		b.add(l, rdfType, dctLicenseDocument)
		return l, true
	}
	l := b.node(dctLicenseDocument)
	b.text(l, rdfsLabel, v)
	return l, true
}

func (b *builder) distribution(s rdf.Term, d record, license rdf.Term, licensed bool) {
	access, okA := iriOf(d.str("accessURL"))
	download, okD := iriOf(d.str("downloadURL"))
	if !okA && !okD {
		return // DCAT-AP requires an access URL
	}
	n := b.node(dcatDistribution)
	b.add(s, dcatDistributionP, n)
	b.text(n, dctTitle, d.str("title"))
	b.text(n, dctDescription, d.str("description"))
	if !okA { // DCAT-AP: accessURL is mandatory and covers a download URL (ckanext-dcat does this too)
		access = download
	}
	// DCAT-AP 3.0.0's shapes want both URLs typed rdfs:Resource in the data graph (sh:class).
	b.add(n, dcatAccessURL, rdf.IRI(access))
	b.add(rdf.IRI(access), rdfType, rdfsResource)
	if okD {
		b.add(n, dcatDownloadURL, rdf.IRI(download))
		b.add(rdf.IRI(download), rdfType, rdfsResource)
	}
	if mt := strings.TrimSpace(d.str("mediaType")); reMediaType.MatchString(mt) {
		m := rdf.IRI(ianaMedia + mt)
		b.add(n, dcatMediaType, m)
		b.add(m, rdfType, dctMediaType)
	}
	if f := strings.TrimSpace(d.str("format")); f != "" {
		m := b.node(dctMediaTypeOrExt)
		b.add(n, dctFormat, m)
		b.text(m, rdfsLabel, f)
	}
	for _, std := range d.strs("conformsTo") {
		if iri, ok := iriOf(std); ok {
			b.add(n, dctConformsTo, rdf.IRI(iri))
			b.add(rdf.IRI(iri), rdfType, dctStandard)
		}
	}
	if licensed {
		b.add(n, dctLicense, license)
	}
}

var reMediaType = regexp.MustCompile(`^[-\w]+/[-\w+.]+$`)

// document adds (s, p, <v>) with v a foaf:Document, when v is an IRI.
func (b *builder) document(s, p rdf.Term, v string) {
	if iri, ok := iriOf(v); ok {
		b.add(s, p, rdf.IRI(iri))
		b.add(rdf.IRI(iri), rdfType, foafDocument)
	}
}

var reBbox = regexp.MustCompile(`^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$`)

// spatial maps DCAT-US spatial: "west,south,east,north" to a dct:Location with a dcat:bbox
// polygon (WKT), an http(s) IRI (a gazetteer's place) to itself, anything else (a place name,
// GeoJSON) to a dct:Location labelled with the text.
func (b *builder) spatial(s rdf.Term, v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	if g := reBbox.FindStringSubmatch(v); g != nil {
		w, so, e, n := g[1], g[2], g[3], g[4]
		l := b.node(dctLocation)
		b.add(s, dctSpatial, l)
		b.add(l, dcatBbox, rdf.Literal(fmt.Sprintf("POLYGON((%s %s, %s %s, %s %s, %s %s, %s %s))", w, so, w, n, e, n, e, so, w, so), gspWKT, ""))
		return
	}
	if iri, ok := iriOf(v); ok && strings.HasPrefix(iri, "http") {
		b.add(s, dctSpatial, rdf.IRI(iri))
		b.add(rdf.IRI(iri), rdfType, dctLocation)
		return
	}
	l := b.node(dctLocation)
	b.add(s, dctSpatial, l)
	b.text(l, skosPrefLabel, v)
}

// temporal maps a DCAT-US temporal "start/end" to a dct:PeriodOfTime with dcat:startDate and
// dcat:endDate (each when it is a date); another value to a period labelled with the text.
func (b *builder) temporal(s rdf.Term, v string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return
	}
	p := b.node(dctPeriodOfTime)
	b.add(s, dctTemporal, p)
	start, end, ok := strings.Cut(v, "/")
	ds, okS := typedDate(start)
	de, okE := typedDate(end)
	if ok && (okS || okE) {
		if okS {
			b.add(p, dcatStartDate, ds)
		}
		if okE {
			b.add(p, dcatEndDate, de)
		}
		return
	}
	b.text(p, rdfsLabel, v)
}

// languageIRI is the language IRI of a BCP 47 tag: the EU authority table's, else the Library
// of Congress's ISO 639-1 (two letters) or 639-2 (three) IRI; "" for anything else.
func languageIRI(tag string) string {
	primary := strings.ToLower(strings.TrimSpace(tag))
	if i := strings.IndexByte(primary, '-'); i >= 0 {
		primary = primary[:i]
	}
	if code, ok := languages[primary]; ok {
		return euAuthority + "language/" + code
	}
	switch {
	case reLetters.MatchString(primary) && len(primary) == 2:
		return "http://id.loc.gov/vocabulary/iso639-1/" + primary
	case reLetters.MatchString(primary) && len(primary) == 3:
		return "http://id.loc.gov/vocabulary/iso639-2/" + primary
	}
	return ""
}

var reLetters = regexp.MustCompile(`^[a-z]+$`)

var (
	reXSDDate       = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	reXSDDateTime   = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$`)
	reXSDGYearMonth = regexp.MustCompile(`^\d{4}-(0[1-9]|1[0-2])$`)
	reXSDGYear      = regexp.MustCompile(`^\d{4}$`)
)

// typedDate is a DCAT-US date as a typed literal of the XML Schema type whose lexical form it
// has (xsd:date, xsd:dateTime, xsd:gYearMonth, xsd:gYear); ok is false for anything else (an
// ISO 8601 interval or repeating duration, a date without its seconds, a date that is no day).
func typedDate(v string) (rdf.Term, bool) {
	v = strings.TrimSpace(v)
	valid := func(day string) bool { _, err := time.Parse("2006-01-02", day); return err == nil }
	switch {
	case reXSDDate.MatchString(v) && valid(v):
		return rdf.Literal(v, xsdDate, ""), true
	case reXSDDateTime.MatchString(v) && valid(reXSDDateTime.FindStringSubmatch(v)[1]):
		return rdf.Literal(v, xsdDateTime, ""), true
	case reXSDGYearMonth.MatchString(v):
		return rdf.Literal(v, xsdGYearMonth, ""), true
	case reXSDGYear.MatchString(v):
		return rdf.Literal(v, xsdGYear, ""), true
	}
	return rdf.Term{}, false
}

// iriOf returns v as an absolute IRI that every RDF syntax can carry: trimmed, with the
// characters RDF forbids in an IRI (space, <>"{}|\^` and controls) percent-encoded. ok is false
// when v is not an absolute URI (no scheme, or an http(s) URL without a host).
func iriOf(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", false
	}
	out := v
	if strings.IndexFunc(v, iriEscaped) >= 0 {
		var b strings.Builder
		for i := 0; i < len(v); i++ {
			if c := v[i]; iriEscaped(rune(c)) {
				fmt.Fprintf(&b, "%%%02X", c)
			} else {
				b.WriteByte(c)
			}
		}
		out = b.String()
	}
	u, err := url.Parse(out)
	if err != nil || u.Scheme == "" || !reScheme.MatchString(u.Scheme) {
		return "", false
	}
	if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
		return "", false
	}
	return out, true
}

// iriEscaped reports whether iriOf percent-encodes the byte c.
func iriEscaped(c rune) bool {
	return c <= 0x20 || c == 0x7f || (c < 0x80 && strings.IndexByte("<>\"{}|\\^`", byte(c)) >= 0)
}

var reScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// mapCatalogRecord adds a DCAT-US 3.0 CatalogRecord (a catalog's record of one of its datasets,
// harvested as a record of its own) as the dcat:CatalogRecord s: dct:identifier, dct:title,
// dct:modified and dct:issued when they are dates, foaf:primaryTopic when it is an IRI.
func (b *builder) mapCatalogRecord(s rdf.Term, identifier string, dcat []byte) error {
	var r record
	if err := json.Unmarshal(dcat, &r); err != nil {
		return fmt.Errorf("dcatapfeed: the stored record of %q is not a JSON object: %w", identifier, err)
	}
	b.add(s, rdfType, dcatCatalogRecord)
	b.add(s, dctIdentifier, rdf.Literal(identifier, "", ""))
	b.text(s, dctTitle, r.str("title"))
	b.text(s, dctDescription, r.str("description"))
	if d, ok := typedDate(r.str("modified")); ok {
		b.add(s, dctModified, d)
	}
	if d, ok := typedDate(r.str("issued")); ok {
		b.add(s, dctIssued, d)
	}
	if iri, ok := iriOf(r.str("primaryTopic")); ok {
		b.add(s, foafPrimaryTopic, rdf.IRI(iri))
	}
	return nil
}
