package dcatapfeed

import "github.com/harvester-dev/harvester/rdf"

// Namespaces of the served RDF, and the prefixes every serialization declares.
const (
	nsDCAT  = "http://www.w3.org/ns/dcat#"
	nsDCT   = "http://purl.org/dc/terms/"
	nsFOAF  = "http://xmlns.com/foaf/0.1/"
	nsSKOS  = "http://www.w3.org/2004/02/skos/core#"
	nsVCard = "http://www.w3.org/2006/vcard/ns#"
	nsRDFS  = "http://www.w3.org/2000/01/rdf-schema#"
	nsXSD   = "http://www.w3.org/2001/XMLSchema#"
	nsHydra = "http://www.w3.org/ns/hydra/core#"
	nsProv  = "http://www.w3.org/ns/prov#"
	nsLOCN  = "http://www.w3.org/ns/locn#"
	nsGSP   = "http://www.opengis.net/ont/geosparql#"

	euAuthority = "http://publications.europa.eu/resource/authority/"
	ianaMedia   = "http://www.iana.org/assignments/media-types/"
)

// Prefixes are the namespace prefixes the feeds declare.
var Prefixes = map[string]string{
	"dcat": nsDCAT, "dct": nsDCT, "foaf": nsFOAF, "skos": nsSKOS, "vcard": nsVCard, "rdfs": nsRDFS,
	"xsd": nsXSD, "hydra": nsHydra, "prov": nsProv, "locn": nsLOCN, "gsp": nsGSP,
}

var (
	rdfType = rdf.IRI(rdf.RDFType)

	dcatCatalog       = rdf.IRI(nsDCAT + "Catalog")
	dcatCatalogRecord = rdf.IRI(nsDCAT + "CatalogRecord")
	dcatDataset       = rdf.IRI(nsDCAT + "Dataset")
	dcatDatasetSeries = rdf.IRI(nsDCAT + "DatasetSeries")
	dcatDataService   = rdf.IRI(nsDCAT + "DataService")
	dcatDistribution  = rdf.IRI(nsDCAT + "Distribution")
	dcatResource      = rdf.IRI(nsDCAT + "Resource")

	dcatDatasetP      = rdf.IRI(nsDCAT + "dataset")
	dcatServiceP      = rdf.IRI(nsDCAT + "service")
	dcatRecordP       = rdf.IRI(nsDCAT + "record")
	dcatDistributionP = rdf.IRI(nsDCAT + "distribution")
	dcatKeyword       = rdf.IRI(nsDCAT + "keyword")
	dcatTheme         = rdf.IRI(nsDCAT + "theme")
	dcatContactPoint  = rdf.IRI(nsDCAT + "contactPoint")
	dcatLandingPage   = rdf.IRI(nsDCAT + "landingPage")
	dcatAccessURL     = rdf.IRI(nsDCAT + "accessURL")
	dcatDownloadURL   = rdf.IRI(nsDCAT + "downloadURL")
	dcatMediaType     = rdf.IRI(nsDCAT + "mediaType")
	dcatBbox          = rdf.IRI(nsDCAT + "bbox")
	dcatStartDate     = rdf.IRI(nsDCAT + "startDate")
	dcatEndDate       = rdf.IRI(nsDCAT + "endDate")
	dcatEndpointURL   = rdf.IRI(nsDCAT + "endpointURL")

	dctTitle        = rdf.IRI(nsDCT + "title")
	dctDescription  = rdf.IRI(nsDCT + "description")
	dctIdentifier   = rdf.IRI(nsDCT + "identifier")
	dctPublisher    = rdf.IRI(nsDCT + "publisher")
	dctIssued       = rdf.IRI(nsDCT + "issued")
	dctModified     = rdf.IRI(nsDCT + "modified")
	dctSpatial      = rdf.IRI(nsDCT + "spatial")
	dctTemporal     = rdf.IRI(nsDCT + "temporal")
	dctLicense      = rdf.IRI(nsDCT + "license")
	dctAccessRights = rdf.IRI(nsDCT + "accessRights")
	dctRights       = rdf.IRI(nsDCT + "rights")
	dctLanguage     = rdf.IRI(nsDCT + "language")
	dctFormat       = rdf.IRI(nsDCT + "format")
	dctAccrual      = rdf.IRI(nsDCT + "accrualPeriodicity")
	dctConformsTo   = rdf.IRI(nsDCT + "conformsTo")
	dctIsPartOf     = rdf.IRI(nsDCT + "isPartOf")

	dctLicenseDocument  = rdf.IRI(nsDCT + "LicenseDocument")
	dctRightsStatement  = rdf.IRI(nsDCT + "RightsStatement")
	dctLocation         = rdf.IRI(nsDCT + "Location")
	dctPeriodOfTime     = rdf.IRI(nsDCT + "PeriodOfTime")
	dctLinguisticSystem = rdf.IRI(nsDCT + "LinguisticSystem")
	dctFrequency        = rdf.IRI(nsDCT + "Frequency")
	dctMediaType        = rdf.IRI(nsDCT + "MediaType")
	dctMediaTypeOrExt   = rdf.IRI(nsDCT + "MediaTypeOrExtent")
	dctStandard         = rdf.IRI(nsDCT + "Standard")

	foafAgent        = rdf.IRI(nsFOAF + "Agent")
	foafOrganization = rdf.IRI(nsFOAF + "Organization")
	foafDocument     = rdf.IRI(nsFOAF + "Document")
	foafName         = rdf.IRI(nsFOAF + "name")
	foafPage         = rdf.IRI(nsFOAF + "page")
	foafPrimaryTopic = rdf.IRI(nsFOAF + "primaryTopic")
	foafHomepage     = rdf.IRI(nsFOAF + "homepage")

	vcardKind       = rdf.IRI(nsVCard + "Kind")
	vcardFN         = rdf.IRI(nsVCard + "fn")
	vcardHasEmail   = rdf.IRI(nsVCard + "hasEmail")
	skosConcept     = rdf.IRI(nsSKOS + "Concept")
	skosPrefLabel   = rdf.IRI(nsSKOS + "prefLabel")
	rdfsLabel       = rdf.IRI(nsRDFS + "label")
	rdfsSubClassOf  = rdf.IRI(nsRDFS + "subClassOf")
	rdfsResource    = rdf.IRI(nsRDFS + "Resource")
	provDerivedFrom = rdf.IRI(nsProv + "wasDerivedFrom")

	hydraCollection  = rdf.IRI(nsHydra + "Collection")
	hydraView        = rdf.IRI(nsHydra + "PartialCollectionView")
	hydraViewP       = rdf.IRI(nsHydra + "view")
	hydraMember      = rdf.IRI(nsHydra + "member")
	hydraTotalItems  = rdf.IRI(nsHydra + "totalItems")
	hydraFirst       = rdf.IRI(nsHydra + "first")
	hydraLast        = rdf.IRI(nsHydra + "last")
	hydraNext        = rdf.IRI(nsHydra + "next")
	hydraPrevious    = rdf.IRI(nsHydra + "previous")
	hydraItemsOnPage = rdf.IRI(nsHydra + "itemsPerPage")

	xsdDate       = nsXSD + "date"
	xsdDateTime   = nsXSD + "dateTime"
	xsdGYear      = nsXSD + "gYear"
	xsdGYearMonth = nsXSD + "gYearMonth"
	xsdInteger    = nsXSD + "integer"
	gspWKT        = nsGSP + "wktLiteral"
)

