package sqlstore

import (
	"context"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// sourceSummaryFrom is harvest_source as s with, after its own columns, each source's live
// and held dataset counts; its newest job's (by date_created, then id) id, type, status, creation and
// finish (lj_*, NULL without a job); its last run's (the newest finished harvest or
// force_harvest job, by date_finished) id, type, status, creation, finish and errored, warned
// and passed (added + updated + unchanged) counts (lr_*); and its last success's finish
// (ls_finished): the columns store.SourceHealth judges from.
const sourceSummaryFrom = ` (SELECT h.*, (SELECT count(*) FROM dataset d WHERE d.harvest_source_id = h.id
	AND d.duplicate_of IS NULL) AS n_datasets,
	(SELECT count(*) FROM dataset d WHERE d.harvest_source_id = h.id AND d.duplicate_of IS NOT NULL) AS n_held,
	lj.id AS lj_id, lj.job_type AS lj_type, lj.status AS lj_status, lj.date_created AS lj_created,
	lj.date_finished AS lj_finished,
	lr.id AS lr_id, lr.job_type AS lr_type, lr.status AS lr_status, lr.date_created AS lr_created,
	lr.date_finished AS lr_finished, COALESCE(lr.records_errored, 0) AS lr_errored,
	COALESCE(lr.records_warned, 0) AS lr_warned,
	COALESCE(lr.records_added + lr.records_updated + lr.records_unchanged, 0) AS lr_passed,
	(SELECT max(j.date_finished) FROM harvest_job j WHERE j.harvest_source_id = h.id
		AND j.job_type IN ('harvest', 'force_harvest') AND j.status = 'complete'
		AND (j.records_errored = 0 OR j.records_added + j.records_updated + j.records_unchanged > 0)) AS ls_finished
	FROM harvest_source h
	LEFT JOIN harvest_job lj ON lj.id = (SELECT j.id FROM harvest_job j
		WHERE j.harvest_source_id = h.id ORDER BY j.date_created DESC, j.id DESC LIMIT 1)
	LEFT JOIN harvest_job lr ON lr.id = (SELECT j.id FROM harvest_job j
		WHERE j.harvest_source_id = h.id AND j.job_type IN ('harvest', 'force_harvest')
		AND j.status IN ('complete', 'error') ORDER BY j.date_finished DESC, j.id DESC LIMIT 1)) s`

// sourceHealth is store.SourceHealth as SQL over sourceSummaryFrom's columns, with $5 .. $8 the
// stale-before times of a daily, weekly, biweekly and monthly source.
const sourceHealth = `CASE WHEN lr_status IS NULL THEN 'new'
	WHEN lr_status = 'error' OR (lr_errored > 0 AND lr_passed = 0) THEN 'failing'
	WHEN ls_finished IS NOT NULL AND ((frequency = 'daily' AND ls_finished < $5)
		OR (frequency = 'weekly' AND ls_finished < $6) OR (frequency = 'biweekly' AND ls_finished < $7)
		OR (frequency = 'monthly' AND ls_finished < $8)) THEN 'stale'
	WHEN lr_errored > 0 THEN 'errors'
	ELSE 'ok' END`

// sourceSummaryFilter is SourceSummaryList's WHERE on $1 organization, $2 newest job status,
// $3 name LIKE pattern and $4 health, each NULL for any.
const sourceSummaryFilter = ` WHERE (CAST($1 AS TEXT) IS NULL OR CAST(organization_id AS TEXT) = $1)
	AND (CAST($2 AS TEXT) IS NULL OR lj_status = $2)
	AND (CAST($3 AS TEXT) IS NULL OR lower(name) LIKE $3 ESCAPE '\')
	AND (CAST($4 AS TEXT) IS NULL OR health = $4)`

// sourceSummaryExtra are the columns SourceSummary reads after the backend's sourceColumns.
const sourceSummaryExtra = `n_datasets, n_held, lj_id, lj_type, lj_status, lj_created, lj_finished,
	lr_id, lr_type, lr_status, lr_created, lr_finished, lr_errored, lr_warned, ls_finished, health`

// sourceOrders are the ORDER BY clauses of the store.SourceSort values.
var sourceOrders = map[store.SourceSort]string{
	store.SortName: `name, id`,
	store.SortHealth: `CASE health WHEN 'failing' THEN 0 WHEN 'stale' THEN 1 WHEN 'errors' THEN 2
		WHEN 'new' THEN 3 ELSE 4 END, name, id`,
	store.SortLastRun: `lr_finished IS NULL, lr_finished DESC, name, id`,
}

// SourceSummaryList is store.Store's SourceSummaryList over q: cols are the backend's
// sourceColumns, timeArg its time argument (Dialect.Time). An unknown p.Sort orders by name.
func SourceSummaryList(ctx context.Context, q Querier, scan *Scanner, cols string, timeArg func(time.Time) any,
	p *store.SourceSummaryListParams,
) ([]*store.SourceSummary, int, error) {
	limit, offset := p.Bounds()
	now := p.Now
	if now.IsZero() {
		now = time.Now()
	}
	var pattern string
	if p.Name != "" {
		pattern = "%" + likeEscaper.Replace(strings.ToLower(p.Name)) + "%"
	}
	args := []any{nullable(p.OrganizationID), nullable(string(p.LastJobStatus)), nullable(pattern),
		nullable(string(p.Health))}
	for _, f := range []harvest.Frequency{harvest.FrequencyDaily, harvest.FrequencyWeekly, harvest.FrequencyBiweekly,
		harvest.FrequencyMonthly} {
		args = append(args, timeArg(store.StaleBefore(f, now)))
	}
	from := ` (SELECT s.*, ` + sourceHealth + ` AS health FROM` + sourceSummaryFrom + `) s` + sourceSummaryFilter
	total, err := Count(ctx, q, `SELECT count(*) FROM`+from, args...)
	if err != nil {
		return nil, 0, err
	}
	order, ok := sourceOrders[p.Sort]
	if !ok {
		order = sourceOrders[store.SortName]
	}
	rows, err := Collect(q.Query(ctx, `SELECT `+cols+`, `+sourceSummaryExtra+` FROM`+from+
		` ORDER BY `+order+` LIMIT $9 OFFSET $10`, append(args, limit, offset)...), scan.SourceSummary)
	return rows, total, err
}

// likeEscaper escapes LIKE's wildcards (and its escape character, \) in a pattern's literal part.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// SourceSummary reads a row of the backend's sourceColumns then sourceSummaryExtra.
func (s *Scanner) SourceSummary(row Row) (*store.SourceSummary, error) {
	var (
		n, held, errored, warned int
		last, run                jobSummaryCols
		success                  *time.Time
		health                   string
	)
	src, err := s.Source(extraRow{Row: row, extra: append(append(append([]any{&n, &held}, last.dest(s)...),
		run.dest(s)...), &errored, &warned, s.NullTime(&success), &health)})
	if err != nil {
		return nil, err
	}
	out := &store.SourceSummary{Source: *src, DatasetCount: n, HeldCount: held, LastJob: last.summary(),
		LastRun: run.summary(), LastSuccess: success, Health: store.SourceHealth(health)}
	if out.LastRun != nil {
		out.LastRun.Errored, out.LastRun.Warned = errored, warned
	}
	return out, nil
}

// jobSummaryCols are the id, type, status, creation and finish columns of a job that may be
// missing (all NULL).
type jobSummaryCols struct {
	id, jobType, status *string
	created, finished   *time.Time
}

func (c *jobSummaryCols) dest(s *Scanner) []any {
	return []any{&c.id, &c.jobType, &c.status, s.NullTime(&c.created), s.NullTime(&c.finished)}
}

// summary is the job, or nil when its columns are NULL.
func (c *jobSummaryCols) summary() *store.JobSummary {
	if c.id == nil || *c.id == "" {
		return nil
	}
	j := &store.JobSummary{ID: *c.id, FinishedAt: c.finished}
	if c.jobType != nil {
		j.JobType = harvest.JobType(*c.jobType)
	}
	if c.status != nil {
		j.Status = harvest.JobStatus(*c.status)
	}
	if c.created != nil {
		j.CreatedAt = *c.created
	}
	return j
}
