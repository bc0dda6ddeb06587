package postgres

import (
	"cmp"
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

const sourceColumns = `id, COALESCE(organization_id::text, ''), name, url, source_type, schema_type, frequency,
	notification_emails, notification_frequency, next_run_at, COALESCE(collection_parent_url, ''),
	COALESCE(waf_time_zone, ''), COALESCE(accept, ''), COALESCE(auth_header_name, ''),
	COALESCE(auth_header_value, ''), COALESCE(options::text, ''), precedence, created_at, updated_at`

// nullable is s, or SQL NULL when s is empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// sourceArgs are p's columns organization_id .. options, precedence ($1 .. $15) with their defaults.
func sourceArgs(p *store.SourceInsertParams) ([]any, error) {
	emails := p.NotificationEmails
	if emails == nil {
		emails = []string{}
	}
	settings, err := sqlstore.SourceSettings(p.Accept, p.AuthHeader, p.Options)
	if err != nil {
		return nil, err
	}
	return append([]any{nullable(p.OrganizationID), p.Name, p.URL, p.SourceType, p.SchemaType,
		cmp.Or(p.Frequency, harvest.FrequencyManual), emails,
		cmp.Or(p.NotificationFrequency, harvest.NotifyOnError), nullable(p.CollectionParentURL), nullable(p.WAFTimeZone)},
		append(settings, p.Precedence)...), nil
}

// SourceDelete implements store.Store.
func (s *Store) SourceDelete(ctx context.Context, id string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The row lock makes concurrent job and dataset inserts (their foreign key checks take
		// a key share lock) wait, so the checks below see every row that could block.
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM harvest_source WHERE id = $1 FOR UPDATE`, id).Scan(&one); err != nil {
			return err
		}
		var datasets, unfinished bool
		err := tx.QueryRow(ctx, `SELECT
			EXISTS (SELECT 1 FROM dataset WHERE harvest_source_id = $1),
			EXISTS (SELECT 1 FROM harvest_job WHERE harvest_source_id = $1 AND status IN ('new', 'in_progress'))`,
			id).Scan(&datasets, &unfinished)
		if err := cmp.Or(err, sqlstore.SourceInUse(datasets, unfinished)); err != nil {
			return err
		}
		if _, err = tx.Exec(ctx, `DELETE FROM harvest_source WHERE id = $1`, id); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM quality_change WHERE source_id = $1`, id)
		return err
	})
	return interpretError(err)
}

// SourceEnsure implements store.Store.
func (s *Store) SourceEnsure(ctx context.Context, p *store.SourceEnsureParams) (*store.Source, error) {
	settings, err := sqlstore.SourceSettings(p.Accept, p.AuthHeader, p.Options)
	if err != nil {
		return nil, err
	}
	return scan.Source(s.q.QueryRow(ctx, `
		INSERT INTO harvest_source (name, url, source_type, schema_type, collection_parent_url, waf_time_zone,
			accept, auth_header_name, auth_header_value, options)
		VALUES ($1, $2, $3, $4, NULLIF($5, ''), NULLIF($6, ''), $7, $8, $9, $10::jsonb)
		ON CONFLICT (url) DO UPDATE SET schema_type = EXCLUDED.schema_type, source_type = EXCLUDED.source_type,
			collection_parent_url = EXCLUDED.collection_parent_url,
			waf_time_zone = COALESCE(EXCLUDED.waf_time_zone, harvest_source.waf_time_zone),
			accept = COALESCE(EXCLUDED.accept, harvest_source.accept),
			auth_header_name = COALESCE(EXCLUDED.auth_header_name, harvest_source.auth_header_name),
			auth_header_value = CASE WHEN EXCLUDED.auth_header_name IS NULL THEN harvest_source.auth_header_value
				ELSE EXCLUDED.auth_header_value END,
			options = COALESCE(EXCLUDED.options, harvest_source.options), updated_at = now()
		RETURNING `+sourceColumns, append([]any{p.Name, p.URL, p.SourceType, p.SchemaType, p.CollectionParentURL,
		p.WAFTimeZone}, settings...)...))
}

// SourceGet implements store.Store.
func (s *Store) SourceGet(ctx context.Context, sourceID string) (*store.Source, error) {
	return scan.Source(s.q.QueryRow(ctx, `SELECT `+sourceColumns+` FROM harvest_source WHERE id = $1`, sourceID))
}

