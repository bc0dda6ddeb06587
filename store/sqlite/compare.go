package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// maxRowsPerStatement bounds the rows of one statement, so that its bound parameters (up to
// ten a row) stay well under SQLite's limit of 32,766.
const maxRowsPerStatement = 500

// recordCompareSQL answers RecordCompareBatch over a VALUES list of the keys (%s): the key's own
// record by primary key, the newest comparable record as RecordLatest finds it (SQLite has no
// LATERAL, so a correlated subquery picks its id) and the dataset as DatasetGet finds it:
// whether there is one, whether its cross-source duplicate standing is stale
// (sqlstore.StalePair) and whether another source's job moved it
// (store.RecordCompare.DuplicateMoved).
var recordCompareSQL = `WITH k(ord, source_id, identifier, record_id) AS (VALUES %s),
kl AS (SELECT k.*,
	(SELECT h.id FROM harvest_record h
		WHERE h.harvest_source_id = k.source_id AND h.identifier = k.identifier
			AND h.status IN ('success', 'error_validation', 'error_transform')
		ORDER BY h.date_created DESC LIMIT 1) AS latest_id,
	(SELECT d.id FROM dataset d WHERE d.harvest_source_id = k.source_id AND d.identifier = k.identifier) AS dataset_id
	FROM k)
SELECT r.harvest_job_id, r.action, r.status, r.source_hash,
	l.id IS NOT NULL, COALESCE(l.id, ''), COALESCE(l.status, ''), COALESCE(l.source_hash, ''),
	COALESCE(l.action, ''), COALESCE(l.schema_type, ''), COALESCE(l.shacl_profile, ''), COALESCE(l.h2_source_hash, ''),
	d.id IS NOT NULL,
	COALESCE((d.duplicate_of IS NOT NULL OR EXISTS (SELECT 1 FROM dataset o WHERE o.duplicate_of = d.id))
		AND ` + sqlstore.StalePair("") + `, false),
	COALESCE(d.duplicate_moved, false)
FROM kl LEFT JOIN harvest_record r ON r.id = kl.record_id LEFT JOIN harvest_record l ON l.id = kl.latest_id
LEFT JOIN dataset d ON d.id = kl.dataset_id LEFT JOIN harvest_source p ON p.id = d.harvest_source_id
ORDER BY kl.ord`

// RecordCompareBatch implements store.Store.
func (s *Store) RecordCompareBatch(ctx context.Context, keys []store.RecordCompareKey) ([]*store.RecordCompare, error) {
	out := make([]*store.RecordCompare, 0, len(keys))
	for keys := range slices.Chunk(keys, maxRowsPerStatement) {
		args := make([]any, 0, 4*len(keys))
		for i, k := range keys {
			args = append(args, i, k.SourceID, k.Identifier, k.RecordID)
		}
		got, err := sqlstore.Collect(s.q.Query(ctx, strings.Replace(recordCompareSQL, "%s", placeholders(len(keys), 4), 1), args...),
			scan.RecordCompare)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// RecordInsertBatch implements store.Store.
func (s *Store) RecordInsertBatch(ctx context.Context, ps []*store.RecordInsertParams) error {
	if len(ps) == 0 {
		return nil
	}
	// Each row gets its own date_created, a nanosecond apart in p's order, as RecordInsert
	// one at a time would give them.
	created := time.Now()
	return interpretError(s.inTx(ctx, func(tx *sql.Tx) error {
		if err := jobsOpen(ctx, tx, ps); err != nil {
			return err
		}
		for recs := range slices.Chunk(ps, maxRowsPerStatement) {
			args := make([]any, 0, 10*len(recs))
			for _, r := range recs {
				created = created.Add(time.Nanosecond)
				args = append(args, r.ID, r.JobID, r.SourceID, r.Identifier, r.Action, nullable(r.SourceHash),
					nullable(r.SourceRaw), nullable(string(r.SchemaType)), nullable(r.SHACLProfile), formatTime(created))
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO harvest_record
				(id, harvest_job_id, harvest_source_id, identifier, action, source_hash, source_raw, schema_type,
				shacl_profile, date_created, status) VALUES `+placeholders(len(recs), 10, "'pending'")+` ON CONFLICT (id) DO NOTHING`,
				args...)
			if err != nil {
				return err
			}
		}
		return nil
	}))
}

// jobsOpen returns store.ErrJobEnded when the job of a row of ps that is no replay has ended:
// checked in the write transaction that inserts them, which no JobFail can interleave with
// (write transactions run one at a time), so nothing is written for a job that ended.
func jobsOpen(ctx context.Context, tx *sql.Tx, ps []*store.RecordInsertParams) error {
	checked := map[string]bool{}
	for _, p := range ps {
		if p.Replay || checked[p.JobID] {
			continue
		}
		checked[p.JobID] = true
		var open bool
		if err := tx.QueryRowContext(ctx, `SELECT `+sqlstore.JobOpen("?", ""), p.JobID).Scan(&open); err != nil {
			return err
		}
		if !open {
			return sqlstore.JobEnded(ctx, querier{tx}, "a batch of records", p.JobID)
		}
	}
	return nil
}

// placeholders is rows parenthesised groups of cols "?" each, followed by the literal
// columns extra, joined by commas: placeholders(2, 2) is "(?, ?), (?, ?)".
func placeholders(rows, cols int, extra ...string) string {
	row := "(" + strings.Join(append(strings.Split(strings.Repeat("?", cols), ""), extra...), ", ") + ")"
	return strings.Repeat(row+", ", rows-1) + row
}
