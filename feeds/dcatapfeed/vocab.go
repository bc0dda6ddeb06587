package dcatapfeed

import (
	vocab "github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/rdf"
)

// Namespaces of the served RDF, and the prefixes every serialization declares.
const (
	nsDCAT  = vocab.NSDCAT
	nsDCT   = vocab.NSDCT
	nsFOAF  = vocab.NSFOAF
	nsSKOS  = vocab.NSSKOS
	nsVCard = vocab.NSVCard
	nsRDFS  = vocab.NSRDFS
	nsXSD   = vocab.NSXSD
	nsHydra = "http://www.w3.org/ns/hydra/core#"
	nsProv  = "http://www.w3.org/ns/prov#"
	nsLOCN  = vocab.NSLOCN
	nsGSP   = vocab.NSGSP

	euAuthority = vocab.EUAuthority
	ianaMedia   = vocab.IANAMediaTypes
)

// Prefixes are the namespace prefixes the feeds declare.
var Prefixes = map[string]string{
	"dcat": nsDCAT, "dct": nsDCT, "foaf": nsFOAF, "skos": nsSKOS, "vcard": nsVCard, "rdfs": nsRDFS,
	"xsd": nsXSD, "hydra": nsHydra, "prov": nsProv, "locn": nsLOCN, "gsp": nsGSP, "dqv": nsDQV, "pv": nsPV,
}

var (
	rdfType = rdf.IRI(rdf.RDFType)

	dcatCatalog       = rdf.IRI(vocab.DCATCatalog)
	dcatCatalogRecord = rdf.IRI(nsDCAT + "CatalogRecord")
	dcatDataset       = rdf.IRI(vocab.DCATDataset)
	dcatDatasetSeries = rdf.IRI(vocab.DCATDatasetSeries)
	dcatDataService   = rdf.IRI(nsDCAT + "DataService")
	dcatDistribution  = rdf.IRI(nsDCAT + "Distribution")
	dcatResource      = rdf.IRI(nsDCAT + "Resource")

	dcatDatasetP      = rdf.IRI(vocab.DCATDatasetProp)
	dcatServiceP      = rdf.IRI(nsDCAT + "service")
	dcatRecordP       = rdf.IRI(nsDCAT + "record")
	dcatDistributionP = rdf.IRI(vocab.DCATDistribution)
	dcatKeyword       = rdf.IRI(vocab.DCATKeyword)
	dcatTheme         = rdf.IRI(vocab.DCATTheme)
	dcatContactPoint  = rdf.IRI(vocab.DCATContactPoint)
	dcatLandingPage   = rdf.IRI(vocab.DCATLandingPage)
	dcatAccessURL     = rdf.IRI(vocab.DCATAccessURL)
	dcatDownloadURL   = rdf.IRI(vocab.DCATDownloadURL)
	dcatMediaType     = rdf.IRI(vocab.DCATMediaType)
	dcatBbox          = rdf.IRI(vocab.DCATBbox)
	dcatStartDate     = rdf.IRI(vocab.DCATStartDate)
	dcatEndDate       = rdf.IRI(vocab.DCATEndDate)
	dcatEndpointURL   = rdf.IRI(nsDCAT + "endpointURL")

	dctTitle        = rdf.IRI(vocab.DCTTitle)
	dctDescription  = rdf.IRI(vocab.DCTDescription)
	dctIdentifier   = rdf.IRI(nsDCT + "identifier")
	dctPublisher    = rdf.IRI(vocab.DCTPublisher)
	dctIssued       = rdf.IRI(vocab.DCTIssued)
	dctModified     = rdf.IRI(vocab.DCTModified)
	dctSpatial      = rdf.IRI(vocab.DCTSpatial)
	dctTemporal     = rdf.IRI(vocab.DCTTemporal)
	dctLicense      = rdf.IRI(vocab.DCTLicense)
	dctAccessRights = rdf.IRI(vocab.DCTAccessRights)
	dctRights       = rdf.IRI(nsDCT + "rights")
	dctLanguage     = rdf.IRI(vocab.DCTLanguage)
	dctFormat       = rdf.IRI(vocab.DCTFormat)
	dctAccrual      = rdf.IRI(vocab.DCTAccrual)
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
	foafName         = rdf.IRI(vocab.FOAFName)
	foafPage         = rdf.IRI(vocab.FOAFPage)
	foafPrimaryTopic = rdf.IRI(nsFOAF + "primaryTopic")
	foafHomepage     = rdf.IRI(nsFOAF + "homepage")

	vcardKind       = rdf.IRI(nsVCard + "Kind")
	vcardFN         = rdf.IRI(vocab.VCardFN)
	vcardHasEmail   = rdf.IRI(vocab.VCardHasEmail)
	skosConcept     = rdf.IRI(nsSKOS + "Concept")
	skosPrefLabel   = rdf.IRI(vocab.SKOSPrefLabel)
	rdfsLabel       = rdf.IRI(vocab.RDFSLabel)
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

	xsdDate       = vocab.XSDDate
	xsdDateTime   = vocab.XSDDateTime
	xsdGYear      = vocab.XSDGYear
	xsdGYearMonth = vocab.XSDGYearMonth
	xsdInteger    = nsXSD + "integer"
	gspWKT        = vocab.GSPWKTLiteral
)

// accessRights maps DCAT-US accessLevel to the EU access-right authority table (the reverse of
// dcatap.EUAccessRights, which TRANSFORM reads).
var accessRights = func() map[string]string {
	m := map[string]string{}
	for code, level := range vocab.EUAccessRights {
		m[level] = euAuthority + "access-right/" + code
	}
	return m
}()

// frequencies maps DCAT-US accrualPeriodicity (ISO 8601 repeating durations) to the EU
// frequency authority table: dcatap.EUFrequencies the other way round, the first code of a
// duration where two share it.
var frequencies = func() map[string]string {
	m := map[string]string{}
	for _, f := range vocab.EUFrequencies {
		if _, ok := m[f.Period]; !ok {
			m[f.Period] = f.Code
		}
	}
	return m
}()

// languages maps BCP 47 primary tags to the EU language authority table (dcatap.EULanguages the
// other way round); another two- or three-letter tag goes to the Library of Congress's ISO
// 639-1 or 639-2 IRI, which TRANSFORM reads back.
var languages = func() map[string]string {
	m := map[string]string{}
	for code, tag := range vocab.EULanguages {
		m[tag] = code
	}
	return m
}()
