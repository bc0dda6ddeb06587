package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// SessionDelete implements store.Store.
func (s *Store) SessionDelete(ctx context.Context, id string) error {
	_, err := s.db.ExecContext(ctx, `DELETE FROM web_session WHERE id = ?`, id)
	return interpretError(err)
}

// SessionGet implements store.Store.
func (s *Store) SessionGet(ctx context.Context, id string) (*store.Session, error) {
	var exp string
	err := s.db.QueryRowContext(ctx, `SELECT expires_at FROM web_session WHERE id = ? AND expires_at > ?`, id,
		formatTime(time.Now())).Scan(&exp)
	if err != nil {
		return nil, interpretError(err)
	}
	t, err := parseTime(exp)
	if err != nil {
		return nil, err
	}
	return &store.Session{ID: id, ExpiresAt: t}, nil
}

// SessionInsert implements store.Store.
func (s *Store) SessionInsert(ctx context.Context, p *store.SessionInsertParams) error {
	return interpretError(s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_session WHERE expires_at <= ?`, formatTime(time.Now())); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO web_session (id, expires_at) VALUES (?, ?)`, p.ID, formatTime(p.ExpiresAt))
		return err
	}))
}
