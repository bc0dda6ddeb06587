// Package extract is the EXTRACT stage: it lists a harvest source's records. For a document
// source it downloads the catalog to a temporary file (fetch.go: timeout, size cap, retries),
// checks the whole document once without keeping it (a syntax error fails the job before any
// record moves, with line and column), then streams the "dataset" array a record at a time:
//
//   - each keyed record is recorded as seen and sent to COMPARE;
//   - a record without a usable identifier, or with one an earlier record of the same catalog
//     already used (the first wins), settles at once as errored, with the reason;
//   - when every record has been sent, a harvest.Listing tells COMPARE the listing is complete.
//
// A source that cannot be fetched or parsed fails the job (a job error names the HTTP status or
// the parse position) and sends no Listing, so nothing is deleted. A clear job lists nothing.
package extract
