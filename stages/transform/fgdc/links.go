package fgdc

import (
	"regexp"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// link is one online address of a distribution: a CSDGM network resource name.
type link struct {
	url, title, format, protocol string
}

// distributions sets distribution and landingPage. Each network resource name of a digital
// form (distinfo/stdorder/digform/digtopt/onlinopt/computer/networka/networkr) is one
// distribution: a downloadURL with the media type its file extension names, else an
// accessURL (iso.GuessMediaType, the ISO mapper's rule), with the form's format name
// (digtinfo/formname) as its format and the distribution's resource description
// (distinfo/resdesc) as its title. The citation's first online linkage (citeinfo/onlink) is
// the landing page, added last as a text/html distribution (Data.gov's rule for ISO
// records); its other linkages are distributions too. Addresses that are not URLs are
// dropped with a warning; repeated ones are kept once.
func (m *mapper) distributions(ds *dcatus.Dataset, cit *node) {
	seen := map[string]bool{}
	add := func(l link) {
		u, ok := iso.CleanURL(l.url)
		if !ok {
			m.Warn("distribution", "network address %q is not a URL; dropped", short(l.url))
			return
		}
		if seen[u] {
			return
		}
		seen[u] = true
		d := iso.Distribution(u, l.protocol)
		d.Title, d.Format = l.title, l.format
		ds.Distribution = append(ds.Distribution, d)
	}
	onlinks := values([]*node{cit}, "onlink")
	for i, o := range onlinks {
		if u, ok := iso.CleanURL(o); ok {
			ds.LandingPage = u
			seen[u] = true // added last
			onlinks = slices.Delete(onlinks, i, i+1)
			break
		}
	}
	for _, l := range m.networkLinks() {
		add(l)
	}
	for _, o := range onlinks {
		add(link{url: o})
	}
	if ds.LandingPage != "" {
		ds.Distribution = append(ds.Distribution, dcatus.Distribution{Type: dcatus.TypeDistribution,
			AccessURL: ds.LandingPage, MediaType: "text/html"})
	}
}

// networkLinks returns the network resource names of every digital form, in document order.
func (m *mapper) networkLinks() []link {
	var out []link
	for _, dist := range path([]*node{m.root}, "distinfo") {
		title := value(child(dist, "resdesc"))
		for _, form := range path([]*node{dist}, "stdorder", "digform") {
			format := value(at(form, "digtinfo", "formname"))
			for _, opt := range path([]*node{form}, "digtopt", "onlinopt") {
				protocol := value(child(opt, "accinstr"))
				for _, u := range values(path([]*node{opt}, "computer", "networka"), "networkr") {
					out = append(out, link{url: u, title: title, format: format, protocol: protocol})
				}
			}
		}
	}
	return out
}

// references returns the online linkages of the works the record cites: cross references
// (idinfo/crossref), the larger work (citeinfo/lworkcit) and, from the Remote Sensing
// Extensions, the documentation (idinfo/descript/documnts: data dictionary, user's guide,
// scientific paper citations), as MDTranslator's DCAT-US writer takes its associated
// resources' online resources (it joins them into one string; DCAT-US wants an array).
func (m *mapper) references() []string {
	idinfo := []*node{m.idinfo}
	cites := path(idinfo, "crossref", "citeinfo")
	cites = append(cites, path(idinfo, "citation", "citeinfo", "lworkcit", "citeinfo")...)
	for _, doc := range []string{"datdicrf", "userguid", "scipap"} {
		cites = append(cites, path(idinfo, "descript", "documnts", doc, "citeinfo")...)
	}
	var out []string
	for _, o := range values(cites, "onlink") {
		if u, ok := iso.CleanURL(o); ok && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out
}

// noRestriction reports whether an access constraint (idinfo/accconst) says there is none:
// "None", "None.", "None. Please see …", "No restrictions", "Unrestricted", "Public".
func noRestriction(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"none", "no restriction", "no access constraint", "unrestricted", "not applicable", "n/a", "public"} {
		if l == p || strings.HasPrefix(l, p+".") || strings.HasPrefix(l, p+" ") || strings.HasPrefix(l, p+";") || strings.HasPrefix(l, p+",") {
			return true
		}
	}
	return l == ""
}

var urlInText = regexp.MustCompile(`https?://[^\s<>"']+`)

// constraints sets accessLevel, rights and license. The access constraint (idinfo/accconst)
// is free text: "public", "restricted public" or "non-public" is the accessLevel; any other
// restriction is kept as rights (at most 255 characters) with accessLevel public and a
// warning, as DCAT-US's levels cannot be read from prose; "None" and the like give no
// rights. The license is the first URL of the use constraint (idinfo/useconst), as the ISO
// mapper takes the first URL of the use limitations.
func (m *mapper) constraints(ds *dcatus.Dataset) {
	acc := value(child(m.idinfo, "accconst"))
	switch l := strings.ToLower(strings.TrimSuffix(acc, ".")); {
	case l == "restricted public" || l == "non-public":
		ds.AccessLevel = l
	case !noRestriction(acc):
		r := acc
		if len([]rune(r)) > 255 {
			r = string([]rune(r)[:255])
			m.Warn("rights", "access constraints cut to 255 characters")
		}
		ds.Rights = r
		m.Warn("accessLevel", "access constraints %q kept as rights; accessLevel left public", short(acc))
	}
	for _, u := range urlInText.FindAllString(value(child(m.idinfo, "useconst")), -1) {
		if clean, ok := iso.CleanURL(strings.TrimRight(u, ".,;:)]")); ok {
			ds.License = clean
			return
		}
	}
}
