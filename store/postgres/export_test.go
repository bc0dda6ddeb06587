package postgres

// LeaderLockClass is the leader lock's first key, for tests that look for it in pg_locks.
const LeaderLockClass = leaderLockClass

// LockJobsSQL is the statement by which a settle batch locks its jobs.
const LockJobsSQL = lockJobsSQL

// RecordCompareSQL is RecordCompareBatch's statement, for the plan test.
var RecordCompareSQL = recordCompareSQL
