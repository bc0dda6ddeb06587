package postgres

import (
	"cmp"
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// OrganizationDelete implements store.Store.
func (s *Store) OrganizationDelete(ctx context.Context, id string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// harvest_source's foreign key cascades; the row lock makes concurrent source inserts
		// wait, so the check below sees every source the delete would take with it.
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM organization WHERE id = $1 FOR UPDATE`, id).Scan(&one); err != nil {
			return err
		}
		var sources bool
		err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM harvest_source WHERE organization_id = $1)`,
			id).Scan(&sources)
		if err := cmp.Or(err, sqlstore.OrganizationInUse(sources)); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM organization WHERE id = $1`, id)
		return err
	})
	return interpretError(err)
}

// OrganizationGet implements store.Store.
func (s *Store) OrganizationGet(ctx context.Context, id string) (*store.Organization, error) {
	return scan.Organization(s.q.QueryRow(ctx, `SELECT `+sqlstore.OrganizationColumns+` FROM organization WHERE id = $1`, id))
}

// OrganizationInsert implements store.Store.
func (s *Store) OrganizationInsert(ctx context.Context, p *store.OrganizationInsertParams) (*store.Organization, error) {
	return scan.Organization(s.q.QueryRow(ctx, `INSERT INTO organization (name, slug) VALUES ($1, $2)
		RETURNING `+sqlstore.OrganizationColumns, p.Name, p.Slug))
}

// OrganizationList implements store.Store.
func (s *Store) OrganizationList(ctx context.Context, p *store.PageParams) ([]*store.Organization, int, error) {
	limit, offset := p.Bounds()
	total, err := sqlstore.Count(ctx, s.q, `SELECT count(*) FROM organization`)
	if err != nil {
		return nil, 0, err
	}
	orgs, err := sqlstore.Collect(s.q.Query(ctx, `SELECT `+sqlstore.OrganizationColumns+` FROM organization ORDER BY name, id
		LIMIT $1 OFFSET $2`, limit, offset), scan.Organization)
	return orgs, total, err
}

// OrganizationUpdate implements store.Store.
func (s *Store) OrganizationUpdate(ctx context.Context, p *store.OrganizationUpdateParams) (*store.Organization, error) {
	return scan.Organization(s.q.QueryRow(ctx, `UPDATE organization SET name = $2, slug = $3 WHERE id = $1
		RETURNING `+sqlstore.OrganizationColumns, p.ID, p.Name, p.Slug))
}
