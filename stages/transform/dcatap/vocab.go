package dcatap

import (
	"maps"
	"strings"

	vocab "github.com/harvester-dev/harvester/dcatap"
)

// Namespaces and properties read from the record graph (DCAT 2/3, DCAT-AP 2.1.1/3.0.0,
// Dublin Core terms, vCard 4, FOAF, SKOS, LOCN, W3C Time, schema.org).
const (
	nsDCAT   = vocab.NSDCAT
	nsDCT    = vocab.NSDCT
	nsFOAF   = vocab.NSFOAF
	nsSKOS   = vocab.NSSKOS
	nsVCard  = vocab.NSVCard
	nsLOCN   = vocab.NSLOCN
	nsTime   = "http://www.w3.org/2006/time#"
	nsRDFS   = vocab.NSRDFS
	nsRDF    = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsXSD    = vocab.NSXSD
	nsGSP    = vocab.NSGSP
	nsSchema = "http://schema.org/"

	dcatDataset        = vocab.DCATDataset
	dcatDatasetSeries  = vocab.DCATDatasetSeries
	dcatDistribution   = vocab.DCATDistribution
	dcatKeyword        = vocab.DCATKeyword
	dcatTheme          = vocab.DCATTheme
	dcatContactPoint   = vocab.DCATContactPoint
	dcatLandingPage    = vocab.DCATLandingPage
	dcatAccessURL      = vocab.DCATAccessURL
	dcatDownloadURL    = vocab.DCATDownloadURL
	dcatMediaType      = vocab.DCATMediaType
	dcatBbox           = vocab.DCATBbox
	dcatCentroid       = nsDCAT + "centroid"
	dcatStartDate      = vocab.DCATStartDate
	dcatEndDate        = vocab.DCATEndDate
	dcatInSeries       = vocab.DCATInSeries
	dctTitle           = vocab.DCTTitle
	dctDescription     = vocab.DCTDescription
	dctPublisher       = vocab.DCTPublisher
	dctIssued          = vocab.DCTIssued
	dctModified        = vocab.DCTModified
	dctSpatial         = vocab.DCTSpatial
	dctTemporal        = vocab.DCTTemporal
	dctLicense         = vocab.DCTLicense
	dctAccessRights    = vocab.DCTAccessRights
	dctLanguage        = vocab.DCTLanguage
	dctFormat          = vocab.DCTFormat
	dctAccrual         = vocab.DCTAccrual
	foafName           = vocab.FOAFName
	foafPage           = vocab.FOAFPage
	skosPrefLabel      = vocab.SKOSPrefLabel
	rdfsLabel          = vocab.RDFSLabel
	rdfValue           = nsRDF + "value"
	vcardFN            = vocab.VCardFN
	vcardOrgName       = nsVCard + "organization-name"
	vcardHasOrgName    = nsVCard + "hasOrganizationName" // DCAT-AP-NO, FDK
	vcardHasEmail      = vocab.VCardHasEmail
	vcardHasValue      = nsVCard + "hasValue"
	locnGeometry       = nsLOCN + "geometry"
	timeHasBeginning   = nsTime + "hasBeginning"
	timeHasEnd         = nsTime + "hasEnd"
	timeInXSDDate      = nsTime + "inXSDDate"
	timeInXSDDateTime  = nsTime + "inXSDDateTime"
	timeInXSDDateTimeS = nsTime + "inXSDDateTimeStamp"
	schemaStartDate    = nsSchema + "startDate"
	schemaEndDate      = nsSchema + "endDate"

	xsdDate       = vocab.XSDDate
	xsdDateTime   = vocab.XSDDateTime
	xsdDateTimeS  = nsXSD + "dateTimeStamp"
	xsdGYear      = vocab.XSDGYear
	xsdGYearMonth = vocab.XSDGYearMonth
	gspWKT        = vocab.GSPWKTLiteral
	gspGeoJSON    = nsGSP + "geoJSONLiteral"
	// skolemPath marks a skolem IRI (RDF 1.1 §3.5): a blank node renamed by EXTRACT, not a
	// name the publisher gave, so never written out as a license, landing page or place.
	// fdkSkolemPath is FDK's own (its stored graphs use it).
	skolemPath    = vocab.GenidPath
	fdkSkolemPath = vocab.FDKSkolemPath

	euAuthority   = vocab.EUAuthority
	ianaMediaType = "://www.iana.org/assignments/media-types/"
)

// accessLevels maps the EU access-right vocabulary (DCAT-AP's controlled vocabulary for
// dct:accessRights) to DCAT-US accessLevel.
var accessLevels = vocab.EUAccessRights

// languageTags maps EU language authority codes (ISO 639-3 based, upper case) to RFC 5646
// (BCP 47) tags for the languages of Europe and a few more; a code not listed is written
// lower-cased, which is itself a valid ISO 639 tag.
var languageTags = vocab.EULanguages

// frequencies maps EU frequency codes (dct:accrualPeriodicity, DCAT-AP) and Dublin Core
// Collection Description frequency names (DCAT-AP 1.x) to DCAT-US accrualPeriodicity (an ISO
// 8601 repeating duration, or "irregular"). Codes without an ISO 8601 equivalent (NEVER,
// UNKNOWN, OTHER, AS_NEEDED, NOT_PLANNED, PROVISIONAL, UPDATE_CONT) are not listed.
var frequencies = func() map[string]string {
	m := maps.Clone(cldFrequencies)
	for _, f := range vocab.EUFrequencies {
		m[f.Code] = f.Period
	}
	return m
}()

// cldFrequencies are the Dublin Core Collection Description frequency names (DCAT-AP 1.x,
// http://purl.org/cld/freq/) as DCAT-US accrualPeriodicity.
var cldFrequencies = map[string]string{
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
