package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/store"
)

const recordColumns = `id, harvest_job_id, harvest_source_id, identifier, action, COALESCE(source_hash, ''),
	COALESCE(source_raw, ''), status, date_created`

func scanRecord(row pgx.Row) (*store.Record, error) {
	var r store.Record
	err := row.Scan(&r.ID, &r.JobID, &r.SourceID, &r.Identifier, &r.Action, &r.SourceHash, &r.SourceRaw,
		&r.Status, &r.CreatedAt)
	if err != nil {
		return nil, interpretError(err)
	}
	return &r, nil
}

// RecordInsert implements store.Store.
func (s *Store) RecordInsert(ctx context.Context, p *store.RecordInsertParams) (*store.Record, error) {
	var hash, raw *string
	if p.SourceHash != "" {
		hash = &p.SourceHash
	}
	if p.SourceRaw != "" {
		raw = &p.SourceRaw
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO harvest_record
		(id, harvest_job_id, harvest_source_id, identifier, action, source_hash, source_raw, status)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending') ON CONFLICT (id) DO NOTHING`,
		p.ID, p.JobID, p.SourceID, p.Identifier, p.Action, hash, raw)
	if err != nil {
		return nil, interpretError(err)
	}
	return s.RecordGet(ctx, p.ID)
}

// RecordGet implements store.Store.
func (s *Store) RecordGet(ctx context.Context, recordID string) (*store.Record, error) {
	return scanRecord(s.pool.QueryRow(ctx, `SELECT `+recordColumns+` FROM harvest_record WHERE id = $1`, recordID))
}

// RecordLatest implements store.Store.
func (s *Store) RecordLatest(ctx context.Context, p *store.RecordLatestParams) (*store.Record, error) {
	return scanRecord(s.pool.QueryRow(ctx, `SELECT `+recordColumns+` FROM harvest_record
		WHERE harvest_source_id = $1 AND identifier = $2
			AND status IN ('success', 'error_validation', 'error_transform')
		ORDER BY date_created DESC LIMIT 1`, p.SourceID, p.Identifier))
}

// RecordCount implements store.Store.
func (s *Store) RecordCount(ctx context.Context, sourceID string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM harvest_record WHERE harvest_source_id = $1`, sourceID).Scan(&n)
	return n, interpretError(err)
}

// RecordErrorList implements store.Store.
func (s *Store) RecordErrorList(ctx context.Context, jobID string) ([]*store.RecordError, error) {
	rows, _ := s.pool.Query(ctx, `SELECT harvest_job_id, COALESCE(harvest_record_id::text, ''), identifier, type,
		message, severity FROM harvest_record_error WHERE harvest_job_id = $1 ORDER BY identifier, message, id`, jobID)
	errs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.RecordError, error) {
		var e store.RecordError
		return &e, row.Scan(&e.JobID, &e.RecordID, &e.Identifier, &e.Type, &e.Message, &e.Severity)
	})
	return errs, interpretError(err)
}
