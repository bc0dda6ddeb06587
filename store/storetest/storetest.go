// Package storetest is the conformance suite every store.Store backend passes. A backend's
// test calls Run with a constructor; Run runs each case below as a named, parallel subtest on
// a fresh, empty, migrated store. Each case pins one documented contract of store.Store, so a
// change to the store's semantics lands here as a case first.
package storetest

import (
	"testing"

	"github.com/harvester-dev/harvester/store"
)

// testCase is one conformance case; run gets a store of its own.
type testCase struct {
	name string
	run  func(t *testing.T, s store.Store)
}

// NewStore returns an empty, migrated store that it closes at t's cleanup, and a function that
// opens another instance of the same database (closed at its own t's cleanup), as a second
// process would: the leader cases need two.
type NewStore func(t *testing.T) (s store.Store, open func(t *testing.T) store.Store)

// Run runs every conformance case as a parallel subtest of t. newStore is called once per case.
func Run(t *testing.T, newStore NewStore) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, open := newStore(t)
			c.run(t, &instance{Store: s, open: open, fresh: func(t *testing.T) store.Store {
				other, _ := newStore(t)
				return other
			}})
		})
	}
}

// instance is the store a case gets; it knows how to open another instance of its database,
// and how to make another database.
type instance struct {
	store.Store
	open  func(t *testing.T) store.Store
	fresh func(t *testing.T) store.Store
}

// otherInstance opens another Store on s's database.
func otherInstance(t *testing.T, s store.Store) store.Store {
	t.Helper()
	return s.(*instance).open(t)
}

// otherDatabase returns a store on another empty, migrated database of s's backend.
func otherDatabase(t *testing.T, s store.Store) store.Store {
	t.Helper()
	return s.(*instance).fresh(t)
}

