package harvest

import (
	"net/url"
	"strings"
)

// NormalizeSourceURL returns the normal form of the URL of a harvest source of type t, the form
// it is stored in: NormalizeURL, and for a portal source (SourceType.IsPortal) the URL of the
// portal itself (PortalBaseURL) before that, so that a portal written as its base, its base
// with a trailing "/" or the API endpoint EXTRACT reads (".../api/3/action/package_search") is
// one source; for a csw source its CSW endpoint (CSWBaseURL: a pasted GetCapabilities URL's
// SERVICE, REQUEST, VERSION… parameters dropped). Its errors are NormalizeURL's.
func NormalizeSourceURL(t SourceType, raw string) (string, error) {
	n, err := NormalizeURL(raw)
	if err == nil && t == SourceCSW {
		return NormalizeURL(CSWBaseURL(n))
	}
	if err != nil || !t.IsPortal() {
		return n, err
	}
	return NormalizeURL(PortalBaseURL(t, n))
}

// PortalBaseURL returns the URL of the portal a portal source's URL names, the base EXTRACT
// appends its API paths to: raw without its query and fragment (EXTRACT reads its parameters
// from the source's options, never from its URL), without a path of the platform's API pasted
// with it, and without a trailing "/". Per platform:
//
//   - ckan and dkan: the path from "/api/" on (CKAN's "/api/3/action/package_search",
//     "/api/3/action/package_list", "/api/3", DKAN's "/api/1/metastore/…"), or a final "/api";
//   - socrata: the whole path (a Socrata domain is served at its root: "/api/views",
//     "/api/catalog/v1", "/browse", "/d/<id>" all name the domain);
//   - arcgis: the path from "/api/" on (a Hub site's "/api/search/v1", "/api/feed/dcat-us/1.1"),
//     from "/home/" on, or a final "/data.json" (a Hub site's DCAT-US feed); a "/sharing/rest…"
//     path becomes "/sharing/rest", which picks the portal search over the Hub search;
//   - opendatasoft: the path from "/api/" on ("/api/v2/catalog/datasets",
//     "/api/records/1.0/search", "/api/explore/v2.1/…") or from "/explore" on.
//
// Another source type's URL is returned as it is.
func PortalBaseURL(t SourceType, raw string) string {
	if !t.IsPortal() {
		return raw
	}
	base := strings.TrimSpace(raw)
	if i := strings.IndexAny(base, "?#"); i >= 0 {
		base = base[:i]
	}
	suffix := ""
	switch t {
	case SourceSocrata:
		if u, err := url.Parse(base); err == nil && u.Host != "" {
			return u.Scheme + "://" + u.Host
		}
	case SourceArcGIS:
		if i := strings.Index(base, "/sharing/rest"); i >= 0 {
			base, suffix = base[:i], "/sharing/rest"
		}
		base = cutAt(strings.TrimSuffix(strings.TrimRight(base, "/"), "/data.json"), "/api/", "/home/")
	case SourceOpenDataSoft:
		base = cutAt(base, "/api/", "/explore")
	default: // ckan, dkan
		base = strings.TrimSuffix(strings.TrimRight(cutAt(base, "/api/"), "/"), "/api")
	}
	return strings.TrimRight(base, "/") + suffix
}

// cutAt returns s up to the first of subs found in it (each tried in turn, on what is left).
func cutAt(s string, subs ...string) string {
	for _, sub := range subs {
		if i := strings.Index(s, sub); i >= 0 {
			s = s[:i]
		}
	}
	return s
}
