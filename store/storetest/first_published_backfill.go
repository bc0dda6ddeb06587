package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// FirstPublishedBackfillFrom is the last migration before the first-published table.
const FirstPublishedBackfillFrom = 19

// FirstPublishedBackfill (issue 34) checks the migration that adds the first-published table on
// a database that a tied source has taken over: s is a store migrated up to
// FirstPublishedBackfillFrom only, exec runs a statement on it, timeArg is a time as the
// backend stores it. The trusted source T published ds/0 in January, the hostile source H in
// February; T's dataset, gone for one harvest and written again in March, is held against H's
// (the old rule kept the dataset live first). After the migration, T published ds/0 first (its
// oldest record), so both sides of the pair are stale (their next harvests judge it again) and
// DatasetDuplicateFind says H's dataset does not outrank T's. H's id sorts first, so that the
// fallback without a row (the lower source id) would say the opposite.
func FirstPublishedBackfill(t *testing.T, s store.Store, exec func(query string, args ...any), timeArg func(time.Time) any) {
	ctx := t.Context()
	const (
		trusted, hostile   = "ffffffff-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"
		jan, feb, mar      = "10000000-0000-4000-8000-000000000001", "20000000-0000-4000-8000-000000000002", "30000000-0000-4000-8000-000000000003"
		recJan, recFeb     = "40000000-0000-4000-8000-000000000001", "50000000-0000-4000-8000-000000000002"
		recMar             = "60000000-0000-4000-8000-000000000003"
		dsTrusted, dsHeldH = "70000000-0000-4000-8000-000000000001", "80000000-0000-4000-8000-000000000002"
	)
	month := func(m time.Month) any { return timeArg(time.Date(2026, m, 1, 0, 0, 0, 0, time.UTC)) }
	for _, src := range [][2]string{{trusted, "Trusted"}, {hostile, "Hostile"}} {
		exec(`INSERT INTO harvest_source (id, name, url, source_type, schema_type, created_at, updated_at)
			VALUES ($1, $2, $3, 'document', 'dcatus1.1: federal', $4, $4)`, src[0], src[1],
			"https://"+src[1]+".example.gov/data.json", month(time.January))
	}
	for _, j := range []struct {
		id, src, rec string
		at           time.Month
	}{{jan, trusted, recJan, time.January}, {feb, hostile, recFeb, time.February}, {mar, trusted, recMar, time.March}} {
		exec(`INSERT INTO harvest_job (id, harvest_source_id, job_type, status, date_created, date_finished)
			VALUES ($1, $2, 'harvest', 'complete', $3, $3)`, j.id, j.src, month(j.at))
		exec(`INSERT INTO harvest_record (id, harvest_job_id, harvest_source_id, identifier, action, status, date_created)
			VALUES ($1, $2, $3, 'ds/0', 'create', 'success', $4)`, j.rec, j.id, j.src, month(j.at))
	}
	exec(`INSERT INTO dataset (id, slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date)
		VALUES ($1, 'hostile-ds-0', 'ds/0', '{}', $2, $3, $4)`, dsHeldH, hostile, recFeb, month(time.February))
	exec(`INSERT INTO dataset (id, slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date,
			duplicate_of, duplicate_match, duplicate_key, duplicate_job_id, duplicate_seen_at)
		VALUES ($1, 'trusted-ds-0', 'ds/0', '{}', $2, $3, $4, $5, 'identifier', 'ds/0', $6, $4)`,
		dsTrusted, trusted, recMar, month(time.March), dsHeldH, mar)

	require.NoError(t, s.Migrate(ctx))
	got, err := s.RecordCompareBatch(ctx, []store.RecordCompareKey{{SourceID: trusted, Identifier: "ds/0"},
		{SourceID: hostile, Identifier: "ds/0"}})
	require.NoError(t, err)
	require.True(t, got[0].DuplicateStale, "the trusted dataset is held against one it outranks")
	require.True(t, got[1].DuplicateStale, "one that outranks the hostile dataset is held against it")
	found, err := s.DatasetDuplicateFind(ctx, &store.DatasetDuplicateFindParams{DatasetID: dsTrusted, SourceID: trusted,
		Identifier: "ds/0"})
	require.NoError(t, err)
	require.Len(t, found, 1)
	require.Equal(t, dsHeldH, found[0].DatasetID)
	require.False(t, found[0].Outranks, "the trusted source published ds/0 first (January)")
}
