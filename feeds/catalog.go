package feeds

import (
	"net/http"
	"net/url"
	"strings"
)

// Catalog is what the served catalog says of itself, from serve's flags (--base-url,
// --catalog-title, --catalog-description, --catalog-publisher, --catalog-license).
type Catalog struct {
	// BaseURL is the catalog's public address, e.g. https://catalog.example.gov (no trailing
	// slash needed): every minted IRI and link starts with it. "" makes links from the
	// request's own scheme and host (fine for a local catalog; set it behind a proxy).
	BaseURL     string
	Title       string // default "Harvester catalog"
	Description string
	Publisher   string // the catalog's publisher, a name
	License     string // the catalog's licence, a URL
}

// DefaultTitle is Catalog.Title's default.
const DefaultTitle = "Harvester catalog"

// WithDefaults returns c with its title defaulted and its base URL without a trailing slash.
func (c Catalog) WithDefaults() Catalog {
	if c.Title == "" {
		c.Title = DefaultTitle
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// Base is the catalog's base URL for request r: BaseURL, else r's scheme (https when r came
// over TLS or a proxy said so in X-Forwarded-Proto, else http) and Host. No trailing slash.
func (c Catalog) Base(r *http.Request) string {
	if c.BaseURL != "" {
		return strings.TrimRight(c.BaseURL, "/")
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// DatasetURL is the public page of the dataset with slug: {base}/dataset/{slug}.
func (c Catalog) DatasetURL(r *http.Request, slug string) string {
	return c.Base(r) + "/dataset/" + url.PathEscape(slug)
}

// DatasetIRI is the IRI of a dataset in the served RDF: its identifier when that is an
// absolute http(s) IRI, else its DatasetURL (issue 35: dct:identifier always carries the
// original identifier beside it).
func (c Catalog) DatasetIRI(r *http.Request, identifier, slug string) string {
	if u, err := url.Parse(identifier); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		!strings.ContainsAny(identifier, " <>\"{}|\\^`") {
		return identifier
	}
	return c.DatasetURL(r, slug)
}
