package quality

import (
	"bufio"
	"bytes"
	"embed"
	"regexp"
	"strings"
	"sync"
)

// vocabularyFS holds the tables TestVocabularyCurrent generates from ../shared/reference/mqa:
//
//	media-types.txt    every IANA media type (edp-mediatype-*.csv), lower case, one a line
//	file-types.txt     EU file types judged by the MQA: "CODE<TAB>machine<TAB>nonproprietary" (1 or 0)
//	licences.txt       known licences: "key<TAB>ID", key a licence URI as licenceKey writes it
//	access-rights.txt  the EU access-right codes (PUBLIC, RESTRICTED, NON_PUBLIC, …)
//
//go:embed vocabulary/*.txt
var vocabularyFS embed.FS

// vocabulary is the parsed tables.
type vocabulary struct {
	mediaTypes   map[string]bool
	fileTypes    map[string]fileType
	licences     map[string]string
	accessRights map[string]bool
}

// fileType is what the MQA's format vocabularies say of one EU file type.
type fileType struct{ machineReadable, nonProprietary bool }

// vocab parses the embedded tables once. They are generated and tested, so a malformed line is
// a build defect: it is skipped, and TestVocabularyCurrent fails.
var vocab = sync.OnceValue(func() *vocabulary {
	v := &vocabulary{mediaTypes: map[string]bool{}, fileTypes: map[string]fileType{},
		licences: map[string]string{}, accessRights: map[string]bool{}}
	eachLine("media-types.txt", func(f []string) { v.mediaTypes[f[0]] = true })
	eachLine("access-rights.txt", func(f []string) { v.accessRights[f[0]] = true })
	eachLine("file-types.txt", func(f []string) {
		if len(f) == 3 {
			v.fileTypes[f[0]] = fileType{machineReadable: f[1] == "1", nonProprietary: f[2] == "1"}
		}
	})
	eachLine("licences.txt", func(f []string) {
		if len(f) == 2 {
			v.licences[f[0]] = f[1]
		}
	})
	return v
})

func eachLine(name string, fn func([]string)) {
	b, _ := vocabularyFS.ReadFile("vocabulary/" + name)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			fn(strings.Split(line, "\t"))
		}
	}
}

// extraFileTypes are EU file-type codes (publications.europa.eu authority "file-type") that the
// two MQA format vocabularies leave out because they are neither machine-readable nor
// non-proprietary there, but that a format may name and still be "from a vocabulary"
// (formatMediaTypeVocabularyAlignment). Kept by hand: the reference holds no full file-type table.
var extraFileTypes = []string{"7Z", "DOC", "DOCX", "EPUB", "GIF", "GML", "GPKG", "JPEG", "MDB",
	"ODP", "ODT", "PDF", "PPT", "PPTX", "SVG", "WCS_SRVC", "WFS_SRVC", "WMTS_SRVC", "XHTML"}

// formatAliases are the names DCAT-US formats use for EU file types, upper case, beside the
// codes themselves (CSV, XLSX, …).
var formatAliases = map[string]string{
	"COMMA SEPARATED VALUES": "CSV", "GEO JSON": "GEOJSON", "GEO_JSON": "GEOJSON", "JSONLD": "JSON_LD",
	"JSON-LD": "JSON_LD", "SHAPEFILE": "SHP", "ESRI SHAPEFILE": "SHP", "ZIPPED SHAPEFILE": "SHP",
	"EXCEL": "XLS", "MS EXCEL": "XLS", "TEXT": "TXT", "PLAIN TEXT": "TXT", "RDF": "RDF_XML",
	"RDF/XML": "RDF_XML", "RDF-XML": "RDF_XML", "TTL": "RDF_TURTLE", "TURTLE": "RDF_TURTLE",
	"NT": "RDF_N_TRIPLES", "N-TRIPLES": "RDF_N_TRIPLES", "NQ": "RDF_N_QUADS", "N-QUADS": "RDF_N_QUADS",
	"TRIG": "RDF_TRIG", "GZ": "GZIP", "TGZ": "GZIP", "TIF": "TIFF", "GEOTIFF": "TIFF", "JP2": "JPEG2000",
	"NC": "NETCDF", "WMS": "WMS_SRVC", "HTM": "HTML", "WEBPAGE": "HTML", "ICAL": "ICS",
	"ICALENDAR": "ICS", "JPG": "JPEG", "WFS": "WFS_SRVC", "WCS": "WCS_SRVC", "WMTS": "WMTS_SRVC",
	"GEOPACKAGE": "GPKG", "TAB SEPARATED VALUES": "TSV",
}

