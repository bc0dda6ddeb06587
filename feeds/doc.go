// Package feeds serves the live catalog to other catalogs and to the public: what the catalog
// says of itself (Catalog), dataset URLs and IRIs, and the conditional-GET and caching rules
// every public answer follows. The feeds (DCAT-US data.json, DCAT-AP RDF with Hydra paging,
// the CKAN-compatible read API's shapes) read the store (store.Store.DatasetPage, by keyset)
// and the search index, never the stages.
package feeds
