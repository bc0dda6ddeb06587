package fgdc

import (
	"fmt"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// Warning is a non-fatal note about a transformed record (a placeholder was used, a value
// was dropped…).
type Warning = dcatus.Warning

// Transform turns one FGDC CSDGM record (FGDC-STD-001-1998, with the elements its Biological
// Data Profile FGDC-STD-001.1-1999 and its Extensions for Remote Sensing FGDC-STD-012-2002
// add) into a DCAT-US 1.1 dataset object (JSON, keys in a stable order, meant to validate
// against Data.gov's non-federal dataset schema). The mapping is in the package comment.
//
// identifier is the record's identifier: the file's URL, as for ISO records (Data.gov's
// rule). publisherName, the name of the harvest source's organization, names the publisher
// when the record names none; empty: iso.PlaceholderPublisher. Missing required fields other
// than the title get Data.gov's placeholders (iso.Placeholder*), each with a Warning, as the
// ISO mapper does; every lossy choice is a Warning too.
//
// Input: a UTF-8 BOM and white space before the XML declaration are tolerated; ISO-8859-1,
// Windows-1252 and ASCII declarations are decoded as declared (iso.ToUTF8). A DOCTYPE is
// skipped: DTDs are never fetched and no entity beyond XML's predefined five is expanded.
//
// Errors wrap ErrEncoding (with the byte offset), ErrMalformedXML (with line and column),
// ErrLimit (nesting deeper than MaxDepth, more than MaxElements elements), ErrNotFGDC (the
// root element is not <metadata>, the message naming it; or an ArcGIS-format <metadata>) or
// ErrInvalidFGDC (no title; the message names the element path).
func Transform(xml []byte, identifier, publisherName string) (dcat []byte, warnings []Warning, err error) {
	root, err := decode(xml)
	if err != nil {
		return nil, nil, err
	}
	if root.Local != "metadata" || foreign(root) {
		return nil, nil, fmt.Errorf("%w: the root element is %s, not <metadata>%s", ErrNotFGDC, rootName(root), namespaceNote(root))
	}
	m := &mapper{root: root, idinfo: child(root, "idinfo")}
	if w := iso.CharsetWarning(xml); w != "" {
		m.Warn("encoding", "%s", w)
	}
	ds, err := m.dataset(identifier, publisherName)
	if err != nil {
		return nil, nil, err
	}
	dcat, err = ds.Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("encode DCAT-US: %w", err)
	}
	return dcat, m.Warnings, nil
}

// rootName is the root element as written, with its namespace URI when it binds one:
// <fgdc:metadata> (namespace "http://www.fgdc.gov/metadata/csdgm").
func rootName(n *node) string {
	switch {
	case foreign(n) && n.Space != "":
		return fmt.Sprintf("<%s:%s> (namespace %q)", n.Prefix, n.Local, n.Space)
	case foreign(n):
		return fmt.Sprintf("<%s:%s>", n.Prefix, n.Local)
	}
	return "<" + n.Local + ">"
}

// namespaceNote says, for a prefixed <metadata>, which CSDGM elements are read.
func namespaceNote(n *node) string {
	if n.Local != "metadata" {
		return ""
	}
	return ": FGDC CSDGM is read only with un-prefixed element names, as its DTD defines them, " +
		"in no namespace or a default one (such as a CSW server's http://www.opengis.net/cat/csw/csdgm)"
}

// mapper maps one parsed record to DCAT-US and collects warnings.
type mapper struct {
	root, idinfo *node
	dcatus.Warnings
}

// citeinfo is the record's own citation: idinfo/citation/citeinfo.
func (m *mapper) citeinfo() *node { return at(m.idinfo, "citation", "citeinfo") }

// dataset maps the record to a DCAT-US dataset with the identifier.
func (m *mapper) dataset(identifier, publisherName string) (*dcatus.Dataset, error) {
	if m.idinfo == nil {
		if child(m.root, "dataIdInfo") != nil || child(m.root, "Esri") != nil {
			return nil, fmt.Errorf("%w: the record is ArcGIS metadata (Esri's format: metadata/dataIdInfo), not FGDC CSDGM; "+
				"publish it as FGDC or ISO 19139", ErrNotFGDC)
		}
		return nil, fmt.Errorf("%w: metadata/idinfo (identification information) is missing: DCAT-US needs its title", ErrInvalidFGDC)
	}
	cit := m.citeinfo()
	ds := dcatus.NewDataset(identifier)
	if ds.Title = value(child(cit, "title")); ds.Title == "" {
		return nil, fmt.Errorf("%w: metadata/idinfo/citation/citeinfo/title is missing or empty: DCAT-US requires a title", ErrInvalidFGDC)
	}
	ds.Description = m.description()
	if d, w := dcatus.ShortenDescription(ds.Description); w != "" {
		ds.Description = d
		m.Warn("description", "%s", w)
	}
	ds.Keyword = m.keywords()
	m.dates(ds, cit)
	ds.ContactPoint = m.contactPoint()
	ds.Publisher = dcatus.NewOrganization(m.publisher(cit, publisherName))
	m.constraints(ds)
	m.spatial(ds)
	m.temporal(ds)
	m.distributions(ds, cit)
	ds.References = m.references()
	if p, ok := m.frequency(); ok {
		ds.AccrualPeriodicity = p
	}
	ds.Theme = []string{"geospatial"}
	return ds, nil
}

