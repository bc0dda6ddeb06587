package postgres

// LeaderLockClass is the leader lock's first key, for tests that look for it in pg_locks.
const LeaderLockClass = leaderLockClass
