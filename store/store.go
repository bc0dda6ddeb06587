package store

import (
	"context"
	"time"
)

// Store is every storage operation Harvester performs. Methods are noun-first and sorted; each
// takes one params struct (or a single id). Implementations: store/postgres and store/sqlite;
// the conformance suite in store/storetest pins their behaviour.
type Store interface {
	// Close releases the backend's connections.
	Close()

	// CatalogChecksums returns the checksum of each catalog of the source that a job saved
	// (CatalogChecksumsSet), by catalog IRI; an empty map when there is none.
	CatalogChecksums(ctx context.Context, sourceID string) (map[string]string, error)
	// CatalogChecksumsSet saves the catalogs p.JobID saw in p.SourceID (upsert by source and
	// IRI): a catalog that is new, or whose checksum differs from the stored one, or every one
	// when p.Force, is marked changed in p.JobID (CatalogsChangedInJob); an unchanged one keeps
	// the job that last changed it. Catalogs that the job did not see are kept (FDK never
	// removes a catalog). Saving the same catalogs again for the same job changes nothing
	// (redelivery). ErrNotFound for an unknown source.
	CatalogChecksumsSet(ctx context.Context, p *CatalogChecksumsSetParams) error
	// CatalogsChangedInJob returns the catalogs that job jobID found new or changed (the
	// report's changedCatalogs), ordered by IRI; none for a job that saved none.
	CatalogsChangedInJob(ctx context.Context, jobID string) ([]Resource, error)

	// CrossSourceDuplicateList returns one page of cross-source duplicate pairs, the newest
	// found first (then by the held dataset's id), filtered by p, and the number of pairs that
	// match the filter. A pair is listed once, by its held dataset; a dataset held against one
	// that is itself held (a chain) is a pair of its own.
	CrossSourceDuplicateList(ctx context.Context, p *CrossSourceDuplicateListParams) ([]CrossSourceDuplicate, int, error)

	// DatabaseID returns the database's identity: a random id (a UUID) made once by the
	// migrations, the same for every process and connection of the database however its URL is
	// spelled, and different for every other database (a Postgres schema of its own is another
	// database; a copy of the database keeps it). The deployment's NATS streams are stamped
	// with it (router.WithDatabaseID).
	DatabaseID(ctx context.Context) (string, error)

	// DatasetAny reports whether any source has a live dataset, as DatasetStream would stream
	// one: one query that stops at the first live row, whatever the table's size.
	DatasetAny(ctx context.Context) (bool, error)
	// DatasetCount returns how many live datasets a source has.
	DatasetCount(ctx context.Context, sourceID string) (int, error)
	// DatasetCountHeld returns how many of a source's datasets are held as cross-source
	// duplicates (not live; DatasetListUnseen lists them with the live ones).
	DatasetCountHeld(ctx context.Context, sourceID string) (int, error)
	// DatasetDelete removes the live dataset of (source, identifier); it reports whether a row
	// was removed. Deleting a missing dataset is not an error (redelivery is normal). With
	// p.JobID, ErrJobEnded when that job has ended: checked in the DELETE itself (on Postgres
	// it holds a share lock on the job row until it commits, which JobFail waits for).
	DatasetDelete(ctx context.Context, p *DatasetDeleteParams) (bool, error)
	// DatasetDuplicateFind returns at most two cross-source duplicate candidates of the dataset
	// p.DatasetID (SYNC, after writing it): the live dataset of a source other than
	// p.SourceID sharing a key with p (identifier, landingPage or downloadURL set; empty keys
	// match nothing) whose source has the highest precedence (then: one that outranks
	// p.DatasetID first, then identifier before landingPage before downloadURL, then by id),
	// Live; and the dataset held against p.DatasetID of the highest precedence (then one that
	// outranks it, then by id), not Live. None when there is neither. Each candidate's Outranks
	// says whether it ranks above p.DatasetID on the key they share: its source's precedence is
	// higher, or equal and its source first published a dataset with that key earlier (by the
	// time a DatasetUpsert of the source first wrote the key; in the same instant, by the
	// creation of the job whose record wrote it; then by the lower source id; a source that
	// never wrote the key ranks after one that did). When each source first published each key
	// is kept apart from the datasets: it outlives their deletion (a harvest that omitted a
	// dataset, a clear job) and their records and jobs, and goes only with the source.
	DatasetDuplicateFind(ctx context.Context, p *DatasetDuplicateFindParams) ([]*DuplicateCandidate, error)
	// DatasetDuplicatePossible returns which of the datasets ids (dataset ids; unknown ones are
	// left out) DatasetDuplicateFind might find a candidate for, or that are held: those with
	// another source's dataset (live or held) sharing their identifier, landing_page or
	// download_urls_sha, those held, and those another is held against. SYNC asks it once per
	// upsert batch and calls DatasetDuplicateFind only for these: the usual dataset has none.
	DatasetDuplicatePossible(ctx context.Context, ids []string) (map[string]bool, error)
	// DatasetDuplicateKeep makes the dataset p.DatasetID live (clearing its held state) and holds
	// against it every live dataset of another source that shares a key with it (its stored
	// identifier, landing_page, download_urls_sha) and that it outranks (DatasetDuplicateFind
	// says how), in one transaction, and returns those it held. A new pair's FirstJobID is
	// p.JobID; a pair that swapped (the dataset was held against one it now holds) keeps its
	// first job and time. Each dataset whose held state it changes for a job of another source
	// is marked moved (RecordCompare.DuplicateMoved). ErrNotFound for an unknown dataset.
	DatasetDuplicateKeep(ctx context.Context, p *DatasetDuplicateKeepParams) ([]*DuplicateCandidate, error)
	// DatasetDuplicateRelease makes live again at most limit datasets that were held against a
	// dataset since deleted (the foreign key cleared their duplicate_of), and returns them: SYNC
	// calls it after each delete and judges each again. Each such dataset is returned once, and
	// marked moved (RecordCompare.DuplicateMoved).
	DatasetDuplicateRelease(ctx context.Context, limit int) ([]*Dataset, error)
	// DatasetDuplicateUnpair ends at most p.Limit pairs of p.SourceID (on either side) that were
	// matched by landingPage or downloadURL set whose key is no longer unique within both sources
	// (another dataset, live or held, of either source has it), and returns their held datasets
	// (DuplicateCandidate with Match and Key of the ended pair, Live false). Those are not held
	// any more; DatasetDuplicateRelease then returns each once, to be judged again. The job
	// aggregator calls it when a job of the source ends.
	DatasetDuplicateUnpair(ctx context.Context, p *DatasetDuplicateUnpairParams) ([]*DuplicateCandidate, error)
	// DatasetDuplicateUnpairStale ends the pairs of the datasets held against keptID whose
	// recorded key (duplicate_match, duplicate_key) keptID no longer has (its record changed its
	// landingPage or downloadURL set), and returns how many it ended. Those are not held any more;
	// DatasetDuplicateRelease then returns each once, to be judged again. SYNC calls it when it
	// writes a dataset that others are held against.
	DatasetDuplicateUnpairStale(ctx context.Context, keptID string) (int, error)
	// DatasetFindElsewhere returns a live dataset with p.Identifier in a source other than
	// p.SourceID, with its source's name (of several such sources, the first by name), or
	// ErrNotFound: EXTRACT flags a portal item another harvest source already harvests.
	DatasetFindElsewhere(ctx context.Context, p *DatasetFindElsewhereParams) (*DatasetElsewhere, error)
	// DatasetFindings says, of each of the datasets ids (live or held), whether its record has
	// a validation row that counts against profile compliance (DatasetQuality's Findings: for a
	// DCAT-AP record a SHACL finding, for any other any row; errors and warnings alike, carried
	// ones included); an unknown id is missing from the map. ids are dataset ids as the store
	// gave them (on Postgres a text that is no uuid fails the call).
	DatasetFindings(ctx context.Context, ids []string) (map[string]bool, error)
	// DatasetGet returns the dataset of (source, identifier), live or held (Dataset.DuplicateOf),
	// or ErrNotFound.
	DatasetGet(ctx context.Context, p *DatasetGetParams) (*Dataset, error)
	// DatasetGraphs returns, of each of the datasets ids (live or held) whose record is DCAT-AP
	// (harvest_record.schema_type dcat-ap), its record graph (DatasetQuality's Graph) by dataset
	// id; the others, and unknown ids, are missing from the map. ids as for DatasetFindings.
	DatasetGraphs(ctx context.Context, ids []string) (map[string][]byte, error)
	// DatasetHold holds the dataset p.HeldID against p.KeptID (it is not live any more): when
	// p.KeptID is live, or is held against p.HeldID (the pair swaps: p.KeptID becomes live and the
	// pair keeps its first job and time), in one transaction. A hold repeated keeps the pair's
	// first job and time. It reports false and changes nothing when p.KeptID is gone or held
	// against another dataset. A dataset whose held state it changes for a job (p.JobID) of
	// another source is marked moved (RecordCompare.DuplicateMoved).
	DatasetHold(ctx context.Context, p *DatasetHoldParams) (bool, error)
	// DatasetImport creates the dataset p.ID, or updates it to p's fields (ImportResult): the
	// import from Data.gov H2.0; its identifier counts as first published at p.LastHarvestedDate
	// unless its source published it before. A dataset whose record is not an imported one (a
	// harvest wrote it since) is kept as it is (ImportUnchanged). ErrConflict when the slug or (source,
	// identifier) is another dataset's.
	DatasetImport(ctx context.Context, p *DatasetImportParams) (ImportResult, error)
	// DatasetLinkURLs returns the distribution URLs of a source's live datasets (held ones are
	// left out): each distribution's accessURL and downloadURL in dataset.dcat, read as
	// quality.LinkURLs reads them, distinct, sorted; none for a source without any.
	DatasetLinkURLs(ctx context.Context, sourceID string) ([]string, error)
	// DatasetList returns a source's live datasets ordered by identifier (held ones are left out).
	DatasetList(ctx context.Context, p *DatasetListParams) ([]*Dataset, error)
	// DatasetListUnseen calls fn with each identifier of the source's live datasets that the
	// job did not list (stored minus seen), streaming rows; fn's error stops and is returned.
	DatasetListUnseen(ctx context.Context, p *DatasetListUnseenParams, fn func(identifier string) error) error
	// DatasetPage returns one page of the live catalog (LiveDataset: the dataset with its
	// source, organization and first harvest) in id order, filtered by p: at most p.Limit rows
	// (MaxDatasetPage when 0 or more), none when the keyset is past the end. The feeds page the
	// whole catalog with it, not with the search index (which stops at search.MaxWindow).
	DatasetPage(ctx context.Context, p *DatasetPageParams) ([]*LiveDataset, error)
	// DatasetPageStats returns how many live datasets p's filters select (After and Limit
	// ignored) and the latest last_harvested_date among them (zero for none): with the
	// filters, enough for a feed's ETag and Last-Modified.
	DatasetPageStats(ctx context.Context, p *DatasetPageParams) (*DatasetPageStats, error)
	// DatasetFind returns the dataset of id p.ID or slug p.Slug as a LiveDataset, live or held
	// (Dataset.DuplicateOf set); ErrNotFound when there is none or p names neither.
	DatasetFind(ctx context.Context, p *DatasetFindParams) (*LiveDataset, error)
	// DatasetQualityStream calls fn with what the MQA scores of each live dataset of
	// p.SourceID, or of the one dataset p.DatasetID (live or held), in id order, streaming rows:
	// its record, the record graph of a DCAT-AP record, whether the record has a validation row
	// that counts against compliance (harvest_record_error of its harvest_record_id: for a
	// DCAT-AP record a SHACL finding, ValidationError or ValidationWarning, for any other any
	// row; errors and warnings alike, carried ones included) and its link URLs
	// (quality.LinkURLs). fn's error stops the stream and is returned; an unknown source or
	// dataset streams nothing.
	DatasetQualityStream(ctx context.Context, p *DatasetQualityParams, fn func(*DatasetQuality) error) error
	// DatasetStream calls fn with every live dataset (held ones are left out), of one source when p.SourceID is not
	// empty, ordered by id, streaming rows; fn's error stops the stream and is returned.
	DatasetStream(ctx context.Context, p *DatasetListParams, fn func(*Dataset) error) error
	// DatasetUpsert creates the dataset of (source, identifier) with p.Slug, or updates its
	// dcat, record and harvest date keeping the slug it has, and clears its moved mark
	// (RecordCompare.DuplicateMoved). In the same transaction it records each of the dataset's
	// duplicate keys that its source publishes for the first time, with the time and the job of
	// the dataset's record (DatasetDuplicateFind ranks by them). It returns ErrConflict when a
	// new dataset's slug is taken by another dataset; the caller picks another slug. With
	// p.JobID, ErrJobEnded when that job has ended, checked in the statement that writes (on
	// Postgres it holds a share lock on the job row until it commits, which JobFail waits for).
	DatasetUpsert(ctx context.Context, p *DatasetUpsertParams) (*Dataset, error)
	// DatasetUpsertBatch upserts many datasets as DatasetUpsert does, in one statement (SYNC's
	// group commit), and returns them in ps's order. A new dataset whose slug another dataset
	// has takes its p.AltSlug when that is not "". It is all or nothing: ErrConflict when a new
	// dataset's slug is taken (and it has no AltSlug, or that is taken too, or two datasets of
	// ps want one slug) or ps names one (source, identifier) twice, ErrJobEnded when the JobID
	// of one of ps has ended, or any other error, and then nothing is written; callers fall
	// back to DatasetUpsert one by one.
	DatasetUpsertBatch(ctx context.Context, ps []*DatasetUpsertParams) ([]*Dataset, error)

	// ImportTx runs fn in one transaction, so that an import (harvester import-h2 writes each
	// source with its organization, jobs, records and datasets in one) is all there or absent:
	// the writes fn makes through im are committed together when fn returns nil, and none of
	// them when fn returns an error, panics or ctx ends. A write of im that fails (ErrConflict,
	// ErrNotFound) undoes only itself (a savepoint), so fn may report it and go on. On SQLite
	// the database's write lock is held until fn returns.
	ImportTx(ctx context.Context, fn func(im Importer) error) error

	// JobCountsSince counts the jobs created at or after since, by status and job type.
	JobCountsSince(ctx context.Context, since time.Time) ([]*JobCount, error)
	// JobErrorListSince returns at most limit job errors written at or after since, newest
	// first (limit 0: DefaultLimit).
	JobErrorListSince(ctx context.Context, since time.Time, limit int) ([]*JobError, error)
	// JobErrorAdd writes a job-level row (harvest_job_error) without changing the job's status:
	// a notice about a job that completed (e.g. CrossSourceDuplicateReleased). ErrNotFound for
	// an unknown job.
	JobErrorAdd(ctx context.Context, p *JobErrorAddParams) error
	// JobErrorList returns a job's job-level errors, oldest first.
	JobErrorList(ctx context.Context, jobID string) ([]*JobError, error)
	// JobCountHeld counts again the held datasets of the source of a finished job (Counts.Held)
	// and returns the job: the aggregator calls it when pairs ended at the job's end changed
	// them. ErrNotFound for an unknown or unfinished job.
	JobCountHeld(ctx context.Context, jobID string) (*HarvestJob, error)
	// JobFail ends an unfinished job (new or in_progress) in status error with one job error
	// row, and settles each of the job's pending records whose key has no outcome yet, in the
	// same transaction: one SYNC applied (the live dataset is that record; for a delete, the
	// dataset is gone) counts as added, updated or deleted by its action and becomes success;
	// any other counts as errored, becomes error and gets a record error row of type
	// CancelledJob naming p.Type. So the job's counts account for every dataset that points at
	// one of its records, total = added + updated + deleted + unchanged + errored, and no row
	// stays pending. On Postgres it first locks the job row (FOR UPDATE), so it waits for the
	// writes of the job's records in flight (DatasetUpsert, RecordInsert, ... hold a share
	// lock on it) and those that come after see the job ended. It counts the source's held
	// datasets (Counts.Held). It returns the job; a job that had already finished keeps its
	// status and gets no row.
	JobFail(ctx context.Context, p *JobFailParams) (*HarvestJob, error)
	// JobFetchGet returns what a job fetched (JobFetchSet); ErrNotFound when the job does not
	// exist or saved nothing.
	JobFetchGet(ctx context.Context, jobID string) (*JobFetch, error)
	// JobFetchLatest returns what the source's last finished job among harvest, force_harvest
	// and clear jobs fetched (JobFetchSet), when that job completed, is not a clear job and
	// saved validators or a graph hash: the only fetch a new harvest job may reuse for a conditional GET (after
	// a failed job or a clear, the catalog may not match the document any more), and when no
	// record of the source has a newest row in status error or pending that a harvest would not
	// find unchanged (a record whose sync or store write failed must be harvested again; one
	// whose newest comparable row has the same hash and schema type would be unchanged, so it
	// does not count), and when that job has no record error row of type StageError (a stage
	// gave up on a record, maybe before its harvest_record row was written: it must be listed
	// again), and when no cross-source duplicate pair with a dataset of the source ranks the
	// other way (a precedence changed, or an earlier rule judged it) and no dataset of the
	// source is marked moved (RecordCompare.DuplicateMoved): their records must be judged
	// again. ErrNotFound
	// otherwise. Validate jobs and
	// unfinished jobs are passed over.
	JobFetchLatest(ctx context.Context, sourceID string) (*JobFetch, error)
	// JobFetchSet saves what a job fetched (p.JobID's row; ErrNotFound for an unknown job),
	// replacing what it had (an rdf job saves its validators and its GraphHash together, once
	// the graph is parsed).
	JobFetchSet(ctx context.Context, p *JobFetch) error
	// JobFinish marks the job complete when its expected count is known and every expected
	// outcome has settled, counting then its warned records and its source's held datasets
	// (Counts.Held). It reports whether this call finished the job.
	JobFinish(ctx context.Context, jobID string) (*HarvestJob, bool, error)
	// JobGet returns one job, or ErrNotFound.
	JobGet(ctx context.Context, jobID string) (*HarvestJob, error)
	// JobHeartbeat records that the job is being worked on now (heartbeat_at).
	JobHeartbeat(ctx context.Context, jobID string) error
	// JobIdentifierAdd records that the job's listing contained identifier (idempotent).
	JobIdentifierAdd(ctx context.Context, p *JobIdentifierAddParams) error
	// JobIdentifierAddBatch records that the job's listing contained each of p.Identifiers, in
	// one statement (Postgres) or one transaction (SQLite): all of them or, on error, none.
	// Identifiers already recorded for the job, or repeated within p.Identifiers, are skipped
	// (idempotent). An empty p.Identifiers does nothing.
	JobIdentifierAddBatch(ctx context.Context, p *JobIdentifierAddBatchParams) error
	// JobIdentifierClaimBatch records, as JobIdentifierAddBatch does, that the listing p.Listing
	// of the job contained each of p.Identifiers at the 0-based position of p.Positions beside
	// it, in one statement (Postgres) or one transaction (SQLite): all of them or, on error,
	// none. It returns the repeats: each identifier of the call that p.Listing had claimed
	// before, or that the call gives more than once, mapped to its first position in the
	// listing (the first claim's), which the caller compares with its own (a different one is a
	// DuplicateIdentifier). An identifier recorded by another listing of the job (a redelivered
	// job listed again, JobIdentifierAdd) is claimed anew, with the new position, and is no
	// repeat. p.Positions must be as long as p.Identifiers; an empty call does nothing. An
	// unknown job is ErrNotFound.
	JobIdentifierClaimBatch(ctx context.Context, p *JobIdentifierClaimBatchParams) (map[string]int, error)
	// JobImport creates the finished job p.ID, or updates it to p's fields (ImportResult).
	JobImport(ctx context.Context, p *JobImportParams) (ImportResult, error)
	// JobInsert creates a job for a source: in_progress, or new when p.Queued (it then waits for
	// JobStartQueued). It returns ErrConflict when the source already has an unfinished job
	// (new or in_progress), and ErrNotFound when the source does not exist.
	JobInsert(ctx context.Context, p *JobInsertParams) (*HarvestJob, error)
	// JobList returns one page of jobs, newest first, filtered by p, and the number of jobs
	// that match the filter.
	JobList(ctx context.Context, p *JobListParams) ([]*HarvestJob, int, error)
	// JobListOrphaned returns the in_progress jobs whose heartbeat is older than p.Before.
	JobListOrphaned(ctx context.Context, p *JobListOrphanedParams) ([]*HarvestJob, error)
	// JobPrune deletes the jobs of one batch that the retention no longer keeps (see prune.go):
	// of the p.Limit jobs after p.After (by id), each job that finished before p.Before, is not
	// one of the p.KeepJobs newest jobs of its source nor its source's latest finished harvest,
	// force_harvest or clear job, is named by no cross-source duplicate pair and holds no record
	// that RecordPrune would keep; with its job errors, listed identifiers, outcomes and record
	// errors, each table in statements of at most p.Limit rows (no long lock). Run it after a
	// whole RecordPrune pass, so that the jobs whose records that pass deleted go too. With
	// p.DryRun it counts and deletes nothing; its record error count leaves out the rows
	// RecordPrune counts (those of the job's own records).
	JobPrune(ctx context.Context, p *PruneParams) (*Pruned, error)
	// JobStats returns figures over every job, for metrics: the jobs in progress, and the
	// sources grouped by the status of their latest finished job. One call reads every job's row
	// (indexed by status and source); callers poll it, not once per record.
	JobStats(ctx context.Context) (*JobStats, error)
	// JobRedrive counts one re-drive of an orphaned job: when the job is in_progress, its
	// heartbeat is older than p.Before and it was re-driven fewer than p.Max times, it adds one
	// to the job's Redrives, sets its heartbeat to now and returns the job and true; otherwise
	// it changes nothing and returns the job as it is and false. ErrNotFound for an unknown job.
	JobRedrive(ctx context.Context, p *JobRedriveParams) (*HarvestJob, bool, error)
	// JobSetExpected records the job's expected outcome count and returns the job.
	JobSetExpected(ctx context.Context, p *JobSetExpectedParams) (*HarvestJob, error)
	// JobCountBehind returns how many jobs other than jobID are in progress with fewer than
	// settled outcomes settled: the running jobs that have had less of the pipeline (queued
	// jobs do not count: they use none of it).
	// EXTRACT's pacing reads it so that a big job's listing gives way to them
	// (extract.Config.JobWindow). One count over the job status index.
	JobCountBehind(ctx context.Context, jobID string, settled int) (int, error)
	// JobStartQueued moves the oldest new jobs to in_progress (heartbeat now) while fewer than
	// p.MaxInProgress jobs are in progress, atomically, and returns the jobs it started.
	JobStartQueued(ctx context.Context, p *JobStartQueuedParams) ([]*HarvestJob, error)

	// LeaderAcquire makes holder the one active scheduler, or keeps it so: call it on every
	// tick. It reports whether holder is the leader now. Postgres holds a session advisory lock
	// (released when the holder's connection dies); SQLite keeps a lease row that expires p.TTL
	// after the last call.
	LeaderAcquire(ctx context.Context, p *LeaderParams) (bool, error)
	// LeaderRelease gives up leadership if holder has it.
	LeaderRelease(ctx context.Context, p *LeaderParams) error

	// LinkResultGet returns the stored link check of each of urls that has one, by URL; a URL
	// never checked (or dropped) is missing from the map.
	LinkResultGet(ctx context.Context, urls []string) (map[string]*LinkResult, error)
	// LinkResultNewest returns the newest CheckedAt of the stored link checks (UTC), the zero
	// time when there is none: what a cached score depends on beside the records.
	LinkResultNewest(ctx context.Context) (time.Time, error)
	// LinkResultPrune drops the stored checks of URLs that no live dataset of any source uses
	// (DatasetLinkURLs over every source) and returns how many it dropped.
	LinkResultPrune(ctx context.Context) (int, error)
	// LinkResultUpsert writes rows as given (inserted, or replacing the row of their URL), in
	// one transaction; a later row of the same URL wins. The caller folds a new check into the
	// stored state (check.Fold, quality/assess.SaveChecks).
	LinkResultUpsert(ctx context.Context, rows []*LinkResult) error

	// Migrate applies the backend's embedded migrations that have not run yet.
	Migrate(ctx context.Context) error

	// OrganizationDelete deletes an organization: ErrNotFound if missing, ErrConflict while it
	// still has harvest sources.
	OrganizationDelete(ctx context.Context, id string) error
	// OrganizationDatasetCount counts the live datasets of an organization's sources (0 for an
	// unknown organization).
	OrganizationDatasetCount(ctx context.Context, id string) (int, error)
	// OrganizationFindBySlug returns the organization of slug (as in its public URLs,
	// /organization/{slug}/…), or ErrNotFound.
	OrganizationFindBySlug(ctx context.Context, slug string) (*Organization, error)
	// OrganizationGet returns one organization, or ErrNotFound.
	OrganizationGet(ctx context.Context, id string) (*Organization, error)
	// OrganizationImport creates the organization p.ID, or updates its name and slug
	// (ImportResult). ErrConflict when the slug is another organization's.
	OrganizationImport(ctx context.Context, p *OrganizationImportParams) (ImportResult, error)
	// OrganizationInsert creates an organization; ErrConflict when the slug is taken.
	OrganizationInsert(ctx context.Context, p *OrganizationInsertParams) (*Organization, error)
	// OrganizationList returns one page of organizations ordered by name, and their total.
	OrganizationList(ctx context.Context, p *PageParams) ([]*Organization, int, error)
	// OrganizationUpdate replaces an organization's name and slug: ErrNotFound, or ErrConflict
	// when the slug is taken.
	OrganizationUpdate(ctx context.Context, p *OrganizationUpdateParams) (*Organization, error)

	// OutcomeErroredStream calls fn with the key of each outcome of the job that settled as
	// errored, ordered by key, streaming rows; fn's error stops and is returned. An unknown job
	// has none.
	OutcomeErroredStream(ctx context.Context, jobID string, fn func(key string) error) error
	// OutcomeIdentifiers returns the identifiers of the job's records that settled with one of
	// p.Outcomes (keyed by identifier: a record keyed by its listing position has none), in
	// one query, ordered by identifier (the database's collation; bytes on SQLite): all of
	// them, or a page of p.Limit after p.After.
	OutcomeIdentifiers(ctx context.Context, p *OutcomeIdentifiersParams) ([]string, error)
	// OutcomeReopen re-opens one key of a job whose settled outcome is errored, for a replay
	// (harvester replay): the key's next OutcomeSettle is accepted even though the job has
	// finished. Until then the key still counts as errored, so the counts stay exact. It reports
	// whether the key was re-opened: false when the key has not settled, settled as anything but
	// errored, or is already re-opened (a replay in flight) since p.StaleBefore or later.
	OutcomeReopen(ctx context.Context, p *OutcomeReopenParams) (bool, error)
	// OutcomeReopenedCount returns how many keys of a job are re-opened and still wait for their
	// replayed outcome.
	OutcomeReopenedCount(ctx context.Context, jobID string) (int, error)
	// OutcomeSettle counts one record outcome of a job, atomically with its error rows (those
	// of p.Errors, then those p.CarriedFromRecordID or p.CarriedFromJobID carries from an
	// earlier job) and its
	// harvest_record status. It returns the job after counting and whether the outcome was new:
	// a key already settled for the job, or any outcome of a job that has finished (complete or
	// error: its counts are final), changes nothing and returns false. The one exception is the
	// first outcome of a key re-opened by OutcomeReopen, on a finished job or not: it replaces the
	// key's errored outcome (the job's errored count moves to the new outcome's count, validated
	// moves with it, total and settled stay), the key's error rows of the old outcome are
	// replaced by p.Errors, the record's status becomes p.Status, and the key is closed again.
	OutcomeSettle(ctx context.Context, p *OutcomeSettleParams) (*HarvestJob, bool, error)
	// OutcomeSettleBatch settles many outcomes in one transaction (the job aggregator's group
	// commit), each exactly as OutcomeSettle would have, in ps's order: a key that appears twice
	// counts once. It returns one result per params: the job after the whole batch, whether the
	// outcome was new, or the item's own error (ErrNotFound for a job that does not exist; an
	// error for an unknown outcome), which leaves the other items settled. A non-nil error fails
	// the whole batch, and nothing of it is written.
	OutcomeSettleBatch(ctx context.Context, ps []*OutcomeSettleParams) ([]*OutcomeSettled, error)

	// QualityAggregateHistory returns the quality aggregates of one scope and scope id
	// (QualityAggregateHistoryParams), oldest first (by ComputedAt, then JobID): the trend.
	QualityAggregateHistory(ctx context.Context, p *QualityAggregateHistoryParams) ([]*QualityAggregate, error)
	// QualityAggregateHistoryPage returns one page of that history, oldest first: page.Offset
	// rows skipped, at most page.Limit (PageParams.Bounds), p.Limit ignored; and how many rows
	// the history has in all. A page past the end is empty, with the total.
	QualityAggregateHistoryPage(ctx context.Context, p *QualityAggregateHistoryParams, page PageParams) ([]*QualityAggregate, int, error)
	// QualityAggregateLatest returns the newest aggregate of each scope id of scope, with its
	// Summary, ordered by scope id. For QualityScopeSource only the sources that exist are
	// returned, each with its current OrganizationID and SourceName.
	QualityAggregateLatest(ctx context.Context, scope string) ([]*QualityAggregate, error)
	// QualityAggregateSave writes rows in one transaction, each inserted or replacing the row
	// of its scope, scope id and job (a job's end recorded again writes the same rows).
	QualityAggregateSave(ctx context.Context, rows []*QualityAggregate) error
	// QualityChangeList returns the ids of the marks of changes to what the quality score of the
	// source sourceID reads (quality/assess.SourceQuality): a mark is written in the statement
	// that inserts, deletes or changes one of its live datasets (its set, record, identifier,
	// dcat, or held or live state, a job of another source's included), that changes the graph
	// or schema of a dataset's record or a record's validation rows (a carried copy of a row its
	// record already has is no change), and for every source when link checks are stored or
	// pruned (LinkResultUpsert, LinkResultPrune). The marks stay until QualityChangeDelete, so no
	// mark means that none of those inputs changed since the marks deleted last were read.
	QualityChangeList(ctx context.Context, sourceID string) ([]int64, error)
	// QualityChangeDelete deletes the marks ids (QualityChangeList); unknown ids are ignored.
	QualityChangeDelete(ctx context.Context, ids []int64) error
	// QualityReportGet returns the quality report of job jobID, or ErrNotFound when it has none
	// (its link checks have not settled, its source does not check links, or it is no harvest).
	QualityReportGet(ctx context.Context, jobID string) (*QualityReport, error)
	// QualityReportSave writes the quality report of r.JobID, replacing the one it had (a
	// redelivered event); ErrNotFound when r.SourceID is no source.
	QualityReportSave(ctx context.Context, r *QualityReport) error

	// RecordCount returns how many harvest_record rows a source has.
	RecordCount(ctx context.Context, sourceID string) (int, error)
	// RecordDeleteStream calls fn with the identifier of each delete record (action delete) of
	// a job, ordered by identifier, streaming rows; fn's error stops and is returned. A re-driven
	// job's deletes are the ones its first complete listing found, even after some were synced.
	RecordDeleteStream(ctx context.Context, jobID string, fn func(identifier string) error) error
	// RecordErrorList returns one page of a job's record error rows ordered by identifier, then
	// message, and the total number of rows of the job (of p.Severity only, when set). p.Limit
	// 0 means all.
	RecordErrorList(ctx context.Context, p *RecordErrorListParams) ([]*RecordError, int, error)
	// RecordErrorMessages groups a job's record error rows of p.Severity by type and message:
	// the p.Limit most frequent groups (0 is DefaultLimit), most rows first (then by message and
	// type), each with its row count and its first p.Examples rows' identifiers and record ids
	// (by identifier), and the number of groups in all.
	RecordErrorMessages(ctx context.Context, p *RecordErrorMessagesParams) ([]*RecordErrorMessage, int, error)
	// RecordErrorSummary counts a job's record errors by type and severity, the most frequent
	// first (then by type and severity).
	RecordErrorSummary(ctx context.Context, jobID string) ([]*RecordErrorCount, error)
	// RecordErrorStream calls fn with every record error row of a job in RecordErrorList's
	// order, streaming rows; fn's error stops and is returned.
	RecordErrorStream(ctx context.Context, jobID string, fn func(*RecordError) error) error
	// RecordGet returns one harvest_record, or ErrNotFound.
	RecordGet(ctx context.Context, recordID string) (*HarvestRecord, error)
	// RecordList returns one page of a job's harvest_record rows (of p.Action only, when set)
	// ordered by identifier, without their bodies (SourceRaw "" and SourceTransform nil: read
	// one record with RecordGet), and their total. A job with no records, or an unknown job,
	// has none.
	RecordList(ctx context.Context, p *RecordListParams) ([]*HarvestRecord, int, error)
	// RecordHistory returns a page of the records of one identifier of a source across its
	// jobs, newest first, and their total.
	RecordHistory(ctx context.Context, p *RecordHistoryParams) ([]*HarvestRecord, int, error)
	// RecordImport creates the harvest_record p.ID in status success, or updates it to p's
	// fields (ImportResult). ErrConflict when the job has another record of the identifier.
	RecordImport(ctx context.Context, p *RecordImportParams) (ImportResult, error)
	// RecordInsert writes a harvest_record row in status pending; inserting an id that exists
	// returns the existing row unchanged (redelivery). ErrJobEnded when the job has ended and
	// p is no replay, checked in the INSERT (nothing is written).
	RecordInsert(ctx context.Context, p *RecordInsertParams) (*HarvestRecord, error)
	// RecordLatest returns the newest record of (source, identifier) whose outcome is known to
	// compare against: status success, error_validation or error_transform. ErrNotFound if none.
	RecordLatest(ctx context.Context, p *RecordLatestParams) (*HarvestRecord, error)
	// RecordCompareBatch answers what COMPARE decides keys on, in one query (COMPARE's group
	// commit; SQLite takes one per 500 keys): for each key, in the keys' order, this job's stored
	// record, the newest record with a known outcome and whether a live dataset exists, with
	// RecordGet's, RecordLatest's and DatasetGet's meaning. It returns len(keys) results or an
	// error for all of them.
	RecordCompareBatch(ctx context.Context, keys []RecordCompareKey) ([]*RecordCompare, error)
	// RecordPrune deletes the record versions of one batch that the retention no longer keeps
	// (see prune.go): of the p.Limit harvest_record rows after p.After (by id), each whose job
	// has finished, that a newer record of its (source, identifier) written before p.Before
	// supersedes, that is not the newest record of its key with a known outcome (RecordLatest)
	// and that no dataset points at; with the error rows its own job wrote for it (rows that
	// later jobs carried from it stay theirs, unlinked), in one short transaction. With p.DryRun
	// it counts and deletes nothing.
	RecordPrune(ctx context.Context, p *PruneParams) (*Pruned, error)
	// RecordInsertBatch writes ps as RecordInsert does, in one statement (SQLite: one per 500
	// rows, in one transaction): every row or none. A row whose id exists is left unchanged
	// (redelivery), as is a later row of ps with the id of an earlier one; a row that conflicts
	// otherwise (its job and identifier taken by another id) fails the batch with ErrConflict,
	// an unknown job with ErrNotFound, a job that has ended (of a row that is no replay) with
	// ErrJobEnded.
	RecordInsertBatch(ctx context.Context, ps []*RecordInsertParams) error

	// ResourceIDs returns the fdkId of each of uris (a map by URI), minting the missing ones
	// with mint(uri) and keeping them (resource_identity), so an fdkId never changes once
	// given, even if mint does; global, not per source. Batched (a few statements per 500
	// URIs); repeated URIs are one. Concurrent calls agree: the first insert wins.
	ResourceIDs(ctx context.Context, uris []string, mint func(uri string) string) (map[string]string, error)

	// SessionDelete ends a web UI session: later SessionGet calls of its ID answer ErrNotFound,
	// in every process on the database. Deleting a missing session is no error.
	SessionDelete(ctx context.Context, id string) error
	// SessionGet returns the session with this ID: ErrNotFound if it was never inserted, was
	// deleted, or has expired.
	SessionGet(ctx context.Context, id string) (*Session, error)
	// SessionInsert records a web UI session that lasts until p.ExpiresAt, and deletes the
	// sessions that have expired (so the table holds only live ones). ErrConflict if the ID is
	// taken.
	SessionInsert(ctx context.Context, p *SessionInsertParams) error

	// SourceDelete deletes a source and its history: ErrNotFound if missing, ErrConflict while
	// it still has live datasets (clear it first) or an unfinished job.
	SourceDelete(ctx context.Context, id string) error
	// SourceEnsure returns the source with p.URL, creating it with p's fields when missing; an
	// existing source keeps its fields except schema_type, source_type and
	// collection_parent_url, which p updates, and waf_time_zone, which p updates when it gives one.
	SourceEnsure(ctx context.Context, p *SourceEnsureParams) (*Source, error)
	// SourceGet returns one source, or ErrNotFound.
	SourceGet(ctx context.Context, sourceID string) (*Source, error)
	// SourceImport creates the source p.ID, or updates its fields (ImportResult); a created
	// source's next run is one frequency after now (it is not due at once; none when manual),
	// an updated one keeps its schedule.
	// ErrConflict when the URL is another source's, ErrNotFound when the organization does not exist.
	SourceImport(ctx context.Context, p *SourceImportParams) (ImportResult, error)
	// SourceInsert creates a source: ErrConflict when the URL is taken, ErrNotFound when the
	// organization does not exist. NextRunAt is set from the frequency (now, unless manual).
	SourceInsert(ctx context.Context, p *SourceInsertParams) (*Source, error)
	// SourceList returns one page of sources ordered by name, optionally of one organization,
	// and their total.
	SourceList(ctx context.Context, p *SourceListParams) ([]*Source, int, error)
	// SourceSummaryList returns one page of sources ordered by name, each with its live and
	// held dataset counts and its newest job, in one query (the web UI's lists), and their total.
	// p.OrganizationID and p.LastJobStatus filter when set.
	SourceSummaryList(ctx context.Context, p *SourceSummaryListParams) ([]*SourceSummary, int, error)
	// SourceListDue returns the sources whose next run is at or before p.Now and that have no
	// unfinished job, oldest next run first.
	SourceListDue(ctx context.Context, p *SourceListDueParams) ([]*Source, error)
	// SourceScheduleNext sets a source's next run (nil: none).
	SourceScheduleNext(ctx context.Context, p *SourceScheduleNextParams) error
	// SourceUpdate replaces a source's editable fields: ErrNotFound, or ErrConflict when the
	// URL is taken. A changed frequency re-plans the next run from the last job's start (or
	// now when there is none); manual clears it.
	SourceUpdate(ctx context.Context, p *SourceUpdateParams) (*Source, error)
}

// Reachability is implemented by a store whose database can be away for a while (a server
// restarting): Unreachable says whether err means that, so that a stage retries the record
// until the database is back instead of giving up on it (router.Config.Unavailable).
type Reachability interface {
	Unreachable(err error) bool
}
