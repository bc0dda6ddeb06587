package dublincore

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// mimeType matches a media type as dc:format gives one ("text/csv", "application/geo+json").
var mimeType = regexp.MustCompile(`^[A-Za-z]+/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$`)

// links sets distribution and landingPage from dct:references, references from dc:relation
// and dct:relation, and landingPage from an http(s) dc:identifier when no reference gave one.
//
// A reference is a downloadURL when its file extension names a media type (iso.GuessMediaType,
// the ISO mapper's rule), or when its scheme (the link's protocol, e.g.
// "WWW:DOWNLOAD-1.0-http--download") says download and the record has one dc:format that is a
// media type; else an accessURL (a service request is application/xml, a page text/html). The
// first page whose scheme is a web link (WWW:LINK…, or none) is the landingPage, kept as the
// last distribution too, as the ISO mapping keeps its landing page.
func (m *mapper) links(ds *dcatus.Dataset) {
	format := ""
	if f := distinct(m.rec.all("dc:format")); len(f) == 1 && mimeType.MatchString(f[0]) {
		format = strings.ToLower(f[0])
	}
	seen := map[string]bool{}
	var bad dropped
	defer func() { m.warnDropped("distribution", bad, "not a valid URL; dropped") }()
	for _, p := range m.rec.props["dct:references"] {
		u, ok := iso.CleanURL(p.text)
		if !ok {
			if p.text != "" {
				bad.add("dct:references " + strconv.Quote(clip(p.text)))
			}
			continue
		}
		if seen[u] {
			continue
		}
		seen[u] = true
		mt, isFile := iso.GuessMediaType(u, p.scheme)
		scheme := strings.ToLower(p.scheme)
		if !isFile && format != "" && strings.Contains(scheme, "download") {
			mt, isFile = format, true
		}
		if !isFile && mt == "text/html" && ds.LandingPage == "" && (scheme == "" || strings.Contains(scheme, "link")) {
			ds.LandingPage = u
			continue
		}
		d := dcatus.Distribution{Type: dcatus.TypeDistribution, MediaType: mt}
		if isFile {
			d.DownloadURL = u
		} else {
			d.AccessURL = u
		}
		ds.Distribution = append(ds.Distribution, d)
	}
	if ds.LandingPage != "" {
		ds.Distribution = append(ds.Distribution, dcatus.Distribution{Type: dcatus.TypeDistribution, AccessURL: ds.LandingPage, MediaType: "text/html"})
	} else if id := m.rec.first("dc:identifier"); strings.HasPrefix(id, "http://") || strings.HasPrefix(id, "https://") {
		if u, ok := iso.CleanURL(id); ok {
			ds.LandingPage = u
		}
	}
	for _, rel := range m.rec.all("dc:relation", "dct:relation") {
		if u, ok := iso.CleanURL(rel); ok && !strings.ContainsAny(rel, " \t") && !slices.Contains(ds.References, u) {
			ds.References = append(ds.References, u)
		}
	}
}
