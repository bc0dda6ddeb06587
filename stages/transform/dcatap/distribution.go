package dcatap

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/rdf"
)

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
	field := "distribution[" + strconv.Itoa(i) + "]"
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
