package dcatap

// The vocabulary of DCAT-AP that Harvester reads (stages/transform/dcatap: DCAT-AP to DCAT-US)
// and writes (feeds/dcatapfeed: DCAT-US to DCAT-AP), in one place: the namespaces, the classes
// and properties both use, and the EU authority tables both map.

// Namespaces.
const (
	NSDCAT  = "http://www.w3.org/ns/dcat#"
	NSDCT   = "http://purl.org/dc/terms/"
	NSFOAF  = "http://xmlns.com/foaf/0.1/"
	NSSKOS  = "http://www.w3.org/2004/02/skos/core#"
	NSVCard = "http://www.w3.org/2006/vcard/ns#"
	NSLOCN  = "http://www.w3.org/ns/locn#"
	NSRDFS  = "http://www.w3.org/2000/01/rdf-schema#"
	NSXSD   = "http://www.w3.org/2001/XMLSchema#"
	NSGSP   = "http://www.opengis.net/ont/geosparql#"
	// NSDQV is the W3C Data Quality Vocabulary, in which the feed publishes each dataset's MQA
	// score (dqv:hasQualityMeasurement).
	NSDQV = "http://www.w3.org/ns/dqv#"
	// NSPV is piveau's vocabulary: the MQA's dimensions and metrics (pv:keywordAvailability, …,
	// reference/mqa/edp-dqv-vocabulary.ttl).
	NSPV = "https://piveau.eu/ns/voc#"

	// EUAuthority is the Publications Office's authority tables (access rights, frequencies,
	// languages, file types): EUAuthority + "<table>/<CODE>".
	EUAuthority = "http://publications.europa.eu/resource/authority/"
	// IANAMediaTypes is IANA's media type registry: IANAMediaTypes + "text/csv".
	IANAMediaTypes = "http://www.iana.org/assignments/media-types/"
)

// Classes and properties (DCAT 3, DCAT-AP 3.0.0, Dublin Core terms, FOAF, SKOS, vCard 4, RDFS).
const (
	DCATCatalog       = NSDCAT + "Catalog"
	DCATDataset       = NSDCAT + "Dataset"
	DCATDatasetSeries = NSDCAT + "DatasetSeries"
	DCATDatasetProp   = NSDCAT + "dataset"
	DCATInSeries      = NSDCAT + "inSeries"
	DCATDistribution  = NSDCAT + "distribution"
	DCATKeyword       = NSDCAT + "keyword"
	DCATTheme         = NSDCAT + "theme"
	DCATContactPoint  = NSDCAT + "contactPoint"
	DCATLandingPage   = NSDCAT + "landingPage"
	DCATAccessURL     = NSDCAT + "accessURL"
	DCATDownloadURL   = NSDCAT + "downloadURL"
	DCATMediaType     = NSDCAT + "mediaType"
	DCATBbox          = NSDCAT + "bbox"
	DCATStartDate     = NSDCAT + "startDate"
	DCATEndDate       = NSDCAT + "endDate"
	DCATByteSize      = NSDCAT + "byteSize"

	DCTTitle        = NSDCT + "title"
	DCTDescription  = NSDCT + "description"
	DCTPublisher    = NSDCT + "publisher"
	DCTIssued       = NSDCT + "issued"
	DCTModified     = NSDCT + "modified"
	DCTSpatial      = NSDCT + "spatial"
	DCTTemporal     = NSDCT + "temporal"
	DCTLicense      = NSDCT + "license"
	DCTAccessRights = NSDCT + "accessRights"
	DCTLanguage     = NSDCT + "language"
	DCTFormat       = NSDCT + "format"
	DCTAccrual      = NSDCT + "accrualPeriodicity"
	DCTRights       = NSDCT + "rights"

	FOAFName      = NSFOAF + "name"
	FOAFPage      = NSFOAF + "page"
	SKOSPrefLabel = NSSKOS + "prefLabel"
	RDFSLabel     = NSRDFS + "label"
	VCardFN       = NSVCard + "fn"
	VCardHasEmail = NSVCard + "hasEmail"

	XSDDate       = NSXSD + "date"
	XSDDateTime   = NSXSD + "dateTime"
	XSDGYear      = NSXSD + "gYear"
	XSDGYearMonth = NSXSD + "gYearMonth"
	GSPWKTLiteral = NSGSP + "wktLiteral"
)

