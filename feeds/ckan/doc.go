// Package ckan shapes the live catalog as CKAN's Action API (2.10/2.11) answers it, for the
// CKAN-compatible read API that package api serves at /api/3/action/<name> and
// /api/action/<name>: a dataset as a CKAN package (Package, mapped from the stored DCAT-US
// record as GSA/ckanext-datajson's harvester maps a data.json dataset into CKAN), an
// organization (Organization), the envelope and error shapes of CKAN's api view (Envelope,
// Error), and the Solr subset of package_search's fq that clients use (ParseFQ).
//
// It is pure: records and organizations in, CKAN dicts out; the api package reads the store
// and the search index.
package ckan
