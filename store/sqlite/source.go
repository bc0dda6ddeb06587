package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

const sourceColumns = `id, COALESCE(organization_id, ''), name, url, source_type, schema_type, frequency,
	notification_emails, notification_frequency, next_run_at, COALESCE(collection_parent_url, ''),
	COALESCE(waf_time_zone, ''), COALESCE(accept, ''), COALESCE(auth_header_name, ''),
	COALESCE(auth_header_value, ''), COALESCE(options, ''), precedence, created_at, updated_at`

// sourceArgs are p's columns organization_id .. options, precedence (?1 .. ?15) with their defaults.
func sourceArgs(p *store.SourceInsertParams) ([]any, error) {
	list := p.NotificationEmails
	if list == nil {
		list = []string{}
	}
	emails, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	settings, err := sqlstore.SourceSettings(p.Accept, p.AuthHeader, p.Options)
	if err != nil {
		return nil, err
	}
	return append([]any{nullable(p.OrganizationID), p.Name, p.URL, p.SourceType, p.SchemaType,
		cmp.Or(p.Frequency, harvest.FrequencyManual), string(emails),
		cmp.Or(p.NotificationFrequency, harvest.NotifyOnError), nullable(p.CollectionParentURL), nullable(p.WAFTimeZone)},
		append(settings, p.Precedence)...), nil
}

// SourceDelete implements store.Store.
func (s *Store) SourceDelete(ctx context.Context, id string) error {
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var datasets, unfinished bool
		err := tx.QueryRowContext(ctx, `SELECT
			EXISTS (SELECT 1 FROM dataset WHERE harvest_source_id = s.id),
			EXISTS (SELECT 1 FROM harvest_job WHERE harvest_source_id = s.id AND status IN ('new', 'in_progress'))
			FROM harvest_source s WHERE id = ?`, id).Scan(&datasets, &unfinished)
		if err := cmp.Or(err, sqlstore.SourceInUse(datasets, unfinished)); err != nil {
			return err
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM harvest_source WHERE id = ?`, id); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM quality_change WHERE source_id = ?`, id)
		return err
	})
	return interpretError(err)
}

// SourceEnsure implements store.Store.
func (s *Store) SourceEnsure(ctx context.Context, p *store.SourceEnsureParams) (*store.Source, error) {
	t := now()
	settings, err := sqlstore.SourceSettings(p.Accept, p.AuthHeader, p.Options)
	if err != nil {
		return nil, err
	}
	return scan.Source(s.q.QueryRow(ctx, `
		INSERT INTO harvest_source (id, name, url, source_type, schema_type, collection_parent_url, waf_time_zone,
			created_at, updated_at, accept, auth_header_name, auth_header_value, options)
		VALUES (?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, ''), ?, ?, ?, ?, ?, ?)
		ON CONFLICT (url) DO UPDATE SET schema_type = excluded.schema_type, source_type = excluded.source_type,
			collection_parent_url = excluded.collection_parent_url,
			waf_time_zone = COALESCE(excluded.waf_time_zone, harvest_source.waf_time_zone),
			accept = COALESCE(excluded.accept, harvest_source.accept),
			auth_header_name = COALESCE(excluded.auth_header_name, harvest_source.auth_header_name),
			auth_header_value = CASE WHEN excluded.auth_header_name IS NULL THEN harvest_source.auth_header_value
				ELSE excluded.auth_header_value END,
			options = COALESCE(excluded.options, harvest_source.options), updated_at = excluded.updated_at
		RETURNING `+sourceColumns, append([]any{uuid.NewString(), p.Name, p.URL, p.SourceType, p.SchemaType,
		p.CollectionParentURL, p.WAFTimeZone, t, t}, settings...)...))
}

// SourceGet implements store.Store.
func (s *Store) SourceGet(ctx context.Context, sourceID string) (*store.Source, error) {
	return scan.Source(s.q.QueryRow(ctx, `SELECT `+sourceColumns+` FROM harvest_source WHERE id = ?`, sourceID))
}

// SourceInsert implements store.Store.
func (s *Store) SourceInsert(ctx context.Context, p *store.SourceInsertParams) (*store.Source, error) {
	args, err := sourceArgs(p)
	if err != nil {
		return nil, err
	}
	t := now()
	return scan.Source(s.q.QueryRow(ctx, `
		INSERT INTO harvest_source (organization_id, name, url, source_type, schema_type, frequency,
			notification_emails, notification_frequency, collection_parent_url, waf_time_zone,
			accept, auth_header_name, auth_header_value, options, precedence, id, next_run_at, created_at, updated_at)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
			CASE WHEN ?6 = 'manual' THEN NULL ELSE ?17 END, ?17, ?17)
		RETURNING `+sourceColumns, append(args, uuid.NewString(), t)...))
}

