package postgres

import (
	"context"

	"github.com/harvester-dev/harvester/store"
)

// JobIdentifierAddBatch implements store.Store: one INSERT of the unnested array, a single round
// trip whatever the number of identifiers.
func (s *Store) JobIdentifierAddBatch(ctx context.Context, p *store.JobIdentifierAddBatchParams) error {
	if len(p.Identifiers) == 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO harvest_job_identifier (harvest_job_id, identifier)
		SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, p.JobID, p.Identifiers)
	return interpretError(err)
}
