package iso

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/harvester-dev/harvester/dcatus"
)

// identifications returns every identificationInfo of the record (gmd:MD_DataIdentification,
// srv:SV_ServiceIdentification, 19115-3's mri:MD_DataIdentification…: ISO 19115 allows one or
// more), in document order but with the first that is not a service's first: the dataset's
// title, abstract and dates come from it, and a record that only describes a service from the
// service's. A record whose identificationInfo holds no element gives none.
func identifications(root *node) []*node {
	all := path([]*node{root}, "identificationInfo", "*")
	if i := slices.IndexFunc(all, func(n *node) bool { return !isService(n) }); i > 0 {
		data := all[i]
		copy(all[1:i+1], all[:i])
		all[0] = data
	}
	return all
}

// isService reports whether an identification is a service's (ISO 19119 SV_ServiceIdentification,
// in the 19139 srv namespace or 19115-3's).
func isService(n *node) bool { return n.Local == "SV_ServiceIdentification" }

// serviceEndpoints returns the endpoints of the services the record describes: the online
// resource of each srv:connectPoint of each srv:containsOperations/srv:SV_OperationMetadata
// of an srv:SV_ServiceIdentification, with the service's type (srv:serviceType, "THREDDS
// OPeNDAP", "OGC:WMS") as its protocol when it names none.
func serviceEndpoints(idents []*node) []onlineResource {
	var out []onlineResource
	for _, s := range idents {
		if !isService(s) {
			continue
		}
		serviceType := value(child(s, "serviceType"))
		for _, r := range onlineResources(path([]*node{s}, "containsOperations", "SV_OperationMetadata", "connectPoint")) {
			r.protocol = cmp.Or(r.protocol, serviceType)
			out = append(out, r)
		}
	}
	return out
}

// serviceDistribution is the DCAT-US distribution of a service endpoint at u (a URL
// cleanURL returned): u is its accessURL whatever it ends in (an OPeNDAP endpoint of a NetCDF
// aggregation ends in ".nc" and is no file), its format the protocol's name (serviceFormat),
// and its media type application/xml only for an OGC request (a GetCapabilities URL), as a
// service answers in several.
func serviceDistribution(u string, r onlineResource) dcatus.Distribution {
	d := dcatus.Distribution{Type: dcatus.TypeDistribution, AccessURL: u, Title: r.name, Description: r.description,
		Format: serviceFormat(r.protocol)}
	if mt, isFile := guessMediaType(u, ""); !isFile && mt == "application/xml" {
		d.MediaType = mt
	}
	return d
}

// serviceProtocols names the service protocols a record's protocol or service type text
// mentions as a word ("OGC:WMS", "Open Geospatial Consortium Web Map Service (WMS)",
// "THREDDS OPeNDAP", "ESRI:ArcGIS:MapServer"), upper-cased, by the name DCAT-US readers know.
var serviceProtocols = map[string]string{
	"OPENDAP": "OPeNDAP", "DODS": "OPeNDAP", "WMS": "WMS", "WMTS": "WMTS", "WFS": "WFS", "WCS": "WCS",
	"WPS": "WPS", "SOS": "SOS", "CSW": "CSW", "ERDDAP": "ERDDAP", "THREDDS": "THREDDS", "ESRI": "Esri REST",
	"ARCGIS": "Esri REST",
}

// serviceFormat is the format of a service endpoint with the protocol as the record gives it:
// the name of the data protocol it mentions as a word ("OGC:WMS" and "Open Geospatial
// Consortium Web Map Service (WMS)" → "WMS", "THREDDS OPeNDAP" → "OPeNDAP"), else of the
// server it names (THREDDS, Esri REST), else the protocol as written, white space made single
// spaces and cut to 100 characters; "" for none, or for a mere web protocol ("http",
// "WWW:LINK-1.0-http--link"), which names no format.
func serviceFormat(protocol string) string {
	words := strings.FieldsFunc(strings.ToUpper(protocol), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if f, ok := serviceProtocols[w]; ok && w != "THREDDS" && w != "ESRI" && w != "ARCGIS" {
			return f
		}
	}
	for _, w := range words {
		if f, ok := serviceProtocols[w]; ok {
			return f
		}
	}
	p := strings.Join(strings.Fields(protocol), " ")
	if l := strings.ToLower(p); strings.HasPrefix(l, "http") || strings.HasPrefix(l, "www:") {
		return ""
	}
	p, _ = dcatus.Shorten(p, 100)
	return p
}
