// Package compare is the COMPARE stage. For each record it computes the source_hash (see
// SourceHash) and compares it with the newest stored record of the same identifier whose
// outcome is known (success, or an invalid record: Data.gov H2.0 forgets those and re-inserts
// them every run, d.g#5299):
//
//	same hash, same schema_type, not deleted -> unchanged (settles; nothing written), or
//	                                            errored when that record was invalid: it is
//	                                            not validated again, and its error rows are
//	                                            carried into this job, marked as carried
//	otherwise, or in a force_harvest job     -> update when the catalog has the dataset,
//	                                            create when it has not (harvest_record row, on
//	                                            to TRANSFORM)
//
// COMPARE alone decides that a record is unchanged. EXTRACT may skip a download and say so: a
// record it did not download because its WAF listing date is older than the last harvest
// (harvest.Record.NotDownloaded) settles as unchanged, and a Listing of a job whose
// document was 304 Not Modified (harvest.Listing.NotModifiedSince) settles every live dataset
// of the source as unchanged and every key the job that saved the validators counted as
// errored as errored again, carrying its rows; such a job deletes nothing.
//
// The store work of a batch (HandleBatch, as the router runs it) is one query that looks up what
// every record needs (its own record in the job, the newest comparable record, the live
// dataset) and one statement that inserts the changed records' harvest_record rows; a failed
// lookup fails each of its records with an error the router retries (each alone), a failed
// insert is made again one record at a time, so that a bad record fails alone.
// Records and listings of a job that already ended (failed or cancelled) are dropped.
// A validate job writes no harvest_record and sends every record on, unchanged ones included;
// its deletes are counted, not made.
// After a complete listing (a harvest.Listing message) the source's live datasets that the job
// did not list become delete records, sent straight to SYNC, and the aggregator learns the
// job's expected count: listed + deletes. A harvest job whose listing would delete more than
// the allowed share of the live datasets (default half) fails instead and deletes nothing
// (DESIGN rule 1); clear and force_harvest jobs are not bound. A partial or failed listing never reaches here, so
// it deletes nothing.
package compare
