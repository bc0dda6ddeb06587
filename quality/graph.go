package quality

import (
	"bytes"
	"errors"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/rdf"
)

// graphJudge decides the indicators of one DCAT-AP record on its graph: the dataset Input.Identifier
// and the resources its record graph holds (EXTRACT's closure, blank nodes skolemized). The
// properties it reads are DCAT-AP's, as piveau's metrics define them (edp-dqv-vocabulary.ttl);
// docs/quality.md has the table.
type graphJudge struct {
	g     *rdf.MemGraph
	ds    rdf.Term
	dists []rdf.Term // the objects of dcat:distribution that are not literals, in N-Triples order
	in    Input
}

var (
	rdfType          = rdf.IRI(rdf.RDFType)
	dcatDistribution = rdf.IRI(dcatap.DCATDistribution)
	dcatAccessURL    = rdf.IRI(dcatap.DCATAccessURL)
	dcatDownloadURL  = rdf.IRI(dcatap.DCATDownloadURL)
	dctFormat        = rdf.IRI(dcatap.DCTFormat)
	dcatMediaType    = rdf.IRI(dcatap.DCATMediaType)
	dctLicense       = rdf.IRI(dcatap.DCTLicense)
	dctRights        = rdf.IRI(dcatap.DCTRights)
	dctAccessRights  = rdf.IRI(dcatap.DCTAccessRights)
	dcatByteSize     = rdf.IRI(dcatap.DCATByteSize)
	dctIssued        = rdf.IRI(dcatap.DCTIssued)
	dctModified      = rdf.IRI(dcatap.DCTModified)

	// datasetProperties are the properties of the dataset whose presence meets an indicator.
	datasetProperties = map[Metric]rdf.Term{
		KeywordAvailability:      rdf.IRI(dcatap.DCATKeyword),
		CategoryAvailability:     rdf.IRI(dcatap.DCATTheme),
		SpatialAvailability:      rdf.IRI(dcatap.DCTSpatial),
		TemporalAvailability:     rdf.IRI(dcatap.DCTTemporal),
		ContactPointAvailability: rdf.IRI(dcatap.DCATContactPoint),
		PublisherAvailability:    rdf.IRI(dcatap.DCTPublisher),
		AccessRightsAvailability: dctAccessRights,
		DateIssuedAvailability:   dctIssued,
		DateModifiedAvailability: dctModified,
	}
)

// errDescribed stops readGraph's look for a triple of the dataset at the first.
var errDescribed = errors.New("described")

// readGraph reads in.Graph (N-Quads; graph names ignored) for the dataset in.Identifier; false
// when it does not parse or has no triple with the dataset as subject.
func readGraph(in Input) (graphJudge, bool) {
	g := rdf.NewMemGraph()
	if in.Identifier == "" || rdf.ParseRecord(bytes.NewReader(in.Graph), g.Add) != nil {
		return graphJudge{}, false
	}
	j := graphJudge{g: g, ds: rdf.IRI(in.Identifier), in: in}
	described := g.Match(j.ds, rdf.Term{}, rdf.Term{}, func(rdf.Triple) error { return errDescribed }) != nil
	if !described {
		return graphJudge{}, false
	}
	j.dists = slices.DeleteFunc(j.objects(j.ds, dcatDistribution), rdf.Term.IsLiteral)
	return j, true
}

// objects returns the objects of (s, p) (any predicate when p is zero) in N-Triples order, so
// that a choice of one is the one TRANSFORM makes.
func (j graphJudge) objects(s, p rdf.Term) []rdf.Term {
	var out []rdf.Term
	_ = j.g.Match(s, p, rdf.Term{}, func(t rdf.Triple) error {
		if !p.IsZero() || t.P != rdfType {
			out = append(out, t.O)
		}
		return nil
	})
	slices.SortFunc(out, func(a, b rdf.Term) int { return strings.Compare(a.NTriples(), b.NTriples()) })
	return out
}

