package sqlite

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// RecordInsert implements store.Store.
func (s *Store) RecordInsert(ctx context.Context, p *store.RecordInsertParams) (*store.HarvestRecord, error) {
	res, err := s.db.ExecContext(ctx, `INSERT INTO harvest_record
		(id, harvest_job_id, harvest_source_id, identifier, action, source_hash, source_raw, schema_type,
		shacl_profile, status, date_created) SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 'pending', ?10
		WHERE ?11 OR `+sqlstore.JobOpen("?2", "")+` ON CONFLICT (id) DO NOTHING`,
		p.ID, p.JobID, p.SourceID, p.Identifier, p.Action, nullable(p.SourceHash), nullable(p.SourceRaw),
		nullable(string(p.SchemaType)), nullable(p.SHACLProfile), now(), p.Replay)
	if err != nil {
		return nil, interpretError(err)
	}
	rec, err := s.RecordGet(ctx, p.ID)
	if n, _ := res.RowsAffected(); n == 0 && errors.Is(err, store.ErrNotFound) && !p.Replay {
		return nil, sqlstore.JobEnded(ctx, s.q, fmt.Sprintf("record %q", p.Identifier), p.JobID)
	}
	return rec, err
}

// RecordGet implements store.Store.
func (s *Store) RecordGet(ctx context.Context, recordID string) (*store.HarvestRecord, error) {
	return scan.Record(s.q.QueryRow(ctx, `SELECT `+sqlstore.RecordColumns+` FROM harvest_record WHERE id = ?`, recordID))
}

// RecordLatest implements store.Store.
func (s *Store) RecordLatest(ctx context.Context, p *store.RecordLatestParams) (*store.HarvestRecord, error) {
	return scan.Record(s.q.QueryRow(ctx, `SELECT `+sqlstore.RecordColumns+` FROM harvest_record
		WHERE harvest_source_id = ? AND identifier = ?
			AND status IN ('success', 'error_validation', 'error_transform')
		ORDER BY date_created DESC LIMIT 1`, p.SourceID, p.Identifier))
}

// RecordCount implements store.Store.
func (s *Store) RecordCount(ctx context.Context, sourceID string) (int, error) {
	return sqlstore.Count(ctx, s.q, `SELECT count(*) FROM harvest_record WHERE harvest_source_id = ?`, sourceID)
}

const recordErrorColumns = `harvest_job_id, COALESCE(harvest_record_id, ''), identifier, type, message, severity,
	COALESCE(carried_from_job_id, '')`

// RecordErrorList implements store.Store.
func (s *Store) RecordErrorList(ctx context.Context, p *store.RecordErrorListParams) ([]*store.RecordError, int, error) {
	total, err := sqlstore.Count(ctx, s.q, `SELECT count(*) FROM harvest_record_error
		WHERE harvest_job_id = ?1 AND (?2 = '' OR severity = ?2) AND (?3 = '' OR message = ?3)`,
		p.JobID, string(p.Severity), p.Message)
	if err != nil {
		return nil, 0, err
	}
	limit := -1 // no limit: Limit 0 means all rows here
	if p.Limit > 0 {
		limit = p.Limit
	}
	errs, err := sqlstore.Collect(s.q.Query(ctx, `SELECT `+recordErrorColumns+` FROM harvest_record_error
		WHERE harvest_job_id = ?1 AND (?2 = '' OR severity = ?2) AND (?5 = '' OR message = ?5)
		ORDER BY identifier, message, id LIMIT ?3 OFFSET ?4`,
		p.JobID, string(p.Severity), limit, max(p.Offset, 0), p.Message),
		scan.RecordError)
	return errs, total, err
}

// RecordErrorStream implements store.Store.
func (s *Store) RecordErrorStream(ctx context.Context, jobID string, fn func(*store.RecordError) error) error {
	return sqlstore.Each(s.q.Query(ctx, `SELECT `+recordErrorColumns+` FROM harvest_record_error
		WHERE harvest_job_id = ? ORDER BY identifier, message, id`, jobID), scan.RecordError, fn)
}

// RecordDeleteStream implements store.Store.
func (s *Store) RecordDeleteStream(ctx context.Context, jobID string, fn func(string) error) error {
	return sqlstore.Each(s.q.Query(ctx, `SELECT identifier FROM harvest_record
		WHERE harvest_job_id = ? AND action = 'delete' ORDER BY identifier`, jobID), sqlstore.String, fn)
}

// RecordHistory implements store.Store.
func (s *Store) RecordHistory(ctx context.Context, p *store.RecordHistoryParams) ([]*store.HarvestRecord, int, error) {
	limit, offset := p.Bounds()
	total, err := sqlstore.Count(ctx, s.q, `SELECT count(*) FROM harvest_record
		WHERE harvest_source_id = ? AND identifier = ?`, p.SourceID, p.Identifier)
	if err != nil {
		return nil, 0, err
	}
	recs, err := sqlstore.Collect(s.q.Query(ctx, `SELECT `+sqlstore.RecordColumns+` FROM harvest_record
		WHERE harvest_source_id = ? AND identifier = ? ORDER BY date_created DESC, id DESC LIMIT ? OFFSET ?`,
		p.SourceID, p.Identifier, limit, offset), scan.Record)
	return recs, total, err
}
