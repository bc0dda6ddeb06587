package sqlite

import (
	"context"
	"database/sql"
	"errors"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// JobIdentifierAddBatch implements store.Store: one transaction of one prepared INSERT per
// identifier (SQLite's cost is the commit, not the statement).
func (s *Store) JobIdentifierAddBatch(ctx context.Context, p *store.JobIdentifierAddBatchParams) error {
	if len(p.Identifiers) == 0 {
		return nil
	}
	return interpretError(s.inTx(ctx, func(tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO harvest_job_identifier (harvest_job_id, identifier)
			VALUES (?, ?) ON CONFLICT DO NOTHING`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for _, identifier := range p.Identifiers {
			if _, err := stmt.ExecContext(ctx, p.JobID, identifier); err != nil {
				return err
			}
		}
		return nil
	}))
}

// JobIdentifierClaimBatch implements store.Store: one transaction of one prepared upsert per
// identifier, which returns a row when it claimed the identifier (new, or another listing's);
// an identifier it left alone is this listing's already, whose first position a SELECT reads.
func (s *Store) JobIdentifierClaimBatch(ctx context.Context, p *store.JobIdentifierClaimBatchParams) (map[string]int, error) {
	ids, positions, repeats, err := sqlstore.DistinctClaims(p)
	if err != nil || len(ids) == 0 {
		return repeats, err
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		claim, err := tx.PrepareContext(ctx, `INSERT INTO harvest_job_identifier (harvest_job_id, identifier, first_position, listing)
			VALUES (?1, ?2, ?3, ?4) ON CONFLICT (harvest_job_id, identifier) DO UPDATE
				SET first_position = excluded.first_position, listing = excluded.listing
				WHERE harvest_job_identifier.listing <> excluded.listing
			RETURNING 1`)
		if err != nil {
			return err
		}
		defer claim.Close()
		for i, id := range ids {
			var one int
			err := claim.QueryRowContext(ctx, p.JobID, id, positions[i], p.Listing).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				var first int
				if err := tx.QueryRowContext(ctx, `SELECT first_position FROM harvest_job_identifier
					WHERE harvest_job_id = ? AND identifier = ?`, p.JobID, id).Scan(&first); err != nil {
					return err
				}
				repeats[id] = first
				continue
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, interpretError(err)
	}
	return repeats, nil
}
