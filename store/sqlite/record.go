package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/harvester-dev/harvester/store"
)

const recordColumns = `id, harvest_job_id, harvest_source_id, identifier, action, COALESCE(source_hash, ''),
	COALESCE(source_raw, ''), source_transform, status, COALESCE(schema_type, ''), date_created`

func scanRecord(row interface{ Scan(...any) error }) (*store.Record, error) {
	var r store.Record
	var created string
	var transform sql.NullString
	err := row.Scan(&r.ID, &r.JobID, &r.SourceID, &r.Identifier, &r.Action, &r.SourceHash, &r.SourceRaw,
		&transform, &r.Status, &r.SchemaType, &created)
	if err != nil {
		return nil, interpretError(err)
	}
	if transform.Valid {
		r.SourceTransform = json.RawMessage(transform.String)
	}
	r.CreatedAt, err = parseTime(created)
	return &r, err
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// RecordInsert implements store.Store.
func (s *Store) RecordInsert(ctx context.Context, p *store.RecordInsertParams) (*store.Record, error) {
	_, err := s.db.ExecContext(ctx, `INSERT INTO harvest_record
		(id, harvest_job_id, harvest_source_id, identifier, action, source_hash, source_raw, schema_type, status,
		date_created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?) ON CONFLICT (id) DO NOTHING`,
		p.ID, p.JobID, p.SourceID, p.Identifier, p.Action, nullable(p.SourceHash), nullable(p.SourceRaw),
		nullable(string(p.SchemaType)), now())
	if err != nil {
		return nil, interpretError(err)
	}
	return s.RecordGet(ctx, p.ID)
}

// RecordGet implements store.Store.
func (s *Store) RecordGet(ctx context.Context, recordID string) (*store.Record, error) {
	return scanRecord(s.db.QueryRowContext(ctx, `SELECT `+recordColumns+` FROM harvest_record WHERE id = ?`, recordID))
}

// RecordLatest implements store.Store.
func (s *Store) RecordLatest(ctx context.Context, p *store.RecordLatestParams) (*store.Record, error) {
	return scanRecord(s.db.QueryRowContext(ctx, `SELECT `+recordColumns+` FROM harvest_record
		WHERE harvest_source_id = ? AND identifier = ?
			AND status IN ('success', 'error_validation', 'error_transform')
		ORDER BY date_created DESC LIMIT 1`, p.SourceID, p.Identifier))
}

// RecordCount implements store.Store.
func (s *Store) RecordCount(ctx context.Context, sourceID string) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM harvest_record WHERE harvest_source_id = ?`, sourceID).Scan(&n)
	return n, interpretError(err)
}

const recordErrorColumns = `harvest_job_id, COALESCE(harvest_record_id, ''), identifier, type, message, severity,
	COALESCE(carried_from_job_id, '')`

// RecordErrorList implements store.Store.
func (s *Store) RecordErrorList(ctx context.Context, p *store.RecordErrorListParams) ([]*store.RecordError, int, error) {
	var total int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM harvest_record_error WHERE harvest_job_id = ?`,
		p.JobID).Scan(&total)
	if err != nil {
		return nil, 0, interpretError(err)
	}
	limit := -1 // no limit: Limit 0 means all rows here
	if p.Limit > 0 {
		limit = p.Limit
	}
	var out []*store.RecordError
	err = s.streamRecordErrors(ctx, `SELECT `+recordErrorColumns+` FROM harvest_record_error
		WHERE harvest_job_id = ? ORDER BY identifier, message, id LIMIT ? OFFSET ?`,
		[]any{p.JobID, limit, max(p.Offset, 0)}, func(e *store.RecordError) error {
			out = append(out, e)
			return nil
		})
	return out, total, err
}

// RecordErrorStream implements store.Store.
func (s *Store) RecordErrorStream(ctx context.Context, jobID string, fn func(*store.RecordError) error) error {
	return s.streamRecordErrors(ctx, `SELECT `+recordErrorColumns+` FROM harvest_record_error
		WHERE harvest_job_id = ? ORDER BY identifier, message, id`, []any{jobID}, fn)
}

// streamRecordErrors calls fn with each row of query; fn's error stops and is returned as is.
func (s *Store) streamRecordErrors(ctx context.Context, query string, args []any, fn func(*store.RecordError) error) error {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return interpretError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var e store.RecordError
		if err := rows.Scan(&e.JobID, &e.RecordID, &e.Identifier, &e.Type, &e.Message, &e.Severity, &e.CarriedFromJobID); err != nil {
			return interpretError(err)
		}
		if err := fn(&e); err != nil {
			return err
		}
	}
	return interpretError(rows.Err())
}

// RecordDeleteStream implements store.Store.
func (s *Store) RecordDeleteStream(ctx context.Context, jobID string, fn func(string) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT identifier FROM harvest_record
		WHERE harvest_job_id = ? AND action = 'delete' ORDER BY identifier`, jobID)
	if err != nil {
		return interpretError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return interpretError(err)
		}
		if err := fn(id); err != nil {
			return err
		}
	}
	return interpretError(rows.Err())
}
