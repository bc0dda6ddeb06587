package quality

// verdict is one distribution's result on one indicator.
type verdict int

const (
	failed verdict = iota
	met
	unknown // a status-code indicator whose URL has no check result: scores as failed
)

// judge decides the indicators of one DCAT-US record.
type judge struct {
	r  record
	in Input
}

// dataset decides a dataset-level indicator.
func (j judge) dataset(m Metric) bool {
	r := j.r
	switch m {
	case KeywordAvailability:
		return r.keyword
	case CategoryAvailability:
		return r.theme
	case SpatialAvailability:
		return r.spatial
	case TemporalAvailability:
		return r.temporal
	case DCATAPCompliance:
		return !j.in.Findings
	case AccessRightsAvailability:
		return r.accessRights != ""
	case AccessRightsVocabularyAlignment:
		return accessRightOf(r.accessRights) != ""
	case ContactPointAvailability:
		return r.contactPoint
	case PublisherAvailability:
		return r.publisher
	case DateIssuedAvailability: // when datasetWide
		return r.issued
	case DateModifiedAvailability:
		return r.modified
	}
	return false
}

// datasetWide reports whether a per-distribution indicator is met for every distribution by
// the dataset itself: the dataset's issued or modified date (the MQA judges dates on the
// dataset or its distributions), which then scores in full even without a distribution.
func (j judge) datasetWide(m Metric) bool {
	return m == DateIssuedAvailability && j.r.issued || m == DateModifiedAvailability && j.r.modified
}

func (j judge) distributions() int { return len(j.r.distributions) }

// distribution decides a per-distribution indicator for the i-th distribution.
func (j judge) distribution(m Metric, i int) verdict {
	dist := j.r.distributions[i]
	switch m {
	case AccessURLStatusCode: // a distribution with only a downloadURL is judged by it
		u := text(dist["accessURL"])
		if u == "" {
			u = text(dist["downloadURL"])
		}
		return j.link(u)
	case DownloadURLAvailability:
		return is(text(dist["downloadURL"]) != "")
	case DownloadURLStatusCode:
		return j.link(text(dist["downloadURL"]))
	case FormatAvailability:
		return is(text(dist["format"]) != "")
	case MediaTypeAvailability:
		return is(text(dist["mediaType"]) != "")
	case FormatMediaTypeVocabularyAlignment:
		return is(aligned(text(dist["format"]), text(dist["mediaType"])))
	case FormatMediaTypeNonProprietary:
		return is(anyFileType(dist, func(f fileType) bool { return f.nonProprietary }))
	case FormatMediaTypeMachineReadable:
		return is(anyFileType(dist, func(f fileType) bool { return f.machineReadable }))
	case LicenceAvailability:
		return is(j.licence(dist) != "")
	case KnownLicence:
		return is(knownLicence(j.licence(dist)) != "")
	case RightsAvailability:
		return is(present(dist["rights"]) || present(j.r.rights))
	case ByteSizeAvailability:
		return is(present(dist["byteSize"]))
	case DateIssuedAvailability:
		return is(present(dist["issued"]))
	case DateModifiedAvailability:
		return is(present(dist["modified"]))
	}
	return failed
}

func (j judge) link(url string) verdict { return linkVerdict(j.in.Links, url) }

// linkVerdict is the verdict of a status-code indicator on url: met when its check in links
// found it OK, failed when broken or when there is no URL, unknown when it has no result yet.
func linkVerdict(links map[string]LinkResult, url string) verdict {
	if url == "" {
		return failed
	}
	switch links[url].Class {
	case LinkOK:
		return met
	case LinkBroken:
		return failed
	}
	return unknown
}

// licence is a distribution's licence (DCAT-US 3.0), else the dataset's (1.1), as text.
func (j judge) licence(dist map[string]any) string {
	if l := text(dist["license"]); l != "" {
		return l
	}
	return text(j.r.license)
}

// aligned reports whether a distribution's format and mediaType are from a vocabulary: at least
// one is given, and each one given is (mediaType an IANA media type; format an EU file type or
// an IANA media type).
func aligned(format, mediaType string) bool {
	if format == "" && mediaType == "" {
		return false
	}
	if mediaType != "" && !isMediaType(mediaType) {
		return false
	}
	return format == "" || fileTypeOf(format) != "" || isMediaType(format)
}

// anyFileType reports whether the EU file type of the distribution's format or of its mediaType
// has property ok in the MQA's format vocabularies.
func anyFileType(dist map[string]any, ok func(fileType) bool) bool {
	for _, k := range []string{"format", "mediaType"} {
		if f, found := vocab().fileTypes[fileTypeOf(text(dist[k]))]; found && ok(f) {
			return true
		}
	}
	return false
}

func is(b bool) verdict {
	if b {
		return met
	}
	return failed
}