// accessRights maps DCAT-US accessLevel to the EU access-right authority table (the reverse of
// stages/transform/dcatap's accessLevels).
var accessRights = map[string]string{
	"public":            euAuthority + "access-right/PUBLIC",
	"restricted public": euAuthority + "access-right/RESTRICTED",
	"non-public":        euAuthority + "access-right/NON_PUBLIC",
}

// frequencies maps DCAT-US accrualPeriodicity (ISO 8601 repeating durations) to the EU
// frequency authority table, the reverse of stages/transform/dcatap's table where it is one to
// one.
var frequencies = map[string]string{
	"R/PT1M": "1MIN", "R/PT5M": "5MIN", "R/PT10M": "10MIN", "R/PT15M": "15MIN", "R/PT30M": "30MIN",
	"R/PT1H": "HOURLY", "R/PT2H": "BIHOURLY", "R/PT3H": "TRIHOURLY", "R/PT12H": "12HRS", "R/PT1S": "CONT",
	"R/P1D": "DAILY", "R/P1W": "WEEKLY", "R/P3.5D": "WEEKLY_2", "R/P2D": "WEEKLY_3", "R/P2W": "BIWEEKLY",
	"R/P1M": "MONTHLY", "R/P0.5M": "MONTHLY_2", "R/P10D": "MONTHLY_3", "R/P2M": "BIMONTHLY",
	"R/P3M": "QUARTERLY", "R/P1Y": "ANNUAL", "R/P6M": "ANNUAL_2", "R/P4M": "ANNUAL_3", "R/P2Y": "BIENNIAL",
	"R/P3Y": "TRIENNIAL", "R/P4Y": "QUADRENNIAL", "R/P5Y": "QUINQUENNIAL", "R/P10Y": "DECENNIAL",
	"R/P20Y": "BIDECENNIAL", "R/P30Y": "TRIDECENNIAL", "irregular": "IRREG",
}

// languages maps BCP 47 primary tags to the EU language authority table (the reverse of
// stages/transform/dcatap's languageTags); another two- or three-letter tag goes to the Library
// of Congress's ISO 639-1 or 639-2 IRI, which TRANSFORM reads back.
var languages = map[string]string{
	"bg": "BUL", "cs": "CES", "da": "DAN", "de": "DEU", "el": "ELL", "en": "ENG", "et": "EST",
	"fi": "FIN", "fr": "FRA", "ga": "GLE", "hr": "HRV", "hu": "HUN", "it": "ITA", "lv": "LAV",
	"lt": "LIT", "mt": "MLT", "nl": "NLD", "pl": "POL", "pt": "POR", "ro": "RON", "sk": "SLK",
	"sl": "SLV", "es": "SPA", "sv": "SWE", "no": "NOR", "nb": "NOB", "nn": "NNO", "is": "ISL",
	"ca": "CAT", "eu": "EUS", "gl": "GLG", "lb": "LTZ", "se": "SME", "ru": "RUS", "uk": "UKR",
	"tr": "TUR", "sr": "SRP", "bs": "BOS", "mk": "MKD", "sq": "SQI", "cy": "CYM", "gd": "GLA",
	"fo": "FAO", "kl": "KAL", "be": "BEL", "ar": "ARA", "zh": "ZHO", "ja": "JPN", "he": "HEB",
}