// mediaTypeFileTypes are the IANA media types (and common unregistered x- forms) of the EU file
// types the MQA's format vocabularies list, as the EU file-type authority table pairs them.
var mediaTypeFileTypes = map[string]string{
	"text/csv": "CSV", "application/csv": "CSV", "application/json": "JSON",
	"application/geo+json": "GEOJSON", "application/vnd.geo+json": "GEOJSON", "text/calendar": "ICS",
	"application/ld+json": "JSON_LD", "application/vnd.google-earth.kml+xml": "KML",
	"application/vnd.google-earth.kmz": "KMZ", "application/netcdf": "NETCDF", "application/x-netcdf": "NETCDF",
	"application/vnd.oasis.opendocument.spreadsheet": "ODS", "application/n-quads": "RDF_N_QUADS",
	"application/n-triples": "RDF_N_TRIPLES", "application/trig": "RDF_TRIG", "text/turtle": "RDF_TURTLE",
	"application/rdf+xml": "RDF_XML", "application/rss+xml": "RSS", "application/vnd.ms-excel": "XLS",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "XLSX", "application/xml": "XML",
	"text/xml": "XML", "image/bmp": "BMP", "application/dbf": "DBF", "application/x-dbf": "DBF",
	"application/dbase": "DBF", "application/gzip": "GZIP", "application/x-gzip": "GZIP",
	"text/html": "HTML", "image/jp2": "JPEG2000", "image/png": "PNG", "application/rtf": "RTF",
	"text/rtf": "RTF", "application/x-tar": "TAR", "image/tiff": "TIFF", "text/tab-separated-values": "TSV",
	"text/plain": "TXT", "application/zip": "ZIP", "application/x-zip-compressed": "ZIP",
	"application/vnd.shp": "SHP", "application/x-shapefile": "SHP", "application/pdf": "PDF",
	"application/msword": "DOC", "image/jpeg": "JPEG", "image/gif": "GIF", "image/svg+xml": "SVG",
	"application/gml+xml": "GML", "application/geopackage+sqlite3": "GPKG", "application/xhtml+xml": "XHTML",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": "DOCX",
	"application/vnd.ms-powerpoint":                                           "PPT", "application/epub+zip": "EPUB", "application/x-7z-compressed": "7Z",
}

// fileTypeURI is the EU file-type authority's IRI prefix.
const fileTypeURI = "http://publications.europa.eu/resource/authority/file-type/"

// fileTypeOf returns the EU file-type code a DCAT-US format or mediaType value names, or "":
// an authority IRI (…/file-type/CSV), a media type (text/csv, parameters dropped), a code in
// any case with an optional leading dot (csv, .CSV, json-ld) or a common name (Shapefile, Excel).
func fileTypeOf(value string) string {
	s := strings.TrimSpace(value)
	if s == "" {
		return ""
	}
	if rest, ok := cutPrefixFold(s, fileTypeURI); ok {
		s = rest
	} else if rest, ok := cutPrefixFold(s, strings.Replace(fileTypeURI, "http:", "https:", 1)); ok {
		s = rest
	} else if strings.Contains(s, "/") {
		if code, ok := mediaTypeFileTypes[mediaTypeKey(s)]; ok {
			return code
		}
	}
	up := strings.ToUpper(strings.TrimPrefix(s, "."))
	if code, ok := formatAliases[up]; ok {
		return code
	}
	code := strings.NewReplacer(" ", "_", "-", "_").Replace(up)
	if _, ok := vocab().fileTypes[code]; ok || isExtraFileType(code) {
		return code
	}
	return ""
}

func isExtraFileType(code string) bool {
	for _, c := range extraFileTypes {
		if c == code {
			return true
		}
	}
	return false
}

