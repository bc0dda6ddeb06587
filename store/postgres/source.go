package postgres

import (
	"context"

	"github.com/harvester-dev/harvester/store"
)

const sourceColumns = `id, name, url, source_type, schema_type, created_at`

func scanSource(row interface{ Scan(...any) error }) (*store.Source, error) {
	var s store.Source
	err := row.Scan(&s.ID, &s.Name, &s.URL, &s.SourceType, &s.SchemaType, &s.CreatedAt)
	if err != nil {
		return nil, interpretError(err)
	}
	return &s, nil
}

// SourceEnsure implements store.Store.
func (s *Store) SourceEnsure(ctx context.Context, p *store.SourceEnsureParams) (*store.Source, error) {
	return scanSource(s.pool.QueryRow(ctx, `
		INSERT INTO harvest_source (name, url, source_type, schema_type) VALUES ($1, $2, $3, $4)
		ON CONFLICT (url) DO UPDATE SET schema_type = EXCLUDED.schema_type, updated_at = now()
		RETURNING `+sourceColumns, p.Name, p.URL, p.SourceType, p.SchemaType))
}

// SourceGet implements store.Store.
func (s *Store) SourceGet(ctx context.Context, sourceID string) (*store.Source, error) {
	return scanSource(s.pool.QueryRow(ctx, `SELECT `+sourceColumns+` FROM harvest_source WHERE id = $1`, sourceID))
}