// present reports whether an object says something: a literal that is not blank, an IRI the
// publisher named, or a node (a blank node, skolemized) with a property other than rdf:type
// whose value is not a blank literal (so `dcat:contactPoint [ a vcard:Kind ]` is no contact
// point, as `{"@type": "vcard:Contact"}` is none in DCAT-US).
func (j graphJudge) present(t rdf.Term) bool {
	switch {
	case t.IsLiteral():
		return strings.TrimSpace(t.Value) != ""
	case named(t):
		return true
	}
	return slices.ContainsFunc(j.objects(t, rdf.Term{}), func(o rdf.Term) bool {
		return !o.IsLiteral() || strings.TrimSpace(o.Value) != ""
	})
}

// has reports whether s has a present value of p.
func (j graphJudge) has(s, p rdf.Term) bool {
	return slices.ContainsFunc(j.objects(s, p), j.present)
}

func (j graphJudge) dataset(m Metric) bool {
	switch m {
	case DCATAPCompliance:
		return !j.in.Findings
	case AccessRightsVocabularyAlignment:
		return slices.ContainsFunc(j.objects(j.ds, dctAccessRights), func(t rdf.Term) bool {
			return named(t) && euAccessRight(t.Value)
		})
	}
	if p, ok := datasetProperties[m]; ok {
		return j.has(j.ds, p)
	}
	return false
}

func (j graphJudge) datasetWide(m Metric) bool {
	return (m == DateIssuedAvailability || m == DateModifiedAvailability) && j.dataset(m)
}

func (j graphJudge) distributions() int { return len(j.dists) }

func (j graphJudge) distribution(m Metric, i int) verdict {
	n := j.dists[i]
	switch m {
	case AccessURLStatusCode: // a distribution with only a downloadURL is judged by it
		u := firstNamed(j.objects(n, dcatAccessURL))
		if u == "" {
			u = firstNamed(j.objects(n, dcatDownloadURL))
		}
		return linkVerdict(j.in.Links, u)
	case DownloadURLAvailability:
		return is(firstNamed(j.objects(n, dcatDownloadURL)) != "")
	case DownloadURLStatusCode:
		return linkVerdict(j.in.Links, firstNamed(j.objects(n, dcatDownloadURL)))
	case FormatAvailability:
		return is(j.has(n, dctFormat))
	case MediaTypeAvailability:
		return is(j.has(n, dcatMediaType))
	case FormatMediaTypeVocabularyAlignment:
		return is(j.aligned(n))
	case FormatMediaTypeNonProprietary:
		return is(j.anyFileType(n, func(f fileType) bool { return f.nonProprietary }))
	case FormatMediaTypeMachineReadable:
		return is(j.anyFileType(n, func(f fileType) bool { return f.machineReadable }))
	case LicenceAvailability:
		return is(slices.ContainsFunc(j.ownOrDatasets(n, dctLicense), j.present))
	case KnownLicence:
		return is(slices.ContainsFunc(j.ownOrDatasets(n, dctLicense), func(t rdf.Term) bool {
			return (named(t) || t.IsLiteral()) && knownLicence(t.Value) != ""
		}))
	case RightsAvailability:
		return is(slices.ContainsFunc(j.ownOrDatasets(n, dctRights), j.present))
	case ByteSizeAvailability:
		return is(j.has(n, dcatByteSize))
	case DateIssuedAvailability:
		return is(j.has(n, dctIssued))
	case DateModifiedAvailability:
		return is(j.has(n, dctModified))
	}
	return failed
}

// ownOrDatasets returns the present values of p on the distribution n, else the dataset's (a
// licence or rights statement on the dataset holds for each distribution that has none).
func (j graphJudge) ownOrDatasets(n, p rdf.Term) []rdf.Term {
	if own := slices.DeleteFunc(j.objects(n, p), func(t rdf.Term) bool { return !j.present(t) }); len(own) > 0 {
		return own
	}
	return j.objects(j.ds, p)
}

