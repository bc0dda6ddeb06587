// Package web is the operators' web UI, served at / beside the API's /api/v1: server-side
// html/template pages for organizations, harvest sources, jobs, records, datasets, search, the
// validator and a metrics overview, with their CSS and JavaScript embedded (no CDN, nothing
// fetched at run time).
//
// Reads are public, as in Data.gov's H2.0. Writes need a signed-in operator: /sign-in takes
// the API key (Config.APIKey, HARVESTER_API_KEY) and sets an HttpOnly, SameSite=Strict session
// cookie holding an expiry and its HMAC-SHA256 under a key derived from the API key (no
// database row; changing the key signs everyone out). Every form carries a CSRF token: the
// HMAC of the session under the same key, or before sign-in a random value also set as a
// cookie (double submit). A POST without a session redirects to /sign-in (303); a POST without
// a valid token is a 403.
//
// Every write goes through the API handler in process (Deps.API) with the API key, so a form
// is checked by exactly the API's validation and its 422 field messages are shown next to the
// form's fields; a 409 is shown with the API's explanation. Forms work without JavaScript;
// the job page's progress bar polls /harvest_jobs/{id}/progress, which computes the figure
// with api.PercentSettled, the function the API's percent_settled comes from.
//
// Pages read the store directly, with at most one query per row shown (lists are paged and
// read in one query each, e.g. store.SourceSummaryList).
package web
