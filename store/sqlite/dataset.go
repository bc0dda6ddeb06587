package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// DatasetUpsert implements store.Store.
func (s *Store) DatasetUpsert(ctx context.Context, p *store.DatasetUpsertParams) (*store.Dataset, error) {
	return scan.Dataset(s.q.QueryRow(ctx, `
		INSERT INTO dataset (id, slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (harvest_source_id, identifier) DO UPDATE SET dcat = excluded.dcat,
			harvest_record_id = excluded.harvest_record_id, last_harvested_date = excluded.last_harvested_date
		RETURNING `+sqlstore.DatasetColumns, uuid.NewString(), p.Slug, p.Identifier, string(store.StorableJSON(p.DCAT)), p.SourceID, p.RecordID, now()))
}

// DatasetUpsertBatch implements store.Store: the upserts in one transaction.
func (s *Store) DatasetUpsertBatch(ctx context.Context, ps []*store.DatasetUpsertParams) ([]*store.Dataset, error) {
	type key struct{ source, identifier string }
	seen := make(map[key]bool, len(ps))
	for _, p := range ps {
		k := key{p.SourceID, p.Identifier}
		if seen[k] {
			return nil, fmt.Errorf("%w: dataset %q of source %s twice in one batch", store.ErrConflict, p.Identifier, p.SourceID)
		}
		seen[k] = true
	}
	out := make([]*store.Dataset, len(ps))
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		t := now()
		for i, p := range ps {
			d, err := scan.Dataset(querier{tx}.QueryRow(ctx, `
				INSERT INTO dataset (id, slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date)
				VALUES (?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (harvest_source_id, identifier) DO UPDATE SET dcat = excluded.dcat,
					harvest_record_id = excluded.harvest_record_id, last_harvested_date = excluded.last_harvested_date
				RETURNING `+sqlstore.DatasetColumns, uuid.NewString(), p.Slug, p.Identifier, string(store.StorableJSON(p.DCAT)), p.SourceID, p.RecordID, t))
			if err != nil {
				return err
			}
			out[i] = d
		}
		return nil
	})
	if err != nil {
		return nil, interpretError(err)
	}
	return out, nil
}

// DatasetCount implements store.Store.
func (s *Store) DatasetCount(ctx context.Context, sourceID string) (int, error) {
	return sqlstore.Count(ctx, s.q, `SELECT count(*) FROM dataset WHERE harvest_source_id = ?`, sourceID)
}

// DatasetDelete implements store.Store.
func (s *Store) DatasetDelete(ctx context.Context, p *store.DatasetDeleteParams) (bool, error) {
	n, err := s.q.Exec(ctx, `DELETE FROM dataset WHERE harvest_source_id = ? AND identifier = ?`,
		p.SourceID, p.Identifier)
	return n > 0, err
}

// DatasetGet implements store.Store.
func (s *Store) DatasetGet(ctx context.Context, p *store.DatasetGetParams) (*store.Dataset, error) {
	return scan.Dataset(s.q.QueryRow(ctx, `SELECT `+sqlstore.DatasetColumns+` FROM dataset
		WHERE harvest_source_id = ? AND identifier = ?`, p.SourceID, p.Identifier))
}

// DatasetList implements store.Store.
func (s *Store) DatasetList(ctx context.Context, p *store.DatasetListParams) ([]*store.Dataset, error) {
	return sqlstore.Collect(s.q.Query(ctx, `SELECT `+sqlstore.DatasetColumns+` FROM dataset WHERE harvest_source_id = ?
		ORDER BY identifier`, p.SourceID), scan.Dataset)
}

// DatasetStream implements store.Store.
func (s *Store) DatasetStream(ctx context.Context, p *store.DatasetListParams, fn func(*store.Dataset) error) error {
	return sqlstore.Each(s.q.Query(ctx, `SELECT `+sqlstore.DatasetColumns+` FROM dataset
		WHERE ? = '' OR harvest_source_id = ? ORDER BY id`, p.SourceID, p.SourceID), scan.Dataset, fn)
}

// DatasetListUnseen implements store.Store.
func (s *Store) DatasetListUnseen(ctx context.Context, p *store.DatasetListUnseenParams, fn func(string) error) error {
	return sqlstore.Each(s.q.Query(ctx, `SELECT d.identifier FROM dataset d
		WHERE d.harvest_source_id = ? AND NOT EXISTS (SELECT 1 FROM harvest_job_identifier i
			WHERE i.harvest_job_id = ? AND i.identifier = d.identifier)
		ORDER BY d.identifier`, p.SourceID, p.JobID), sqlstore.String, fn)
}
