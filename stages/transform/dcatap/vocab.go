package dcatap

import "strings"

// Namespaces and properties read from the record graph (DCAT 2/3, DCAT-AP 2.1.1/3.0.0,
// Dublin Core terms, vCard 4, FOAF, SKOS, LOCN, W3C Time, schema.org).
const (
	nsDCAT   = "http://www.w3.org/ns/dcat#"
	nsDCT    = "http://purl.org/dc/terms/"
	nsFOAF   = "http://xmlns.com/foaf/0.1/"
	nsSKOS   = "http://www.w3.org/2004/02/skos/core#"
	nsVCard  = "http://www.w3.org/2006/vcard/ns#"
	nsLOCN   = "http://www.w3.org/ns/locn#"
	nsTime   = "http://www.w3.org/2006/time#"
	nsRDFS   = "http://www.w3.org/2000/01/rdf-schema#"
	nsRDF    = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsXSD    = "http://www.w3.org/2001/XMLSchema#"
	nsGSP    = "http://www.opengis.net/ont/geosparql#"
	nsSchema = "http://schema.org/"

	pType = nsRDF + "type"

	dcatDataset        = nsDCAT + "Dataset"
	dcatDatasetSeries  = nsDCAT + "DatasetSeries"
	dcatDistribution   = nsDCAT + "distribution"
	dcatKeyword        = nsDCAT + "keyword"
	dcatTheme          = nsDCAT + "theme"
	dcatContactPoint   = nsDCAT + "contactPoint"
	dcatLandingPage    = nsDCAT + "landingPage"
	dcatAccessURL      = nsDCAT + "accessURL"
	dcatDownloadURL    = nsDCAT + "downloadURL"
	dcatMediaType      = nsDCAT + "mediaType"
	dcatBbox           = nsDCAT + "bbox"
	dcatCentroid       = nsDCAT + "centroid"
	dcatStartDate      = nsDCAT + "startDate"
	dcatEndDate        = nsDCAT + "endDate"
	dcatInSeries       = nsDCAT + "inSeries"
	dctTitle           = nsDCT + "title"
	dctDescription     = nsDCT + "description"
	dctPublisher       = nsDCT + "publisher"
	dctIssued          = nsDCT + "issued"
	dctModified        = nsDCT + "modified"
	dctSpatial         = nsDCT + "spatial"
	dctTemporal        = nsDCT + "temporal"
	dctLicense         = nsDCT + "license"
	dctAccessRights    = nsDCT + "accessRights"
	dctLanguage        = nsDCT + "language"
	dctFormat          = nsDCT + "format"
	dctAccrual         = nsDCT + "accrualPeriodicity"
	foafName           = nsFOAF + "name"
	foafPage           = nsFOAF + "page"
	skosPrefLabel      = nsSKOS + "prefLabel"
	rdfsLabel          = nsRDFS + "label"
	rdfValue           = nsRDF + "value"
	vcardFN            = nsVCard + "fn"
	vcardOrgName       = nsVCard + "organization-name"
	vcardHasOrgName    = nsVCard + "hasOrganizationName" // DCAT-AP-NO, FDK
	vcardHasEmail      = nsVCard + "hasEmail"
	vcardHasValue      = nsVCard + "hasValue"
	locnGeometry       = nsLOCN + "geometry"
	timeHasBeginning   = nsTime + "hasBeginning"
	timeHasEnd         = nsTime + "hasEnd"
	timeInXSDDate      = nsTime + "inXSDDate"
	timeInXSDDateTime  = nsTime + "inXSDDateTime"
	timeInXSDDateTimeS = nsTime + "inXSDDateTimeStamp"
	schemaStartDate    = nsSchema + "startDate"
	schemaEndDate      = nsSchema + "endDate"

	xsdDate       = nsXSD + "date"
	xsdDateTime   = nsXSD + "dateTime"
	xsdDateTimeS  = nsXSD + "dateTimeStamp"
	xsdGYear      = nsXSD + "gYear"
	xsdGYearMonth = nsXSD + "gYearMonth"
	gspWKT        = nsGSP + "wktLiteral"
	gspGeoJSON    = nsGSP + "geoJSONLiteral"
	// skolemPath marks a skolem IRI (RDF 1.1 §3.5): a blank node renamed by EXTRACT, not a
	// name the publisher gave, so never written out as a license, landing page or place.
	// fdkSkolemPath is FDK's own (its stored graphs use it).
	skolemPath    = "/.well-known/genid/"
	fdkSkolemPath = "/.well-known/skolem/"

	euAuthority   = "http://publications.europa.eu/resource/authority/"
	ianaMediaType = "://www.iana.org/assignments/media-types/"
)

// accessLevels maps the EU access-right vocabulary (DCAT-AP's controlled vocabulary for
// dct:accessRights) to DCAT-US accessLevel.
var accessLevels = map[string]string{
	"PUBLIC":     "public",
	"RESTRICTED": "restricted public",
	"NON_PUBLIC": "non-public",
}

