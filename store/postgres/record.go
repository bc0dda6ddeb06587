package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/store"
)

const recordColumns = `id, harvest_job_id, harvest_source_id, identifier, action, COALESCE(source_hash, ''),
	COALESCE(source_raw, ''), source_transform, status, COALESCE(schema_type, ''), date_created`

func scanRecord(row pgx.Row) (*store.Record, error) {
	var r store.Record
	var transform []byte // nil when NULL
	err := row.Scan(&r.ID, &r.JobID, &r.SourceID, &r.Identifier, &r.Action, &r.SourceHash, &r.SourceRaw,
		&transform, &r.Status, &r.SchemaType, &r.CreatedAt)
	if err != nil {
		return nil, interpretError(err)
	}
	r.SourceTransform = transform
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
		(id, harvest_job_id, harvest_source_id, identifier, action, source_hash, source_raw, schema_type, status)
		VALUES ($1, $2, $3, $4, $5, $6, $7, NULLIF($8, ''), 'pending') ON CONFLICT (id) DO NOTHING`,
		p.ID, p.JobID, p.SourceID, p.Identifier, p.Action, hash, raw, string(p.SchemaType))
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

const recordErrorColumns = `harvest_job_id, COALESCE(harvest_record_id::text, ''), identifier, type, message,
	severity, COALESCE(carried_from_job_id::text, '')`

func scanRecordError(row pgx.Row) (*store.RecordError, error) {
	var e store.RecordError
	if err := row.Scan(&e.JobID, &e.RecordID, &e.Identifier, &e.Type, &e.Message, &e.Severity, &e.CarriedFromJobID); err != nil {
		return nil, interpretError(err)
	}
	return &e, nil
}

// RecordErrorList implements store.Store.
func (s *Store) RecordErrorList(ctx context.Context, p *store.RecordErrorListParams) ([]*store.RecordError, int, error) {
	var total int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM harvest_record_error WHERE harvest_job_id = $1`,
		p.JobID).Scan(&total)
	if err != nil {
		return nil, 0, interpretError(err)
	}
	var limit *int // LIMIT NULL is no limit: Limit 0 means all rows here
	if p.Limit > 0 {
		limit = &p.Limit
	}
	rows, _ := s.pool.Query(ctx, `SELECT `+recordErrorColumns+` FROM harvest_record_error WHERE harvest_job_id = $1
		ORDER BY identifier, message, id LIMIT $2 OFFSET $3`, p.JobID, limit, max(p.Offset, 0))
	errs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (*store.RecordError, error) {
		return scanRecordError(row)
	})
	return errs, total, interpretError(err)
}

// RecordErrorStream implements store.Store.
func (s *Store) RecordErrorStream(ctx context.Context, jobID string, fn func(*store.RecordError) error) error {
	rows, err := s.pool.Query(ctx, `SELECT `+recordErrorColumns+` FROM harvest_record_error WHERE harvest_job_id = $1
		ORDER BY identifier, message, id`, jobID)
	if err != nil {
		return interpretError(err)
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanRecordError(rows)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return interpretError(rows.Err())
}

// RecordDeleteStream implements store.Store.
func (s *Store) RecordDeleteStream(ctx context.Context, jobID string, fn func(string) error) error {
	rows, err := s.pool.Query(ctx, `SELECT identifier FROM harvest_record
		WHERE harvest_job_id = $1 AND action = 'delete' ORDER BY identifier`, jobID)
	if err != nil {
		return interpretError(err)
	}
	defer rows.Close()
	var id string
	_, err = pgx.ForEachRow(rows, []any{&id}, func() error { return fn(id) })
	return interpretError(err)
}
