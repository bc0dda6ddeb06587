package postgres

import (
	"context"
	"fmt"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// DatasetUpsert implements store.Store.
func (s *Store) DatasetUpsert(ctx context.Context, p *store.DatasetUpsertParams) (*store.Dataset, error) {
	return scan.Dataset(s.q.QueryRow(ctx, `
		INSERT INTO dataset (slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date)
		VALUES ($1, $2, $3, $4, $5, now())
		ON CONFLICT (harvest_source_id, identifier) DO UPDATE SET dcat = EXCLUDED.dcat,
			harvest_record_id = EXCLUDED.harvest_record_id, last_harvested_date = EXCLUDED.last_harvested_date
		RETURNING `+sqlstore.DatasetColumns, p.Slug, p.Identifier, string(store.StorableJSON(p.DCAT)), p.SourceID, p.RecordID))
}

// DatasetUpsertBatch implements store.Store with one INSERT ... SELECT FROM unnest(...) ON
// CONFLICT DO UPDATE (bench: BenchmarkDatasetUpsert).
func (s *Store) DatasetUpsertBatch(ctx context.Context, ps []*store.DatasetUpsertParams) ([]*store.Dataset, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	type key struct{ source, identifier string }
	at := make(map[key]int, len(ps))
	slugs, identifiers, dcats, sources, records := make([]string, len(ps)), make([]string, len(ps)),
		make([]string, len(ps)), make([]string, len(ps)), make([]*string, len(ps))
	for i, p := range ps {
		k := key{p.SourceID, p.Identifier}
		if _, dup := at[k]; dup {
			return nil, fmt.Errorf("%w: dataset %q of source %s twice in one batch", store.ErrConflict, p.Identifier, p.SourceID)
		}
		at[k] = i
		slugs[i], identifiers[i], dcats[i], sources[i] = p.Slug, p.Identifier, string(store.StorableJSON(p.DCAT)), p.SourceID
		if p.RecordID != "" {
			records[i] = &p.RecordID
		}
	}
	rows := s.q.Query(ctx, `
		INSERT INTO dataset (slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date)
		SELECT v.slug, v.identifier, v.dcat::jsonb, v.source, v.record, now()
		FROM unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::uuid[]) AS v(slug, identifier, dcat, source, record)
		ON CONFLICT (harvest_source_id, identifier) DO UPDATE SET dcat = EXCLUDED.dcat,
			harvest_record_id = EXCLUDED.harvest_record_id, last_harvested_date = EXCLUDED.last_harvested_date
		RETURNING `+sqlstore.DatasetColumns, slugs, identifiers, dcats, sources, records)
	out := make([]*store.Dataset, len(ps))
	err := sqlstore.Each(rows, scan.Dataset, func(d *store.Dataset) error {
		out[at[key{d.SourceID, d.Identifier}]] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DatasetCount implements store.Store.
func (s *Store) DatasetCount(ctx context.Context, sourceID string) (int, error) {
	return sqlstore.Count(ctx, s.q, `SELECT count(*) FROM dataset WHERE harvest_source_id = $1`, sourceID)
}

// DatasetDelete implements store.Store.
func (s *Store) DatasetDelete(ctx context.Context, p *store.DatasetDeleteParams) (bool, error) {
	n, err := s.q.Exec(ctx, `DELETE FROM dataset WHERE harvest_source_id = $1 AND identifier = $2`,
		p.SourceID, p.Identifier)
	return n > 0, err
}

// DatasetGet implements store.Store.
func (s *Store) DatasetGet(ctx context.Context, p *store.DatasetGetParams) (*store.Dataset, error) {
	return scan.Dataset(s.q.QueryRow(ctx, `SELECT `+sqlstore.DatasetColumns+` FROM dataset
		WHERE harvest_source_id = $1 AND identifier = $2`, p.SourceID, p.Identifier))
}

// DatasetList implements store.Store.
func (s *Store) DatasetList(ctx context.Context, p *store.DatasetListParams) ([]*store.Dataset, error) {
	return sqlstore.Collect(s.q.Query(ctx, `SELECT `+sqlstore.DatasetColumns+` FROM dataset WHERE harvest_source_id = $1
		ORDER BY identifier`, p.SourceID), scan.Dataset)
}

// DatasetStream implements store.Store.
func (s *Store) DatasetStream(ctx context.Context, p *store.DatasetListParams, fn func(*store.Dataset) error) error {
	return sqlstore.Each(s.q.Query(ctx, `SELECT `+sqlstore.DatasetColumns+` FROM dataset
		WHERE $1 = '' OR harvest_source_id::text = $1 ORDER BY id`, p.SourceID), scan.Dataset, fn)
}

// DatasetListUnseen implements store.Store.
func (s *Store) DatasetListUnseen(ctx context.Context, p *store.DatasetListUnseenParams, fn func(string) error) error {
	return sqlstore.Each(s.q.Query(ctx, `SELECT d.identifier FROM dataset d
		WHERE d.harvest_source_id = $1 AND NOT EXISTS (SELECT 1 FROM harvest_job_identifier i
			WHERE i.harvest_job_id = $2 AND i.identifier = d.identifier)
		ORDER BY d.identifier`, p.SourceID, p.JobID), sqlstore.String, fn)
}
