// Package api is Harvester's HTTP API under /api/v1: organizations, harvest sources, jobs
// (start, follow, cancel, replay: through package jobs), job and record errors (JSON or CSV),
// harvest records, dataset search, and a
// validate endpoint that checks a pasted or fetched DCAT-US catalog without storing anything;
// plus /healthz, /readyz, /metrics and the OpenAPI document at /api/v1/openapi.json.
//
// Every route is listed once, in (*server).routes, with a Go 1.22 method pattern and its
// access level: open (probes, metrics, the OpenAPI document), read (open unless
// Config.ProtectReads) or write (every POST, PUT and DELETE: the API key is required, and an
// empty key refuses them all). The OpenAPI document must list exactly the same (method, path)
// pairs; a test holds the two together.
//
// Responses are JSON. Every error is {"error": "..."} (422s add "fields", naming each bad
// field), and store errors are mapped to statuses in one place (errorStatus): ErrNotFound is
// 404, ErrConflict 409, anything unexpected 500 with no internals. Lists share one envelope,
// {"items", "total", "page", "per_page"}. Each request is logged once, at info.
//
// Requests are held to the document as strictly as its schemas read. Request bodies are
// application/json: a body with another Content-Type is a 415 (one without a Content-Type is
// read as JSON). A member that is null is a 422 unless the document marks it nullable (a
// pointer or slice field); omitting it is what means its default. Routes that declare query
// parameters (the lists) answer 422 for an unknown, repeated or empty one (readQuery); the
// others ignore their query. Names must hold a character that is not white space, as the
// document's pattern says, and a source's url (and collection_parent_url) is stored in its
// normal form (sources.NormalURL: harvest.NormalizeURL; a portal source's url is its portal's
// base, a csw source's its endpoint); a url naming the same catalog as another source's
// (sources.ByURL) is a 409. Sources and organizations are checked and written by package
// sources, which the web UI calls too; its *sources.Error becomes the 422, 404 or 409.
//
// Sources are of every type the harvester harvests: document (one DCAT-US data.json or one
// ISO 19115 XML file), waf and waf-collection (web-accessible folders of ISO 19115 XML), rdf
// (DCAT-AP), the portals ckan, dkan, socrata, arcgis and opendatasoft, and csw (an OGC catalogue). What each type may
// have (its schema types, its settings in options, collection_parent_url, waf_time_zone) is
// the source rule table's, harvest.SourceSpecs, the same one the web form and `harvester
// harvest` check with: a source it refuses is a 422 naming each field. The validate endpoint
// reads DCAT-US only: it refuses the other schema types with a 422.
package api
