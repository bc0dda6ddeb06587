package sqlite

import (
	"context"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/store"
)

const sourceColumns = `id, name, url, source_type, schema_type, created_at`

func scanSource(row interface{ Scan(...any) error }) (*store.Source, error) {
	var s store.Source
	var created string
	if err := row.Scan(&s.ID, &s.Name, &s.URL, &s.SourceType, &s.SchemaType, &created); err != nil {
		return nil, interpretError(err)
	}
	var err error
	s.CreatedAt, err = parseTime(created)
	return &s, err
}

// SourceEnsure implements store.Store.
func (s *Store) SourceEnsure(ctx context.Context, p *store.SourceEnsureParams) (*store.Source, error) {
	t := now()
	return scanSource(s.db.QueryRowContext(ctx, `
		INSERT INTO harvest_source (id, name, url, source_type, schema_type, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (url) DO UPDATE SET schema_type = excluded.schema_type, updated_at = excluded.updated_at
		RETURNING `+sourceColumns, uuid.NewString(), p.Name, p.URL, p.SourceType, p.SchemaType, t, t))
}

// SourceGet implements store.Store.
func (s *Store) SourceGet(ctx context.Context, sourceID string) (*store.Source, error) {
	return scanSource(s.db.QueryRowContext(ctx, `SELECT `+sourceColumns+` FROM harvest_source WHERE id = ?`, sourceID))
}