// SourceList implements store.Store.
func (s *Store) SourceList(ctx context.Context, p *store.SourceListParams) ([]*store.Source, int, error) {
	const filter = `?1 IS NULL OR organization_id = ?1`
	org := nullable(p.OrganizationID)
	total, err := sqlstore.Count(ctx, s.q, `SELECT count(*) FROM harvest_source WHERE `+filter, org)
	if err != nil {
		return nil, 0, err
	}
	limit, offset := p.Bounds()
	srcs, err := sqlstore.Collect(s.q.Query(ctx, `SELECT `+sourceColumns+` FROM harvest_source WHERE `+filter+`
		ORDER BY name, id LIMIT ?2 OFFSET ?3`, org, limit, offset), scan.Source)
	return srcs, total, err
}

// SourceListDue implements store.Store.
func (s *Store) SourceListDue(ctx context.Context, p *store.SourceListDueParams) ([]*store.Source, error) {
	return sqlstore.Collect(s.q.Query(ctx, `SELECT `+sourceColumns+` FROM harvest_source s
		WHERE frequency <> 'manual' AND next_run_at <= ?
			AND NOT EXISTS (SELECT 1 FROM harvest_job j
				WHERE j.harvest_source_id = s.id AND j.status IN ('new', 'in_progress'))
		ORDER BY next_run_at, id`, formatTime(p.Now)), scan.Source)
}

// SourceScheduleNext implements store.Store.
func (s *Store) SourceScheduleNext(ctx context.Context, p *store.SourceScheduleNextParams) error {
	return sqlstore.ExecOne(ctx, s.q, `UPDATE harvest_source SET next_run_at = ? WHERE id = ?`,
		formatNullTime(p.NextRunAt), p.SourceID)
}

// SourceUpdate implements store.Store.
func (s *Store) SourceUpdate(ctx context.Context, p *store.SourceUpdateParams) (*store.Source, error) {
	args, err := sourceArgs(&p.SourceInsertParams)
	if err != nil {
		return nil, err
	}
	var src *store.Source
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		var old harvest.Frequency
		var next, lastJobStart sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT frequency, next_run_at,
			(SELECT max(date_created) FROM harvest_job WHERE harvest_source_id = s.id)
			FROM harvest_source s WHERE id = ?`, p.ID).Scan(&old, &next, &lastJobStart)
		if err != nil {
			return err
		}
		t := time.Now()
		if freq := cmp.Or(p.Frequency, harvest.FrequencyManual); freq != old {
			last, err := parseNullTime(lastJobStart)
			if err != nil {
				return err
			}
			next = sql.NullString{}
			if planned := store.PlanNextRun(freq, last, t); planned != nil {
				next = sql.NullString{String: formatTime(*planned), Valid: true}
			}
		}
		src, err = scan.Source(querier{tx}.QueryRow(ctx, `UPDATE harvest_source SET organization_id = ?1, name = ?2,
			url = ?3, source_type = ?4, schema_type = ?5, frequency = ?6, notification_emails = ?7,
			notification_frequency = ?8, collection_parent_url = ?9, waf_time_zone = ?10, accept = ?11,
			auth_header_name = ?12, auth_header_value = ?13, options = ?14, precedence = ?15,
			next_run_at = ?16, updated_at = ?17
			WHERE id = ?18 RETURNING `+sourceColumns, append(args, next, formatTime(t), p.ID)...))
		return err
	})
	return src, interpretError(err)
}

// formatNullTime is t in the stored time format, or NULL.
func formatNullTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return formatTime(*t)
}

// parseNullTime is the stored time s, or nil when s is NULL.
func parseNullTime(s sql.NullString) (*time.Time, error) {
	if !s.Valid {
		return nil, nil
	}
	t, err := parseTime(s.String)
	return &t, err
}

// SourceSummaryList implements store.Store.
func (s *Store) SourceSummaryList(ctx context.Context, p *store.SourceSummaryListParams) ([]*store.SourceSummary, int, error) {
	return sqlstore.SourceSummaryList(ctx, s.q, scan, sourceColumns, func(t time.Time) any { return formatTime(t) }, p)
}
