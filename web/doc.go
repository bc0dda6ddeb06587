// Package web is the operators' web UI, served at / beside the API's /api/v1: server-side
// html/template pages for organizations, harvest sources, jobs, records, datasets, search, the
// validator and a dashboard (a timeline of the last 24 h of jobs, and metrics), with their CSS
// (a USWDS-like look: type scale, spacing, status colours of WCAG AA contrast, visible focus) and
// JavaScript embedded (no CDN, no web font, nothing fetched at run time). The sources list
// shows each source's health (store.SourceHealth says what ok, errors, failing, stale and new
// mean) and searches, filters and sorts by query parameters.
//
// Reads are public, as in Data.gov's H2.0 (with Config.ProtectReads, as the API's, every page
// but /sign-in needs a session). Writes need a signed-in operator: /sign-in takes
// the API key (Config.APIKey, HARVESTER_API_KEY) and sets an HttpOnly, SameSite=Strict session
// cookie (Secure with Config.SecureCookies) holding an expiry, a random secret and their
// HMAC-SHA256 under a key derived from the API key (changing the key signs everyone out); the
// store keeps the secret's digest (store.SessionInsert), and /sign-out deletes it, so that the
// old cookie is refused by every process. Wrong keys at sign-in count against the client's
// allowance (Deps.AuthLimiter, shared with the API): past it, 429 with Retry-After. The sign-in's
// next must be a path of this site (safeNext). Every form carries a CSRF token: the
// HMAC of the session under the same key, or before sign-in a random value also set as a
// cookie (double submit). A POST without a session redirects to /sign-in (303); a POST without
// a valid token is a 403.
//
// Every write and the validate page call typed functions (package sources for sources and
// organizations, api.Validator, package jobs), the ones the API calls, never the API handler in
// process, so a form is checked by exactly the API's validation and its 422 field messages are
// shown next to the form's fields; a 409 is shown with the API's explanation. Forms work without
// JavaScript; the job page and its progress bar (polling /harvest_jobs/{id}/progress) show the
// job's jobs.Report, the view the API's job and the CLI's report are built from.
//
// Pages read the store directly, in a number of queries that does not grow with the rows they
// show (lists are paged and read in one query each: store.SourceSummaryList,
// RecordErrorSummary, RecordHistory, JobCountsSince). The dashboard's consumer lag and
// failed records come from JetStream through Deps.Lag (router.(*Bus).Lag).
package web
