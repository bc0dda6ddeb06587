// Package extract is the core of the EXTRACT stage, which lists a harvest source's records for
// a job. Handle reads the job, gives it the source's fetch settings (source_fetch.go: its Accept
// and auth header) and hands it to the lister of its source type's family (Lister; the rule
// table, harvest.SourceSpecs, names each type's family, and pipeline registers one lister per
// family, Config.Listers). A clear job lists nothing: Handle sends its Listing itself.
//
// The families live in packages of their own, which import this core and never each other:
// document (a data.json, DCAT-US 1.1 or 3.0, or one ISO 19115 or FGDC XML file), waf (waf,
// waf-collection), csw (an OGC CSW), rdf (DCAT-AP RDF, maybe paged) and portal (CKAN, DKAN,
// Socrata, ArcGIS, OpenDataSoft). The core holds what they share:
//
//   - Run (handler.go), one job's listing: each entry counted (Next, with a job heartbeat every
//     HeartbeatEvery entries) and paced by Config.JobWindow (pace.go: big jobs give way to the
//     jobs behind them), its identifier recorded as seen (See; stored in batches before the
//     Listing that Complete sends, so COMPARE deletes only what the listing did not hold; a
//     data.json's in keyed hashes, identifier_set.go), a bad record settled as one error row
//     (SettleError, TooLarge, KeepTooLong), a listing that cannot complete failed once what it
//     sent has settled (Run.Fail);
//   - fetching a source document (conditional.go: a conditional GET, and its 304), opening a
//     source file (Handler.Open: refused with ErrLocalFile when Config.RefuseLocalFiles), and
//     one XML record read within the record size cap and sent on (xml_record.go, xml_encoding.go);
//   - the pager (pager.go, pager_guard.go) that a portal's pages and a CSW's GetRecords pages go
//     through: the first page's total, then the other pages concurrently within the per-host
//     limit, a listing that contradicts itself failing the job without a Listing;
//   - the settings a family reads, with their defaults from the rule table (settings.go).
//
// A source that cannot be fetched or parsed fails the job (Handler.Fail returns a
// harvest.JobFailure, which the stage's runner hands to jobs) and sends no Listing, so nothing
// is deleted.
package extract
