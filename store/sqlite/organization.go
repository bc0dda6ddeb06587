package sqlite

import (
	"cmp"
	"context"
	"database/sql"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// OrganizationDelete implements store.Store.
func (s *Store) OrganizationDelete(ctx context.Context, id string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// harvest_source's foreign key cascades, so the sources are checked first; the write
		// transaction keeps a source from being added in between.
		var sources bool
		err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM harvest_source WHERE organization_id = o.id)
			FROM organization o WHERE id = ?`, id).Scan(&sources)
		if err := cmp.Or(err, sqlstore.OrganizationInUse(sources)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM organization WHERE id = ?`, id)
		return err
	})
	return interpretError(err)
}

// OrganizationGet implements store.Store.
func (s *Store) OrganizationGet(ctx context.Context, id string) (*store.Organization, error) {
	return scan.Organization(s.q.QueryRow(ctx, `SELECT `+sqlstore.OrganizationColumns+` FROM organization WHERE id = ?`, id))
}

// OrganizationInsert implements store.Store.
func (s *Store) OrganizationInsert(ctx context.Context, p *store.OrganizationInsertParams) (*store.Organization, error) {
	return scan.Organization(s.q.QueryRow(ctx, `INSERT INTO organization (id, name, slug, created_at)
		VALUES (?, ?, ?, ?) RETURNING `+sqlstore.OrganizationColumns, uuid.NewString(), p.Name, p.Slug, now()))
}

// OrganizationList implements store.Store.
func (s *Store) OrganizationList(ctx context.Context, p *store.PageParams) ([]*store.Organization, int, error) {
	total, err := sqlstore.Count(ctx, s.q, `SELECT count(*) FROM organization`)
	if err != nil {
		return nil, 0, err
	}
	limit, offset := p.Bounds()
	orgs, err := sqlstore.Collect(s.q.Query(ctx, `SELECT `+sqlstore.OrganizationColumns+` FROM organization ORDER BY name, id
		LIMIT ? OFFSET ?`, limit, offset), scan.Organization)
	return orgs, total, err
}

// OrganizationUpdate implements store.Store.
func (s *Store) OrganizationUpdate(ctx context.Context, p *store.OrganizationUpdateParams) (*store.Organization, error) {
	return scan.Organization(s.q.QueryRow(ctx, `UPDATE organization SET name = ?, slug = ? WHERE id = ?
		RETURNING `+sqlstore.OrganizationColumns, p.Name, p.Slug, p.ID))
}
