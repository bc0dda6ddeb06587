// Package compare is the COMPARE stage. For each record it computes the source_hash (see
// SourceHash) and compares it with the newest stored record of the same identifier whose
// outcome is known (success, or an invalid record: Data.gov H2.0 forgets those and re-inserts
// them every run, d.g#5299):
//
//	no stored record, or stored one deleted -> create   (harvest_record row, on to TRANSFORM)
//	hash differs, or a force_harvest job    -> update   (harvest_record row, on to TRANSFORM)
//	hash equal                              -> unchanged (settles; nothing written)
//
// Records and listings of a job that already ended (failed or cancelled) are dropped.
// A validate job writes no harvest_record and sends every record on, unchanged ones included.
// After a complete listing (a harvest.Listing message) the source's live datasets that the job
// did not list become delete records, sent straight to SYNC, and the aggregator learns the
// job's expected count: listed + deletes. A partial or failed listing never reaches here, so
// it deletes nothing.
package compare