// SourceInsert implements store.Store.
func (s *Store) SourceInsert(ctx context.Context, p *store.SourceInsertParams) (*store.Source, error) {
	args, err := sourceArgs(p)
	if err != nil {
		return nil, err
	}
	return scan.Source(s.q.QueryRow(ctx, `
		INSERT INTO harvest_source (organization_id, name, url, source_type, schema_type, frequency,
			notification_emails, notification_frequency, collection_parent_url, waf_time_zone,
			accept, auth_header_name, auth_header_value, options, precedence, next_run_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15,
			CASE WHEN $6 = 'manual' THEN NULL ELSE now() END)
		RETURNING `+sourceColumns, args...))
}

// SourceList implements store.Store.
func (s *Store) SourceList(ctx context.Context, p *store.SourceListParams) ([]*store.Source, int, error) {
	limit, offset := p.Bounds()
	org := nullable(p.OrganizationID)
	total, err := sqlstore.Count(ctx, s.q, `SELECT count(*) FROM harvest_source
		WHERE $1::uuid IS NULL OR organization_id = $1`, org)
	if err != nil {
		return nil, 0, err
	}
	srcs, err := sqlstore.Collect(s.q.Query(ctx, `SELECT `+sourceColumns+` FROM harvest_source
		WHERE $1::uuid IS NULL OR organization_id = $1 ORDER BY name, id LIMIT $2 OFFSET $3`, org, limit, offset), scan.Source)
	return srcs, total, err
}

// SourceListDue implements store.Store.
func (s *Store) SourceListDue(ctx context.Context, p *store.SourceListDueParams) ([]*store.Source, error) {
	return sqlstore.Collect(s.q.Query(ctx, `SELECT `+sourceColumns+` FROM harvest_source s
		WHERE frequency <> 'manual' AND next_run_at <= $1
			AND NOT EXISTS (SELECT 1 FROM harvest_job j
				WHERE j.harvest_source_id = s.id AND j.status IN ('new', 'in_progress'))
		ORDER BY next_run_at, id`, p.Now), scan.Source)
}

// SourceScheduleNext implements store.Store.
func (s *Store) SourceScheduleNext(ctx context.Context, p *store.SourceScheduleNextParams) error {
	return sqlstore.ExecOne(ctx, s.q, `UPDATE harvest_source SET next_run_at = $2 WHERE id = $1`, p.SourceID, p.NextRunAt)
}

// SourceUpdate implements store.Store.
func (s *Store) SourceUpdate(ctx context.Context, p *store.SourceUpdateParams) (*store.Source, error) {
	var src *store.Source
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var old harvest.Frequency
		var next, lastJobStart *time.Time
		var now time.Time
		err := tx.QueryRow(ctx, `SELECT frequency, next_run_at, now(),
			(SELECT max(date_created) FROM harvest_job WHERE harvest_source_id = $1)
			FROM harvest_source WHERE id = $1 FOR UPDATE`, p.ID).Scan(&old, &next, &now, &lastJobStart)
		if err != nil {
			return err
		}
		if freq := cmp.Or(p.Frequency, harvest.FrequencyManual); freq != old {
			next = store.PlanNextRun(freq, lastJobStart, now)
		}
		args, err := sourceArgs(&p.SourceInsertParams)
		if err != nil {
			return err
		}
		args = append(args, next, p.ID)
		src, err = scan.Source(querier{tx}.QueryRow(ctx, `UPDATE harvest_source SET organization_id = $1, name = $2,
			url = $3, source_type = $4, schema_type = $5, frequency = $6, notification_emails = $7,
			notification_frequency = $8, collection_parent_url = $9, waf_time_zone = $10, accept = $11,
			auth_header_name = $12, auth_header_value = $13, options = $14::jsonb, precedence = $15,
			next_run_at = $16, updated_at = now()
			WHERE id = $17 RETURNING `+sourceColumns, args...))
		return err
	})
	return src, interpretError(err)
}

// SourceSummaryList implements store.Store.
func (s *Store) SourceSummaryList(ctx context.Context, p *store.SourceSummaryListParams) ([]*store.SourceSummary, int, error) {
	return sqlstore.SourceSummaryList(ctx, s.q, scan, sourceColumns, func(t time.Time) any { return t.UTC() }, p)
}