// EUAccessRights maps the codes of the EU access-right table (DCAT-AP's controlled vocabulary
// for dct:accessRights) to DCAT-US accessLevel, one to one.
var EUAccessRights = map[string]string{
	"PUBLIC":     "public",
	"RESTRICTED": "restricted public",
	"NON_PUBLIC": "non-public",
}

// EULanguages maps the codes of the EU language table (ISO 639-3 based, upper case) to RFC
// 5646 (BCP 47) primary tags, one to one, for the languages of Europe and a few more.
var EULanguages = map[string]string{
	"BUL": "bg", "CES": "cs", "DAN": "da", "DEU": "de", "ELL": "el", "ENG": "en", "EST": "et",
	"FIN": "fi", "FRA": "fr", "GLE": "ga", "HRV": "hr", "HUN": "hu", "ITA": "it", "LAV": "lv",
	"LIT": "lt", "MLT": "mt", "NLD": "nl", "POL": "pl", "POR": "pt", "RON": "ro", "SLK": "sk",
	"SLV": "sl", "SPA": "es", "SWE": "sv", "NOR": "no", "NOB": "nb", "NNO": "nn", "ISL": "is",
	"CAT": "ca", "EUS": "eu", "GLG": "gl", "LTZ": "lb", "SME": "se", "RUS": "ru", "UKR": "uk",
	"TUR": "tr", "SRP": "sr", "BOS": "bs", "MKD": "mk", "SQI": "sq", "CYM": "cy", "GLA": "gd",
	"FAO": "fo", "KAL": "kl", "BEL": "be", "ARA": "ar", "ZHO": "zh", "JPN": "ja", "HEB": "he",
}

// EUFrequencies pairs the codes of the EU frequency table (dct:accrualPeriodicity) with DCAT-US
// accrualPeriodicity (an ISO 8601 repeating duration, or "irregular"). Where two codes have one
// duration (12HRS and DAILY_2), the first is the one written for it. Codes without an ISO 8601
// equivalent (NEVER, UNKNOWN, OTHER, AS_NEEDED, NOT_PLANNED, PROVISIONAL, UPDATE_CONT) are not
// listed.
var EUFrequencies = []struct{ Code, Period string }{
	{"1MIN", "R/PT1M"}, {"5MIN", "R/PT5M"}, {"10MIN", "R/PT10M"}, {"15MIN", "R/PT15M"},
	{"30MIN", "R/PT30M"}, {"HOURLY", "R/PT1H"}, {"BIHOURLY", "R/PT2H"}, {"TRIHOURLY", "R/PT3H"},
	{"12HRS", "R/PT12H"}, {"CONT", "R/PT1S"}, {"DAILY", "R/P1D"}, {"DAILY_2", "R/PT12H"},
	{"WEEKLY", "R/P1W"}, {"WEEKLY_2", "R/P3.5D"}, {"WEEKLY_3", "R/P2D"}, {"BIWEEKLY", "R/P2W"},
	{"MONTHLY", "R/P1M"}, {"MONTHLY_2", "R/P0.5M"}, {"MONTHLY_3", "R/P10D"}, {"BIMONTHLY", "R/P2M"},
	{"QUARTERLY", "R/P3M"}, {"ANNUAL", "R/P1Y"}, {"ANNUAL_2", "R/P6M"}, {"ANNUAL_3", "R/P4M"},
	{"BIENNIAL", "R/P2Y"}, {"TRIENNIAL", "R/P3Y"}, {"QUADRENNIAL", "R/P4Y"},
	{"QUINQUENNIAL", "R/P5Y"}, {"DECENNIAL", "R/P10Y"}, {"BIDECENNIAL", "R/P20Y"},
	{"TRIDECENNIAL", "R/P30Y"}, {"IRREG", "irregular"},
}
