package sqlstore

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/harvester-dev/harvester/store"
)

// QualityReportGet implements store.Store.
func (s *Store) QualityReportGet(ctx context.Context, jobID string) (*store.QualityReport, error) {
	if !uuidShape.MatchString(jobID) {
		return nil, store.ErrNotFound
	}
	r := &store.QualityReport{}
	var body string
	err := s.q.QueryRow(ctx, `SELECT job_id, source_id, created_at, report FROM quality_report WHERE job_id = $1`, jobID).
		Scan(&r.JobID, &r.SourceID, s.scan.Time(&r.CreatedAt), &body)
	if err != nil {
		return nil, err
	}
	r.Report = json.RawMessage(body)
	return r, nil
}

// QualityReportSave implements store.Store.
func (s *Store) QualityReportSave(ctx context.Context, r *store.QualityReport) error {
	if !json.Valid(r.Report) {
		return errors.New("quality report: the report is not JSON")
	}
	if !uuidShape.MatchString(r.JobID) || !uuidShape.MatchString(r.SourceID) {
		return store.ErrNotFound
	}
	var one int
	if err := s.q.QueryRow(ctx, `SELECT 1 FROM harvest_source WHERE id = $1`, r.SourceID).Scan(&one); err != nil {
		return err
	}
	_, err := s.q.Exec(ctx, `INSERT INTO quality_report (job_id, source_id, created_at, report) VALUES ($1, $2, $3, $4)
		ON CONFLICT (job_id) DO UPDATE SET created_at = excluded.created_at, report = excluded.report`,
		r.JobID, r.SourceID, s.d.Time(r.CreatedAt.UTC()), string(r.Report))
	return err
}
