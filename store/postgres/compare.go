package postgres

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// recordCompareSQL answers RecordCompareBatch with one statement over arrays of the keys: the
// key's own record by primary key, the newest comparable record by the harvest_record_current
// index (RecordLatest's WHERE and ORDER BY), the dataset by its unique key (DatasetGet): whether
// there is one, whether its cross-source duplicate standing is stale (sqlstore.StalePair) and
// whether another source's job moved it (store.RecordCompare.DuplicateMoved).
// Every lookup is a correlated subquery ended by OFFSET 0 (so never pulled up into a join): a
// generic plan made while the tables were near empty (the first batches of a first harvest)
// then still reads each key by its index, where it would otherwise hash-join or hash a
// subplan over a sequential scan of harvest_record or dataset on every call, for as long as
// the plan is cached.
var recordCompareSQL = `SELECT r.harvest_job_id::text, r.action, r.status, r.source_hash,
	l.id IS NOT NULL, COALESCE(l.id::text, ''), COALESCE(l.status, ''), COALESCE(l.source_hash, ''),
	COALESCE(l.action, ''), COALESCE(l.schema_type, ''), COALESCE(l.shacl_profile, ''), COALESCE(l.h2_source_hash, ''),
	d.id IS NOT NULL, COALESCE(d.stale, false), COALESCE(d.duplicate_moved, false)
FROM unnest($1::uuid[], $2::text[], $3::uuid[]) WITH ORDINALITY AS k(source_id, identifier, record_id, ord)
LEFT JOIN LATERAL (SELECT r.harvest_job_id, r.action, r.status, r.source_hash FROM harvest_record r WHERE r.id = k.record_id
	OFFSET 0) r ON true
LEFT JOIN LATERAL (SELECT h.id, h.status, h.source_hash, h.action, h.schema_type, h.shacl_profile, h.h2_source_hash FROM harvest_record h
	WHERE h.harvest_source_id = k.source_id AND h.identifier = k.identifier
		AND h.status IN ('success', 'error_validation', 'error_transform')
	ORDER BY h.date_created DESC LIMIT 1) l ON true
LEFT JOIN LATERAL (SELECT d.id, d.duplicate_moved,
		(d.duplicate_of IS NOT NULL OR EXISTS (SELECT 1 FROM dataset o WHERE o.duplicate_of = d.id OFFSET 0))
			AND ` + sqlstore.StalePair(" OFFSET 0") + ` AS stale
	FROM dataset d JOIN harvest_source p ON p.id = d.harvest_source_id
	WHERE d.harvest_source_id = k.source_id AND d.identifier = k.identifier OFFSET 0) d ON true
ORDER BY k.ord`

// RecordCompareBatch implements store.Store.
func (s *Store) RecordCompareBatch(ctx context.Context, keys []store.RecordCompareKey) ([]*store.RecordCompare, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	sources := make([]pgtype.UUID, len(keys))
	identifiers := make([]string, len(keys))
	records := make([]pgtype.UUID, len(keys))
	for i, k := range keys {
		sources[i], identifiers[i], records[i] = pgUUID(k.SourceID), k.Identifier, pgUUID(k.RecordID)
	}
	return sqlstore.Collect(s.q.Query(ctx, recordCompareSQL, sources, identifiers, records), scan.RecordCompare)
}

// RecordInsertBatch implements store.Store.
func (s *Store) RecordInsertBatch(ctx context.Context, ps []*store.RecordInsertParams) error {
	if len(ps) == 0 {
		return nil
	}
	n := len(ps)
	ids, jobs, sources := make([]string, n), make([]string, n), make([]string, n)
	identifiers, actions, hashes, raws, schemas, profiles := make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	var guarded guardedJobs
	for i, r := range ps {
		ids[i], jobs[i], sources[i], identifiers[i] = r.ID, r.JobID, r.SourceID, r.Identifier
		actions[i], hashes[i], raws[i], schemas[i] = string(r.Action), r.SourceHash, r.SourceRaw, string(r.SchemaType)
		profiles[i] = r.SHACLProfile
		if !r.Replay {
			guarded.add(r.JobID)
		}
	}
	// RecordInsert's statement over arrays: empty hash, raw, schema_type and profile are NULL, and
	// ON CONFLICT (id) DO NOTHING also skips a repeated id within the statement. It writes only
	// when every job it checks is open (share-locked), and says whether they were.
	var open bool
	err := s.pool.QueryRow(ctx, `WITH open AS (SELECT count(*) = $11 AS ok FROM (`+guarded.openSQL("$10")+`) j),
		ins AS (INSERT INTO harvest_record
			(id, harvest_job_id, harvest_source_id, identifier, action, source_hash, source_raw, schema_type,
				shacl_profile, status)
			SELECT id, job, src, identifier, action, NULLIF(hash, ''), NULLIF(raw, ''), NULLIF(schema, ''),
				NULLIF(profile, ''), 'pending'
			FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
				$9::text[]) AS k(id, job, src, identifier, action, hash, raw, schema, profile)
			WHERE (SELECT ok FROM open)
			ON CONFLICT (id) DO NOTHING RETURNING 1)
		SELECT ok FROM open`, ids, jobs, sources, identifiers, actions, hashes, raws, schemas, profiles,
		guarded.ids, len(guarded.ids)).Scan(&open)
	if err == nil && !open {
		return sqlstore.JobEnded(ctx, s.q, "a batch of records", guarded.ids...)
	}
	return interpretError(err)
}

// pgUUID is id as a uuid parameter, NULL (matching nothing) when it is not a UUID.
func pgUUID(id string) pgtype.UUID {
	u, err := uuid.Parse(id)
	if err != nil {
		return pgtype.UUID{}
	}
	return pgtype.UUID{Bytes: u, Valid: true}
}
