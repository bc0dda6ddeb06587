package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"

	"github.com/pressly/goose/v3"
)

// Migrate applies with goose the migrations in the migration/ folder of embedded (a backend's
// embedded migration/*.sql) to db, in the dialect given.
func Migrate(ctx context.Context, dialect goose.Dialect, db *sql.DB, embedded fs.FS, opts ...goose.ProviderOption) error {
	sub, err := fs.Sub(embedded, "migration")
	if err != nil {
		return err
	}
	p, err := goose.NewProvider(dialect, db, sub, opts...)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}
