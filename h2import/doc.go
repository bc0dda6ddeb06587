// Package h2import moves a catalog from Data.gov Harvesting 2.0 (GSA/datagov-harvester, "H2.0")
// into Harvester's store, so that the first harvest after the move changes nothing.
//
// Run reads an H2.0 Postgres database in one read-only, repeatable-read transaction (its
// organization, harvest_source, harvest_job, harvest_record and dataset tables, as H2.0's
// migrations at e04f7de8 create them) and writes, keeping H2.0's ids (UUID strings):
//
//   - every organization (name, slug);
//   - every harvest source (url, name, source_type, schema_type, frequency, notification_emails,
//     notification_frequency, collection_parent_url, organization); Config.RewriteURLs maps a
//     source's url to another (e.g. a test server) before it is written, and
//     the url is normalized as harvest --url normalizes it (harvest.NormalizeURL);
//   - each source's current state, as H2.0 computes it: the newest success row of every
//     (identifier, record_type), minus those whose action is delete; a record is imported with
//     its dataset row (slug, dcat, last_harvested_date, type), its source_raw, source_transform
//     and two hashes: H2.0's source_hash (kept as h2_source_hash) and ours of its source_raw;
//   - the H2.0 jobs that wrote those records, as finished jobs with H2.0's type, times and counts
//     (records_ignored is our unchanged; a job H2.0 left new or in_progress is imported as error).
//
// Each source is written in one transaction (store.Store.ImportTx) with its organization, jobs,
// records and datasets: an import that stops (an error, a kill) leaves every source imported
// whole or absent, so that nothing half-imported can be harvested, and running it again
// completes it with the rows of one uninterrupted run. An imported source is not due at once:
// its next run is one frequency after the import. Every write is idempotent (store's *Import
// methods): running Run again over the same H2.0 database writes nothing and reports every row
// unchanged.
//
// Before anything is read, the database is checked to have the tables and columns below
// (ErrNotH2 otherwise, naming what it lacks). Every row passes the rules the API applies to
// what it writes (store.CheckOrganization, store.CheckSource: a source url is an absolute
// http(s) URL, so no local file) and, for the rows only a harvest writes, what a harvest writes
// (UUID ids, an identifier, a dataset slug that is one URL path segment, a dcat that is a JSON
// object); a row that breaks one is not imported, nor what depends on it (a source's jobs,
// records and datasets; a dataset's record), and is one Report error naming its table, id and
// why. A current record that has no dataset
// row in H2.0 (other than a catalog_record, which never has one), or whose dataset row points at
// an older record, is not imported: the first harvest adds it. Not imported: H2.0's job history
// beyond the jobs above, its record and job error rows, its users, view counts and the spatial
// gazetteer. The search index is not written: run harvester reindex after an import.
//
// COMPARE finds an imported record unchanged when the publisher's record has the same H2.0 hash
// (package h2hash): H2.0 stores records sansjson-sorted, arrays included, so our own hash of the
// stored source_raw matches the publisher's document only when its arrays were already in order.
package h2import
