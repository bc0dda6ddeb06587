package sqlstore

import (
	"context"

	"github.com/harvester-dev/harvester/store"
)

// recordListColumns are RecordColumns without the bodies: an empty source_raw and a NULL
// source_transform (of the column's own type, so that each driver scans it as it does the
// column).
const recordListColumns = `id, harvest_job_id, harvest_source_id, identifier, action, COALESCE(source_hash, ''),
	'', CASE WHEN 1 = 0 THEN source_transform END, status, COALESCE(schema_type, ''), date_created`

// RecordList implements store.Store: the job's records by identifier, through the
// (harvest_job_id, identifier) unique index.
func (s *Store) RecordList(ctx context.Context, p *store.RecordListParams) ([]*store.HarvestRecord, int, error) {
	const where = ` FROM harvest_record WHERE harvest_job_id = $1 AND (CAST($2 AS TEXT) IS NULL OR action = $2)`
	total, err := Count(ctx, s.q, `SELECT count(*)`+where, p.JobID, nullable(string(p.Action)))
	if err != nil {
		return nil, 0, err
	}
	limit, offset := p.Bounds()
	recs, err := Collect(s.q.Query(ctx, `SELECT `+recordListColumns+where+` ORDER BY identifier, id LIMIT $3 OFFSET $4`,
		p.JobID, nullable(string(p.Action)), limit, offset), s.scan.Record)
	return recs, total, err
}

// recordErrorMessagesFrom is the job's ($1) record error rows of severity $2.
const recordErrorMessagesFrom = ` FROM harvest_record_error WHERE harvest_job_id = $1 AND severity = $2`

// RecordErrorMessages implements store.Store, in one query for the groups and their examples
// (ROW_NUMBER over each group, which both SQLite and Postgres have) and one for their number.
func (s *Store) RecordErrorMessages(ctx context.Context, p *store.RecordErrorMessagesParams) ([]*store.RecordErrorMessage, int, error) {
	total, err := Count(ctx, s.q, `SELECT count(*) FROM (SELECT 1`+recordErrorMessagesFrom+` GROUP BY type, message) g`,
		p.JobID, string(p.Severity))
	if err != nil {
		return nil, 0, err
	}
	limit, _ := store.PageParams{Limit: p.Limit}.Bounds()
	examples := max(p.Examples, 0)
	var out []*store.RecordErrorMessage
	err = Each(s.q.Query(ctx, `WITH g AS (
			SELECT type, message, count(*) AS n`+recordErrorMessagesFrom+`
			GROUP BY type, message ORDER BY count(*) DESC, message, type LIMIT $3),
		e AS (
			SELECT r.type, r.message, r.identifier, COALESCE(CAST(r.harvest_record_id AS TEXT), '') AS record_id,
				ROW_NUMBER() OVER (PARTITION BY r.type, r.message ORDER BY r.identifier, r.id) AS rn
			FROM harvest_record_error r JOIN g ON g.type = r.type AND g.message = r.message
			WHERE r.harvest_job_id = $1 AND r.severity = $2)
		SELECT g.type, g.message, g.n, COALESCE(e.identifier, ''), COALESCE(e.record_id, ''), e.rn IS NOT NULL
		FROM g LEFT JOIN e ON e.type = g.type AND e.message = g.message AND e.rn <= $4
		ORDER BY g.n DESC, g.message, g.type, e.rn`, p.JobID, string(p.Severity), limit, examples),
		func(row Row) (*store.RecordErrorMessage, error) {
			var m store.RecordErrorMessage
			var ex store.RecordErrorExample
			var hasExample bool
			if err := row.Scan(&m.Type, &m.Message, &m.Count, &ex.Identifier, &ex.RecordID, &hasExample); err != nil {
				return nil, err
			}
			if hasExample {
				m.Examples = []store.RecordErrorExample{ex}
			}
			return &m, nil
		},
		func(m *store.RecordErrorMessage) error {
			if n := len(out); n > 0 && out[n-1].Type == m.Type && out[n-1].Message == m.Message {
				out[n-1].Examples = append(out[n-1].Examples, m.Examples...)
				return nil
			}
			m.Severity = p.Severity
			out = append(out, m)
			return nil
		})
	if err != nil {
		return nil, 0, err
	}
	return out, total, nil
}
