package sqlite

import (
	"context"
	"database/sql"

	"github.com/harvester-dev/harvester/store"
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
