package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/store"
)

const organizationColumns = `id, name, slug, created_at`

func scanOrganization(row interface{ Scan(...any) error }) (*store.Organization, error) {
	var o store.Organization
	var created string
	if err := row.Scan(&o.ID, &o.Name, &o.Slug, &created); err != nil {
		return nil, interpretError(err)
	}
	var err error
	o.CreatedAt, err = parseTime(created)
	return &o, err
}

// OrganizationDelete implements store.Store.
func (s *Store) OrganizationDelete(ctx context.Context, id string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// harvest_source's foreign key cascades, so the sources are checked first; the write
		// transaction keeps a source from being added in between.
		var sources bool
		err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM harvest_source WHERE organization_id = o.id)
			FROM organization o WHERE id = ?`, id).Scan(&sources)
		if err != nil {
			return err
		}
		if sources {
			return fmt.Errorf("%w: the organization has harvest sources", store.ErrConflict)
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM organization WHERE id = ?`, id)
		return err
	})
	return interpretError(err)
}

// OrganizationGet implements store.Store.
func (s *Store) OrganizationGet(ctx context.Context, id string) (*store.Organization, error) {
	return scanOrganization(s.db.QueryRowContext(ctx, `SELECT `+organizationColumns+` FROM organization WHERE id = ?`, id))
}

// OrganizationInsert implements store.Store.
func (s *Store) OrganizationInsert(ctx context.Context, p *store.OrganizationInsertParams) (*store.Organization, error) {
	return scanOrganization(s.db.QueryRowContext(ctx, `INSERT INTO organization (id, name, slug, created_at)
		VALUES (?, ?, ?, ?) RETURNING `+organizationColumns, uuid.NewString(), p.Name, p.Slug, now()))
}

// OrganizationList implements store.Store.
func (s *Store) OrganizationList(ctx context.Context, p *store.PageParams) ([]*store.Organization, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM organization`).Scan(&total); err != nil {
		return nil, 0, interpretError(err)
	}
	limit, offset := p.Bounds()
	rows, err := s.db.QueryContext(ctx, `SELECT `+organizationColumns+` FROM organization ORDER BY name, id
		LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, 0, interpretError(err)
	}
	defer rows.Close()
	var out []*store.Organization
	for rows.Next() {
		o, err := scanOrganization(rows)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, o)
	}
	return out, total, interpretError(rows.Err())
}

// OrganizationUpdate implements store.Store.
func (s *Store) OrganizationUpdate(ctx context.Context, p *store.OrganizationUpdateParams) (*store.Organization, error) {
	return scanOrganization(s.db.QueryRowContext(ctx, `UPDATE organization SET name = ?, slug = ? WHERE id = ?
		RETURNING `+organizationColumns, p.Name, p.Slug, p.ID))
}