// mediaTypeKey returns a media type lower case without parameters or an IANA IRI prefix:
// "Text/CSV; charset=utf-8" and "https://www.iana.org/assignments/media-types/text/csv" give
// "text/csv".
func mediaTypeKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"http://www.iana.org/assignments/media-types/", "https://www.iana.org/assignments/media-types/"} {
		s = strings.TrimPrefix(s, p)
	}
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// isMediaType reports whether s is an IANA-registered media type (edp-mediatype-*.csv).
func isMediaType(s string) bool { return vocab().mediaTypes[mediaTypeKey(s)] }

// licenceKey returns the form a licence URI is looked up by: lower case, without scheme, "www.",
// a trailing slash, or a final legalcode or deed.xx segment, so that
// "https://creativecommons.org/licenses/by/4.0/legalcode" and
// "http://creativecommons.org/licenses/by/4.0/" both give "creativecommons.org/licenses/by/4.0".
func licenceKey(uri string) string {
	s := strings.ToLower(strings.TrimSpace(uri))
	s = strings.TrimPrefix(strings.TrimPrefix(s, "http://"), "https://")
	s = strings.TrimPrefix(s, "www.")
	s = strings.TrimRight(s, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 && legalcodeSegment.MatchString(s[i+1:]) {
		s = strings.TrimRight(s[:i], "/")
	}
	return s
}

// legalcodeSegment is a final URL segment that names a form of the licence, not another licence.
var legalcodeSegment = regexp.MustCompile(`^(legalcode|deed)([._-][a-z_-]+)?(\.html?)?$|^summary$`)

// ccLicence matches a Creative Commons licence URL after licenceKey: its kind and version.
var ccLicence = regexp.MustCompile(`^creativecommons\.org/licenses/(by(?:-nc)?(?:-nd|-sa)?)/(\d)\.(\d)$`)

// odcLicences are the Open Data Commons licences by their opendatacommons.org path, as the EU
// licence table names them.
var odcLicences = map[string]string{"odbl": "ODC_BL", "by": "ODC_BY", "pddl": "ODC_PDDL"}

// knownLicence returns the EU licence identifier of a DCAT-US license value (a URL), or "": by
// its URI in edp-licences-skos.rdf (the concepts, their exactMatch and sameAs URIs), else by the
// well-known URL forms of the same licences that the table does not list: any
// creativecommons.org/licenses/<kind>/<version> whose CC_<KIND>_<version> the table has,
// creativecommons.org/publicdomain/zero/1.0 (CC0) and opendatacommons.org/licenses/{odbl,by,pddl}.
func knownLicence(uri string) string {
	v := vocab()
	key := licenceKey(uri)
	if key == "" {
		return ""
	}
	if id, ok := v.licences[key]; ok {
		return id
	}
	if m := ccLicence.FindStringSubmatch(key); m != nil {
		id := "CC_" + strings.ToUpper(strings.ReplaceAll(m[1], "-", "")) + "_" + m[2] + "_" + m[3]
		if v.hasLicenceID(id) {
			return id
		}
	}
	if key == "creativecommons.org/publicdomain/zero/1.0" {
		return "CC0"
	}
	if rest, ok := strings.CutPrefix(key, "opendatacommons.org/licenses/"); ok {
		name, _, _ := strings.Cut(rest, "/")
		return odcLicences[name]
	}
	return ""
}

// hasLicenceID reports whether the licence table names the licence id.
func (v *vocabulary) hasLicenceID(id string) bool {
	_, ok := v.licences["publications.europa.eu/resource/authority/licence/"+strings.ToLower(id)]
	return ok
}

// accessLevels maps DCAT-US accessLevel values (1.1; the usual 3.0 accessRights texts) to the EU
// access-right codes.
var accessLevels = map[string]string{
	"public": "PUBLIC", "restricted public": "RESTRICTED", "non-public": "NON_PUBLIC",
}

// accessRightOf returns the EU access-right code of a DCAT-US accessLevel or accessRights value,
// or "": one of accessLevels (case ignored), an EU access-right IRI, or a code itself.
func accessRightOf(value string) string {
	s := strings.TrimSpace(value)
	if code, ok := accessLevels[strings.ToLower(s)]; ok {
		return code
	}
	if i := strings.LastIndexByte(s, '/'); i >= 0 && strings.Contains(strings.ToLower(s), "publications.europa.eu/resource/authority/access-right/") {
		s = s[i+1:]
	}
	if vocab().accessRights[strings.ToUpper(s)] {
		return strings.ToUpper(s)
	}
	return ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}
