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

// Run runs every conformance case as a parallel subtest of t. newStore is called once per case
// and must return an empty, migrated store that it closes at t's cleanup.
func Run(t *testing.T, newStore func(t *testing.T) store.Store) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newStore(t))
		})
	}
}

// cases is the whole suite, grouped by the noun of the method under test.
var cases = []testCase{
	{"Migrate/Again", testMigrateAgain},

	{"Source/EnsureCreates", testSourceEnsureCreates},
	{"Source/EnsureExisting", testSourceEnsureExisting},
	{"Source/GetNotFound", testSourceGetNotFound},

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

	{"Outcome/SettleOnce", testOutcomeSettleOnce},
	{"Outcome/SettleCounters", testOutcomeSettleCounters},
	{"Outcome/SettlePerJob", testOutcomeSettlePerJob},
	{"Outcome/SettleErrors", testOutcomeSettleErrors},
	{"Outcome/SettleRecordStatus", testOutcomeSettleRecordStatus},
	{"Outcome/SettleConcurrent", testOutcomeSettleConcurrent},

	{"Record/Insert", testRecordInsert},
	{"Record/InsertIdempotent", testRecordInsertIdempotent},
	{"Record/GetNotFound", testRecordGetNotFound},
	{"Record/Latest", testRecordLatest},
	{"Record/LatestNotFound", testRecordLatestNotFound},
	{"Record/LatestOtherSource", testRecordLatestOtherSource},
	{"Record/Count", testRecordCount},
	{"Record/ErrorListOrder", testRecordErrorListOrder},

	{"Dataset/UpsertCreates", testDatasetUpsertCreates},
	{"Dataset/UpsertUpdates", testDatasetUpsertUpdates},
	{"Dataset/UpsertSlugConflict", testDatasetUpsertSlugConflict},
	{"Dataset/GetNotFound", testDatasetGetNotFound},
	{"Dataset/List", testDatasetList},
	{"Dataset/Delete", testDatasetDelete},
	{"Dataset/ListUnseen", testDatasetListUnseen},
	{"Dataset/ListUnseenStops", testDatasetListUnseenStops},
	{"Dataset/DeleteDetection", testDatasetDeleteDetection},
}
