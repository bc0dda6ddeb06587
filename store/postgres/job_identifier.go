package postgres

import (
	"context"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
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

// JobIdentifierClaimBatch implements store.Store: one statement whatever the number of
// identifiers. The upsert takes over the rows of another listing (its WHERE) and leaves this
// listing's own; the SELECT beside it reads the statement's snapshot, from before the upsert:
// the rows this listing had claimed already, the repeats.
func (s *Store) JobIdentifierClaimBatch(ctx context.Context, p *store.JobIdentifierClaimBatchParams) (map[string]int, error) {
	ids, positions, repeats, err := sqlstore.DistinctClaims(p)
	if err != nil || len(ids) == 0 {
		return repeats, err
	}
	rows, err := s.pool.Query(ctx, `WITH claimed AS (
			INSERT INTO harvest_job_identifier AS j (harvest_job_id, identifier, first_position, listing)
			SELECT $1, b.identifier, b.first_position, $4 FROM unnest($2::text[], $3::int[]) AS b(identifier, first_position)
			ON CONFLICT (harvest_job_id, identifier) DO UPDATE
				SET first_position = excluded.first_position, listing = excluded.listing
				WHERE j.listing <> excluded.listing)
		SELECT identifier, first_position FROM harvest_job_identifier
		WHERE harvest_job_id = $1 AND listing = $4 AND identifier = ANY($2::text[])`,
		p.JobID, ids, positions, p.Listing)
	if err != nil {
		return nil, interpretError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var first int
		if err := rows.Scan(&id, &first); err != nil {
			return nil, err
		}
		repeats[id] = first
	}
	if err := rows.Err(); err != nil {
		return nil, interpretError(err)
	}
	return repeats, nil
}