// languageTags maps EU language authority codes (ISO 639-3 based, upper case) to RFC 5646
// (BCP 47) tags for the languages of Europe and a few more; a code not listed is written
// lower-cased, which is itself a valid ISO 639 tag.
var languageTags = map[string]string{
	"BUL": "bg", "CES": "cs", "DAN": "da", "DEU": "de", "ELL": "el", "ENG": "en", "EST": "et",
	"FIN": "fi", "FRA": "fr", "GLE": "ga", "HRV": "hr", "HUN": "hu", "ITA": "it", "LAV": "lv",
	"LIT": "lt", "MLT": "mt", "NLD": "nl", "POL": "pl", "POR": "pt", "RON": "ro", "SLK": "sk",
	"SLV": "sl", "SPA": "es", "SWE": "sv", "NOR": "no", "NOB": "nb", "NNO": "nn", "ISL": "is",
	"CAT": "ca", "EUS": "eu", "GLG": "gl", "LTZ": "lb", "SME": "se", "RUS": "ru", "UKR": "uk",
	"TUR": "tr", "SRP": "sr", "BOS": "bs", "MKD": "mk", "SQI": "sq", "CYM": "cy", "GLA": "gd",
	"FAO": "fo", "KAL": "kl", "BEL": "be", "ARA": "ar", "ZHO": "zh", "JPN": "ja", "HEB": "he",
}

// frequencies maps EU frequency codes (dct:accrualPeriodicity, DCAT-AP) and Dublin Core
// Collection Description frequency names (DCAT-AP 1.x) to DCAT-US accrualPeriodicity (an ISO
// 8601 repeating duration, or "irregular"). Codes without an ISO 8601 equivalent (NEVER,
// UNKNOWN, OTHER, AS_NEEDED, NOT_PLANNED, PROVISIONAL, UPDATE_CONT) are not listed.
var frequencies = map[string]string{
	"1MIN": "R/PT1M", "5MIN": "R/PT5M", "10MIN": "R/PT10M", "15MIN": "R/PT15M", "30MIN": "R/PT30M",
	"HOURLY": "R/PT1H", "BIHOURLY": "R/PT2H", "TRIHOURLY": "R/PT3H", "12HRS": "R/PT12H",
	"CONT": "R/PT1S", "DAILY": "R/P1D", "DAILY_2": "R/PT12H", "WEEKLY": "R/P1W", "WEEKLY_2": "R/P3.5D",
	"WEEKLY_3": "R/P2D", "BIWEEKLY": "R/P2W", "MONTHLY": "R/P1M", "MONTHLY_2": "R/P0.5M",
	"MONTHLY_3": "R/P10D", "BIMONTHLY": "R/P2M", "QUARTERLY": "R/P3M", "ANNUAL": "R/P1Y",
	"ANNUAL_2": "R/P6M", "ANNUAL_3": "R/P4M", "BIENNIAL": "R/P2Y", "TRIENNIAL": "R/P3Y",
	"QUADRENNIAL": "R/P4Y", "QUINQUENNIAL": "R/P5Y", "DECENNIAL": "R/P10Y", "BIDECENNIAL": "R/P20Y",
	"TRIDECENNIAL": "R/P30Y", "IRREG": "irregular",
	// http://purl.org/cld/freq/
	"daily": "R/P1D", "weekly": "R/P1W", "fortnightly": "R/P2W", "biweekly": "R/P2W",
	"semiweekly": "R/P3.5D", "threeTimesAWeek": "R/P2D", "monthly": "R/P1M", "bimonthly": "R/P2M",
	"semimonthly": "R/P0.5M", "threeTimesAMonth": "R/P10D", "quarterly": "R/P3M",
	"triannual": "R/P4M", "threeTimesAYear": "R/P4M", "semiannual": "R/P6M", "annual": "R/P1Y",
	"biennial": "R/P2Y", "triennial": "R/P3Y", "decennial": "R/P10Y", "hourly": "R/PT1H", "continuous": "R/PT1S", "irregular": "irregular",
}

// fileTypeMediaTypes gives the IANA media type of common EU file types, used for a
// distribution's mediaType when it has no dcat:mediaType (DCAT-US requires one beside a
// downloadURL).
var fileTypeMediaTypes = map[string]string{
	"CSV": "text/csv", "JSON": "application/json", "XML": "application/xml", "HTML": "text/html",
	"PDF": "application/pdf", "ZIP": "application/zip", "XLSX": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	"XLS": "application/vnd.ms-excel", "ODS": "application/vnd.oasis.opendocument.spreadsheet",
	"TXT": "text/plain", "RDF_XML": "application/rdf+xml", "RDF_TURTLE": "text/turtle",
	"JSON_LD": "application/ld+json", "GEOJSON": "application/geo+json", "KML": "application/vnd.google-earth.kml+xml",
	"KMZ": "application/vnd.google-earth.kmz", "SHP": "application/x-shapefile", "GML": "application/gml+xml",
	"TSV": "text/tab-separated-values", "PARQUET": "application/vnd.apache.parquet",
	"GPKG": "application/geopackage+sqlite3", "TIFF": "image/tiff", "PNG": "image/png", "JPEG": "image/jpeg",
	"N_TRIPLES": "application/n-triples", "SPARQLQ": "application/sparql-query",
}

// lastSegment returns what follows the last '/' or '#' of an IRI.
func lastSegment(iri string) string {
	return iri[strings.LastIndexAny(iri, "/#")+1:]
}

// euCode returns the code of an EU authority-table IRI of table (…/authority/<table>/<CODE>),
// or "" when iri is not one. Both http and https are accepted.
func euCode(iri, table string) string {
	rest, ok := strings.CutPrefix(strings.Replace(iri, "https://", "http://", 1), euAuthority+table+"/")
	if !ok || rest == "" || strings.ContainsAny(rest, "/#") {
		return ""
	}
	return rest
}