// aligned reports whether the distribution's dct:format and dcat:mediaType are from DCAT-AP's
// vocabularies: at least one is given, every dcat:mediaType is an IANA media type's IRI
// (http://www.iana.org/assignments/media-types/text/csv) and every dct:format an EU file
// type's IRI (…/authority/file-type/CSV) or an IANA media type's. A literal, or a node, is
// present but not aligned: DCAT-AP gives both properties IRIs of these vocabularies.
func (j graphJudge) aligned(n rdf.Term) bool {
	formats, mediaTypes := j.objects(n, dctFormat), j.objects(n, dcatMediaType)
	if len(formats) == 0 && len(mediaTypes) == 0 {
		return false
	}
	for _, t := range mediaTypes {
		if !ianaIRI(t) {
			return false
		}
	}
	for _, t := range formats {
		if !ianaIRI(t) && !(named(t) && fileTypeIRI(t.Value)) {
			return false
		}
	}
	return true
}

// anyFileType reports whether the EU file type of any of the distribution's dct:format and
// dcat:mediaType values (an IRI, or a literal read as a DCAT-US format is) has property ok.
func (j graphJudge) anyFileType(n rdf.Term, ok func(fileType) bool) bool {
	for _, p := range []rdf.Term{dctFormat, dcatMediaType} {
		for _, t := range j.objects(n, p) {
			if !named(t) && !t.IsLiteral() {
				continue
			}
			if f, found := vocab().fileTypes[fileTypeOf(t.Value)]; found && ok(f) {
				return true
			}
		}
	}
	return false
}

// linkURLs returns the URLs the status-code indicators look up, as LinkURLs does for a DCAT-US
// record: each distribution's first accessURL and downloadURL, distinct (in the graph's order
// of distributions, which need not be TRANSFORM's).
func (j graphJudge) linkURLs() []string {
	var out []string
	for _, n := range j.dists {
		for _, p := range []rdf.Term{dcatAccessURL, dcatDownloadURL} {
			if u := firstNamed(j.objects(n, p)); u != "" && !slices.Contains(out, u) {
				out = append(out, u)
			}
		}
	}
	return out
}

// named reports whether t is an IRI the publisher gave: not a skolem IRI standing for a blank
// node.
func named(t rdf.Term) bool { return t.IsIRI() && !dcatap.IsSkolem(t.Value) }

// firstNamed returns the first named IRI of ts ("" when none): the one TRANSFORM writes as the
// distribution's accessURL or downloadURL, so that a DCAT-AP dataset's graph and its DCAT-US
// record name the same URLs, the ones CHECK checks.
func firstNamed(ts []rdf.Term) string {
	for _, t := range ts {
		if named(t) {
			return strings.TrimSpace(t.Value)
		}
	}
	return ""
}

// ianaIRI reports whether t is the IRI of a media type of the IANA registry.
func ianaIRI(t rdf.Term) bool {
	if !named(t) {
		return false
	}
	v := strings.Replace(t.Value, "https://", "http://", 1)
	rest, ok := strings.CutPrefix(v, dcatap.IANAMediaTypes)
	return ok && isMediaType(rest)
}

// fileTypeIRI reports whether iri is an EU file type's IRI (…/authority/file-type/CSV) that the
// MQA's vocabularies know.
func fileTypeIRI(iri string) bool {
	v := strings.Replace(iri, "https://", "http://", 1)
	code, ok := strings.CutPrefix(v, dcatap.EUAuthority+"file-type/")
	return ok && code != "" && fileTypeOf(code) == code
}

// euAccessRight reports whether iri is a code of the EU access-right table
// (…/authority/access-right/PUBLIC).
func euAccessRight(iri string) bool {
	v := strings.Replace(iri, "https://", "http://", 1)
	code, ok := strings.CutPrefix(v, dcatap.EUAuthority+"access-right/")
	return ok && vocab().accessRights[code]
}