// cases is the whole suite, grouped by the noun of the method under test.
var cases = []testCase{
	{"Migrate/Again", testMigrateAgain},
	{"Database/ID", testDatabaseID},

	{"Dataset/Page", testDatasetPage},
	{"Dataset/IDsInCreationOrder", testDatasetIDsInCreationOrder},
	{"Dataset/Find", testDatasetFind},

	{"Import/Idempotent", testImport},
	{"Import/NotDue", testImportNotDue},
	{"Import/TxRollsBack", testImportTxRollsBack},
	{"Import/TxRowConflict", testImportTxRowConflict},

	{"CrossSourceDuplicate/ListEmpty", testCrossSourceDuplicateListEmpty},
	{"CrossSourceDuplicate/KeepHold", testCrossSourceDuplicateKeepHold},
	{"CrossSourceDuplicate/Find", testCrossSourceDuplicateFind},
	{"CrossSourceDuplicate/Possible", testCrossSourceDuplicatePossible},
	{"CrossSourceDuplicate/Shared", testCrossSourceDuplicateShared},
	{"CrossSourceDuplicate/StaleFetch", testJobFetchLatestStaleDuplicate},
	{"CrossSourceDuplicate/FirstPublished", testCrossSourceDuplicateFirstPublished},
	{"CrossSourceDuplicate/FirstPublishedClear", testCrossSourceDuplicateFirstPublishedClear},
	{"CrossSourceDuplicate/FirstPublishedTie", testCrossSourceDuplicateFirstPublishedTie},
	{"CrossSourceDuplicate/FirstPublishedThree", testCrossSourceDuplicateFirstPublishedThree},

	{"Source/EnsureCreates", testSourceEnsureCreates},
	{"Source/EnsureExisting", testSourceEnsureExisting},
	{"Source/GetNotFound", testSourceGetNotFound},
	{"Source/Insert", testSourceInsert},
	{"Source/InsertDefaults", testSourceInsertDefaults},
	{"Source/InsertConflict", testSourceInsertConflict},
	{"Source/List", testSourceList},
	{"Source/Update", testSourceUpdate},
	{"Source/UpdateErrors", testSourceUpdateErrors},
	{"Source/UpdateReplan", testSourceUpdateReplan},
	{"Source/ScheduleNext", testSourceScheduleNext},
	{"Source/ListDue", testSourceListDue},
	{"Source/Delete", testSourceDelete},
	{"Source/DeleteConflict", testSourceDeleteConflict},

	{"LinkResult/Upsert", testLinkResultUpsert},
	{"LinkResult/ChangeMarks", testLinkChangeMarks},
	{"Dataset/ChangeMarks", testDatasetChangeMarks},
	{"LinkResult/DatasetQualityStream", testDatasetQualityStream},
	{"LinkResult/DatasetFindings", testDatasetFindings},
	{"LinkResult/DatasetGraphs", testDatasetGraphs},
	{"LinkResult/Newest", testLinkResultNewest},
	{"QualityAggregate", testQualityAggregate},
	{"QualityReport", testQualityReport},
	{"Organization/Insert", testOrganizationInsert},
	{"Organization/GetNotFound", testOrganizationGetNotFound},
	{"Organization/FindBySlug", testOrganizationFindBySlug},
	{"Organization/Update", testOrganizationUpdate},
	{"Organization/List", testOrganizationList},
	{"Organization/Delete", testOrganizationDelete},

	{"Job/Insert", testJobInsert},
	{"Job/GetNotFound", testJobGetNotFound},
	{"Job/InsertOneInProgress", testJobInsertOneInProgress},
	{"Job/InsertAfterFinish", testJobInsertAfterFinish},
	{"Job/InsertAfterFail", testJobInsertAfterFail},
	{"Job/Fail", testJobFail},
	{"Job/FailFinished", testJobFailFinished},
	{"Job/SetExpected", testJobSetExpected},
	{"Job/FinishWaitsForExpected", testJobFinishWaitsForExpected},
	{"Job/FinishNothingExpected", testJobFinishNothingExpected},
	{"Job/FinishFailed", testJobFinishFailed},
	{"Job/FinishConcurrent", testJobFinishConcurrent},
	{"Job/InsertQueued", testJobInsertQueued},
	{"Job/InsertOneUnfinished", testJobInsertOneUnfinished},
	{"Job/InsertUnknownSource", testJobInsertUnknownSource},
	{"Job/FailQueued", testJobFailQueued},
	{"Job/List", testJobList},
	{"Job/ListDefaultLimit", testJobListDefaultLimit},
	{"Job/StartQueuedCap", testJobStartQueuedCap},
	{"Job/CountBehind", testJobCountBehind},
	{"Job/StartQueuedCountsRunning", testJobStartQueuedCountsRunning},
	{"Job/StartQueuedConcurrent", testJobStartQueuedConcurrent},
	{"Job/Heartbeat", testJobHeartbeat},
	{"Job/ListOrphaned", testJobListOrphaned},
	{"Job/FetchLatest", testJobFetchLatest},
	{"Job/FetchLatestUnsettled", testJobFetchLatestUnsettled},
	{"Job/FetchLatestStageError", testJobFetchLatestStageError},
	{"Job/FetchLatestAfterCancel", testJobFetchLatestAfterCancel},
	{"Job/FailSettlesPending", testJobFailSettlesPending},
	{"Job/FailRacingWrites", testJobFailRacingWrites},
	{"Job/WritesAfterEnd", testJobWritesAfterEnd},
	{"Job/Redrive", testJobRedrive},

	{"Leader/Exclusive", testLeaderExclusive},
	{"Leader/CloseWithoutRelease", testLeaderCloseWithoutRelease},

	{"Session/Lifecycle", testSessionLifecycle},
	{"Session/Expired", testSessionExpired},

	{"Outcome/SettleOnce", testOutcomeSettleOnce},
	{"Outcome/SettleTransform", testOutcomeSettleTransform},
	{"Source/CollectionParent", testSourceCollectionParent},
	{"Source/WAFTimeZone", testSourceWAFTimeZone},
	{"Outcome/SettleAfterFinish", testOutcomeSettleAfterFinish},
	{"Outcome/SettleCounters", testOutcomeSettleCounters},
	{"Outcome/SettlePerJob", testOutcomeSettlePerJob},
	{"Outcome/SettleErrors", testOutcomeSettleErrors},
	{"Outcome/SettleCarriesErrors", testOutcomeSettleCarriesErrors},
	{"Outcome/SettleCarriesJobErrors", testOutcomeSettleCarriesJobErrors},
	{"Outcome/SettleClipsErrorIdentifier", testOutcomeSettleClipsErrorIdentifier},
	{"Outcome/SettleRecordStatus", testOutcomeSettleRecordStatus},
	{"Outcome/SettleConcurrent", testOutcomeSettleConcurrent},
	{"Outcome/SettleBatch", testOutcomeSettleBatch},
	{"Outcome/SettleBatchReopened", testOutcomeSettleBatchReopened},
	{"Outcome/ReopenMovesCounts", testOutcomeReopenMovesCounts},
	{"Outcome/ReopenFailsAgain", testOutcomeReopenFailsAgain},
	{"Outcome/ReopenStale", testOutcomeReopenStale},
	{"Outcome/ReopenConcurrent", testOutcomeReopenConcurrent},

	{"Record/Insert", testRecordInsert},
	{"Record/InsertIdempotent", testRecordInsertIdempotent},
	{"Record/GetNotFound", testRecordGetNotFound},
	{"Record/Latest", testRecordLatest},
	{"Record/LatestNotFound", testRecordLatestNotFound},
	{"Record/LatestOtherSource", testRecordLatestOtherSource},
	{"Record/Count", testRecordCount},
	{"Record/ErrorListOrder", testRecordErrorListOrder},
	{"Record/ErrorListPage", testRecordErrorListPage},
	{"Record/ErrorListSeverity", testRecordErrorListSeverity},
	{"Record/ErrorStream", testRecordErrorStream},
	{"Record/DeleteStream", testRecordDeleteStream},

	{"Dataset/UpsertCreates", testDatasetUpsertCreates},
	{"Dataset/UpsertUpdates", testDatasetUpsertUpdates},
	{"Dataset/UpsertSlugConflict", testDatasetUpsertSlugConflict},
	{"Dataset/UpsertBatch", testDatasetUpsertBatch},
	{"Dataset/UpsertBatchConflict", testDatasetUpsertBatchConflict},
	{"Dataset/UpsertBatchAltSlug", testDatasetUpsertBatchAltSlug},
	{"Dataset/UpsertBatchAltSlugTaken", testDatasetUpsertBatchAltSlugTaken},
	{"Dataset/UpsertBatchTwoWantOneSlug", testDatasetUpsertBatchTwoWantOneSlug},
	{"CrossSourceDuplicate/PossibleSupersetRandom", testCrossSourceDuplicatePossibleRandom},
	{"Dataset/RecordType", testDatasetRecordType},
	{"Dataset/GetNotFound", testDatasetGetNotFound},
	{"Dataset/List", testDatasetList},
	{"Dataset/Stream", testDatasetStream},
	{"Dataset/Delete", testDatasetDelete},
	{"Dataset/ListUnseen", testDatasetListUnseen},
	{"Dataset/ListUnseenStops", testDatasetListUnseenStops},
	{"Dataset/DeleteDetection", testDatasetDeleteDetection},
	{"Dataset/Count", testDatasetCount},
	{"Dataset/Any", testDatasetAny},
	{"Dataset/FindElsewhere", testDatasetFindElsewhere},
	{"Source/PortalTypes", testSourcePortalTypes},

	{"Job/IdentifierAddBatch", testJobIdentifierAddBatch},
	{"Job/IdentifierAddBatchUnknownJob", testJobIdentifierAddBatchUnknownJob},
	{"Job/IdentifierClaimBatch", testJobIdentifierClaimBatch},
	{"Record/CompareBatch", testRecordCompareBatch},
	{"Record/CompareSHACLProfile", testRecordCompareSHACLProfile},
	{"Record/CompareBatchLarge", testRecordCompareBatchLarge},
	{"Record/InsertBatch", testRecordInsertBatch},
	{"Record/InsertBatchFails", testRecordInsertBatchFails},

	{"Dataset/UpsertUnstorableEscapes", testDatasetUpsertUnstorableEscapes},
	{"Outcome/SettleTransformUnstorableEscapes", testOutcomeSettleTransformUnstorableEscapes},
	{"Malformed/IDs", testMalformedIDs},

	{"Source/FetchSettings", testSourceFetchSettings},
	{"Source/SummaryList", testSourceSummaryList},
	{"Source/Health", testSourceHealth},
	{"Record/History", testRecordHistory},
	{"Record/ErrorSummary", testRecordErrorSummary},
	{"Record/List", testRecordList},
	{"Record/ErrorMessages", testRecordErrorMessages},
	{"Job/CountsSince", testJobCountsSince},
	{"Resource/IDs", testResourceIDs},
	{"Catalog/Checksums", testCatalogChecksums},
	{"Outcome/Identifiers", testOutcomeIdentifiers},
	{"Job/FetchGraphHash", testJobFetchGraphHash},
	{"Job/StatsEmpty", testJobStatsEmpty},

	{"Prune/Records", testPruneRecords},
	{"Prune/Jobs", testPruneJobs},
	{"Prune/JobsOfPrunedRecords", testPruneJobsOfPrunedRecords},
	{"Job/Stats", testJobStats},
}