// description is the abstract; else the purpose (with a warning); else the placeholder.
func (m *mapper) description() string {
	descript := child(m.idinfo, "descript")
	if a := prose(child(descript, "abstract")); a != "" {
		return m.plain(a, "abstract")
	}
	if p := prose(child(descript, "purpose")); p != "" {
		m.Warn("description", "the record has no abstract; used its purpose (idinfo/descript/purpose)")
		return m.plain(p, "purpose")
	}
	m.Warn("description", "the record has no abstract; used the placeholder %q", iso.PlaceholderDescription)
	return iso.PlaceholderDescription
}

// plain returns prose that is wholly HTML markup as its text, with a warning (markupText),
// else as it is; what names the element ("abstract").
func (m *mapper) plain(prose, what string) string {
	text, ok := markupText(prose)
	if !ok {
		return prose
	}
	m.Warn("description", "the %s is HTML markup (as ArcGIS exports write rich text); kept its text, without the tags", what)
	return text
}

// keywords returns the theme, place, stratum and temporal keywords (CSDGM 1.6), the Biological
// Data Profile's taxonomy keywords (idinfo/taxonomy/keywtax/taxonkey) and the Remote Sensing
// Extensions' mission, platform and instrument names (idinfo/plainsid), de-duplicated
// case-sensitively, order kept, the first dcatus.MaxKeywords of them (with a warning); the
// placeholder when there are none.
func (m *mapper) keywords() []string {
	idinfo := []*node{m.idinfo}
	kw := path(idinfo, "keywords")
	lists := [][]string{
		values(path(kw, "theme"), "themekey"),
		values(path(kw, "place"), "placekey"),
		values(path(kw, "stratum"), "stratkey"),
		values(path(kw, "temporal"), "tempkey"),
		values(path(idinfo, "taxonomy", "keywtax"), "taxonkey"),
	}
	for _, p := range path(idinfo, "plainsid") {
		for _, name := range []string{"missname", "platflnm", "platfsnm", "instflnm", "instshnm"} {
			lists = append(lists, values([]*node{p}, name))
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, list := range lists {
		for _, v := range list {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		m.Warn("keyword", "the record has no keywords; used the placeholder %q", iso.PlaceholderKeyword)
		return []string{iso.PlaceholderKeyword}
	}
	out, w := dcatus.ShortenKeywords(out)
	if w != "" {
		m.Warn("keyword", "%s", w)
	}
	return out
}

// frequencies maps CSDGM's maintenance and update frequency (idinfo/status/update, free text
// with these suggested values) to ISO 8601 repeating durations; "As needed", "None planned"
// and "Unknown" have none.
var frequencies = map[string]string{
	"continually": "R/PT1S", "continual": "R/PT1S", "daily": "R/P1D", "weekly": "R/P1W",
	"biweekly": "R/P2W", "fortnightly": "R/P2W", "monthly": "R/P1M", "quarterly": "R/P3M",
	"semiannually": "R/P6M", "biannually": "R/P6M", "annually": "R/P1Y", "yearly": "R/P1Y",
	"biennially": "R/P2Y", "irregular": "irregular",
}

// frequency returns the accrualPeriodicity of idinfo/status/update, when it has one.
func (m *mapper) frequency() (string, bool) {
	raw := value(at(m.idinfo, "status", "update"))
	f := strings.ToLower(strings.TrimSuffix(raw, "."))
	if p, ok := frequencies[f]; ok {
		return p, true
	}
	switch f {
	case "", "as needed", "none planned", "unknown", "not planned":
	default:
		m.Warn("accrualPeriodicity", "update frequency %q is not one DCAT-US can say; dropped", short(raw))
	}
	return "", false
}

// short returns s cut to 200 characters, for warnings that quote the record.
// quoted is s for a message: quoted and cut by short, or "none" when empty.
func quoted(s string) string {
	if s == "" {
		return "none"
	}
	return fmt.Sprintf("%q", short(s))
}

func short(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
