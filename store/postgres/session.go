package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/store"
)

// SessionDelete implements store.Store.
func (s *Store) SessionDelete(ctx context.Context, id string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM web_session WHERE id = $1`, id)
	return interpretError(err)
}

// SessionGet implements store.Store.
func (s *Store) SessionGet(ctx context.Context, id string) (*store.Session, error) {
	sess := &store.Session{ID: id}
	err := s.pool.QueryRow(ctx, `SELECT expires_at FROM web_session WHERE id = $1 AND expires_at > now()`, id).
		Scan(&sess.ExpiresAt)
	if err != nil {
		return nil, interpretError(err)
	}
	return sess, nil
}

// SessionInsert implements store.Store.
func (s *Store) SessionInsert(ctx context.Context, p *store.SessionInsertParams) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM web_session WHERE expires_at <= now()`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO web_session (id, expires_at) VALUES ($1, $2)`, p.ID, p.ExpiresAt.UTC())
		return err
	})
	return interpretError(err)
}
