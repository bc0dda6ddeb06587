package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/store"
)

const organizationColumns = `id, name, slug, created_at`

func scanOrganization(row pgx.Row) (*store.Organization, error) {
	var o store.Organization
	if err := row.Scan(&o.ID, &o.Name, &o.Slug, &o.CreatedAt); err != nil {
		return nil, interpretError(err)
	}
	return &o, nil
}

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
		if err != nil {
			return err
		}
		if sources {
			return fmt.Errorf("%w: the organization has harvest sources", store.ErrConflict)
		}
		_, err = tx.Exec(ctx, `DELETE FROM organization WHERE id = $1`, id)
		return err
	})
	return interpretError(err)
}

// OrganizationGet implements store.Store.
func (s *Store) OrganizationGet(ctx context.Context, id string) (*store.Organization, error) {
	return scanOrganization(s.pool.QueryRow(ctx, `SELECT `+organizationColumns+` FROM organization WHERE id = $1`, id))
}

// OrganizationInsert implements store.Store.
func (s *Store) OrganizationInsert(ctx context.Context, p *store.OrganizationInsertParams) (*store.Organization, error) {
	return scanOrganization(s.pool.QueryRow(ctx, `INSERT INTO organization (name, slug) VALUES ($1, $2)
		RETURNING `+organizationColumns, p.Name, p.Slug))
}

// OrganizationList implements store.Store.
func (s *Store) OrganizationList(ctx context.Context, p *store.PageParams) ([]*store.Organization, int, error) {
	limit, offset := p.Bounds()
	var total int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM organization`).Scan(&total); err != nil {
		return nil, 0, interpretError(err)
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+organizationColumns+` FROM organization ORDER BY name, id
		LIMIT $1 OFFSET $2`, limit, offset)
	orgs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.Organization, error) {
		return scanOrganization(row)
	})
	return orgs, total, interpretError(err)
}

// OrganizationUpdate implements store.Store.
func (s *Store) OrganizationUpdate(ctx context.Context, p *store.OrganizationUpdateParams) (*store.Organization, error) {
	return scanOrganization(s.pool.QueryRow(ctx, `UPDATE organization SET name = $2, slug = $3 WHERE id = $1
		RETURNING `+organizationColumns, p.ID, p.Name, p.Slug))
}
