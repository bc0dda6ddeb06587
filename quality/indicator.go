package quality

// Dimension is one of the MQA's five dimensions, named by its piveau IRI in prefixed form
// (pv: is https://piveau.eu/ns/voc#).
type Dimension string

// The dimensions, in the MQA's order.
const (
	Findability      Dimension = "pv:findability"
	Accessibility    Dimension = "pv:accessibility"
	Interoperability Dimension = "pv:interoperability"
	Reusability      Dimension = "pv:reusability"
	Contextuality    Dimension = "pv:contextuality"
)

// Dimensions lists the dimensions in the MQA's order.
var Dimensions = []Dimension{Findability, Accessibility, Interoperability, Reusability, Contextuality}

// Metric is an MQA indicator, named by piveau's DQV metric (edp-dqv-vocabulary.ttl) in
// prefixed form, e.g. "pv:keywordAvailability".
type Metric string

// The metrics the score is made of.
const (
	KeywordAvailability                Metric = "pv:keywordAvailability"
	CategoryAvailability               Metric = "pv:categoryAvailability"
	SpatialAvailability                Metric = "pv:spatialAvailability"
	TemporalAvailability               Metric = "pv:temporalAvailability"
	AccessURLStatusCode                Metric = "pv:accessUrlStatusCode"
	DownloadURLAvailability            Metric = "pv:downloadUrlAvailability"
	DownloadURLStatusCode              Metric = "pv:downloadUrlStatusCode"
	FormatAvailability                 Metric = "pv:formatAvailability"
	MediaTypeAvailability              Metric = "pv:mediaTypeAvailability"
	FormatMediaTypeVocabularyAlignment Metric = "pv:formatMediaTypeVocabularyAlignment"
	FormatMediaTypeNonProprietary      Metric = "pv:formatMediaTypeNonProprietary"
	FormatMediaTypeMachineReadable     Metric = "pv:formatMediaTypeMachineInterpretable"
	DCATAPCompliance                   Metric = "pv:dcatApCompliance"
	LicenceAvailability                Metric = "pv:licenceAvailability"
	KnownLicence                       Metric = "pv:knownLicence"
	AccessRightsAvailability           Metric = "pv:accessRightsAvailability"
	AccessRightsVocabularyAlignment    Metric = "pv:accessRightsVocabularyAlignment"
	ContactPointAvailability           Metric = "pv:contactPointAvailability"
	PublisherAvailability              Metric = "pv:publisherAvailability"
	RightsAvailability                 Metric = "pv:rightsAvailability"
	ByteSizeAvailability               Metric = "pv:byteSizeAvailability"
	DateIssuedAvailability             Metric = "pv:dateIssuedAvailability"
	DateModifiedAvailability           Metric = "pv:dateModifiedAvailability"
)

// MaxPoints is the most a record can score: the sum of every indicator's points.
const MaxPoints = 405

// Indicator is one row of the MQA's table: the metric, its dimension, the points it is worth and
// whether it is judged per distribution (points times the share of distributions that meet it)
// or once for the dataset.
type Indicator struct {
	Metric          Metric
	Dimension       Dimension
	Points          int
	PerDistribution bool
}

// Indicators is the MQA's table (reference/mqa/README.md), in its order; the points add up to
// MaxPoints. dateIssued and dateModified are per distribution with the dataset's own date
// counting for all of them (docs/quality.md).
var Indicators = []Indicator{
	{KeywordAvailability, Findability, 30, false},
	{CategoryAvailability, Findability, 30, false},
	{SpatialAvailability, Findability, 20, false},
	{TemporalAvailability, Findability, 20, false},
	{AccessURLStatusCode, Accessibility, 50, true},
	{DownloadURLAvailability, Accessibility, 20, true},
	{DownloadURLStatusCode, Accessibility, 30, true},
	{FormatAvailability, Interoperability, 20, true},
	{MediaTypeAvailability, Interoperability, 10, true},
	{FormatMediaTypeVocabularyAlignment, Interoperability, 10, true},
	{FormatMediaTypeNonProprietary, Interoperability, 20, true},
	{FormatMediaTypeMachineReadable, Interoperability, 20, true},
	{DCATAPCompliance, Interoperability, 30, false},
	{LicenceAvailability, Reusability, 20, true},
	{KnownLicence, Reusability, 10, true},
	{AccessRightsAvailability, Reusability, 10, false},
	{AccessRightsVocabularyAlignment, Reusability, 5, false},
	{ContactPointAvailability, Reusability, 20, false},
	{PublisherAvailability, Reusability, 10, false},
	{RightsAvailability, Contextuality, 5, true},
	{ByteSizeAvailability, Contextuality, 5, true},
	{DateIssuedAvailability, Contextuality, 5, true},
	{DateModifiedAvailability, Contextuality, 5, true},
}
