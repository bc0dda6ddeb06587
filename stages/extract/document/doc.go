// Package document is EXTRACT's document family (harvest.FamilyDocument): one data.json
// (DCAT-US 1.1 or 3.0, dcatus3.go) or one ISO 19115 or FGDC XML file (xml.go, one record). For
// a data.json it downloads the catalog to a temporary file (package fetch: timeouts, size cap,
// retries within a budget, redirect cap, per-host limit, gzip, SSRF guard; the core's charset.go:
// JSON in other encodings is made UTF-8), conditionally for a harvest job (the core's
// conditional.go, extract.Handler.FetchSource: on 304 nothing is listed,
// and the Listing says so: COMPARE settles every live dataset unchanged and deletes nothing), checks the whole document once without keeping it (catalog.Check: a syntax error, or a
// second "dataset" member, fails the job before any record moves, with line and column, found
// in that same streaming pass, in bounded memory), then streams the "dataset" array a record
// at a time (catalog.WalkEntries):
//
//   - each keyed record is recorded as seen and sent to COMPARE;
//   - a record without a usable identifier (MissingIdentifier), with one an earlier record of
//     the same catalog already used (DuplicateIdentifier; the first wins), with one holding
//     U+0000 (InvalidIdentifier), whose bytes are not UTF-8 (InvalidEncoding) or that is over
//     extract.Config.MaxRecordBytes (RecordTooLarge: measured as it streams past, never held, its
//     identifier read from its members) settles at once as errored, with the
//     reason: one bad record is one error row, never a failed job (a record of the last two
//     kinds is still recorded as seen, so the dataset it already has is not deleted);
//   - when every record has been sent, and every seen identifier stored (they are stored 500 at
//     a time while the listing goes on, store.JobIdentifierAddBatch), a harvest.Listing tells
//     COMPARE the listing is complete.
//
// A source that cannot be fetched or parsed fails the job (a job error names the HTTP status or
// the parse position) and sends no Listing, so nothing is deleted.
package document
