package sqlstore

import (
	"context"
	"slices"

	"github.com/harvester-dev/harvester/store"
)

// qualityColumns are quality_aggregate's columns but summary, in the order qualityAggregate
// reads them.
const qualityColumns = `scope, scope_id, job_id, source_id, computed_at, datasets, mean, rating, links_urls, links_broken`

// QualityAggregateSave implements store.Store.
func (s *Store) QualityAggregateSave(ctx context.Context, rows []*store.QualityAggregate) error {
	return s.d.InTx(ctx, func(tx Querier) error {
		for _, r := range rows {
			if _, err := tx.Exec(ctx, `INSERT INTO quality_aggregate (`+qualityColumns+`, summary)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
				ON CONFLICT (scope, scope_id, job_id) DO UPDATE SET source_id = excluded.source_id,
				computed_at = excluded.computed_at, datasets = excluded.datasets, mean = excluded.mean,
				rating = excluded.rating, links_urls = excluded.links_urls, links_broken = excluded.links_broken,
				summary = excluded.summary`,
				r.Scope, r.ScopeID, r.JobID, r.SourceID, s.d.Time(r.ComputedAt), r.Datasets, r.Mean, r.Rating,
				r.LinksURLs, r.LinksBroken, string(r.Summary)); err != nil {
				return err
			}
		}
		return nil
	})
}

// QualityAggregateHistory implements store.Store.
func (s *Store) QualityAggregateHistory(ctx context.Context, p *store.QualityAggregateHistoryParams) ([]*store.QualityAggregate, error) {
	summary := `NULL`
	if p.Summaries {
		summary = `CAST(summary AS TEXT)`
	}
	query := `SELECT ` + qualityColumns + `, ` + summary + ` FROM quality_aggregate
		WHERE scope = $1 AND scope_id = $2 ORDER BY computed_at DESC, job_id DESC`
	args := []any{p.Scope, p.ScopeID}
	if p.Limit > 0 {
		query += ` LIMIT $3`
		args = append(args, p.Limit)
	}
	out, err := Collect(s.q.Query(ctx, query, args...), func(row Row) (*store.QualityAggregate, error) {
		return s.scan.qualityAggregate(row, false)
	})
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// QualityAggregateHistoryPage implements store.Store: a count and one LIMIT/OFFSET query, so a
// page costs the rows it returns, however long the history (the catalog's gains a row a job).
func (s *Store) QualityAggregateHistoryPage(ctx context.Context, p *store.QualityAggregateHistoryParams,
	page store.PageParams) ([]*store.QualityAggregate, int, error) {
	total, err := Count(ctx, s.q, `SELECT count(*) FROM quality_aggregate WHERE scope = $1 AND scope_id = $2`,
		p.Scope, p.ScopeID)
	if err != nil {
		return nil, 0, err
	}
	summary := `NULL`
	if p.Summaries {
		summary = `CAST(summary AS TEXT)`
	}
	limit, offset := page.Bounds()
	rows, err := Collect(s.q.Query(ctx, `SELECT `+qualityColumns+`, `+summary+` FROM quality_aggregate
		WHERE scope = $1 AND scope_id = $2 ORDER BY computed_at, job_id LIMIT $3 OFFSET $4`,
		p.Scope, p.ScopeID, limit, offset), func(row Row) (*store.QualityAggregate, error) {
		return s.scan.qualityAggregate(row, false)
	})
	return rows, total, err
}

// QualityAggregateLatest implements store.Store.
func (s *Store) QualityAggregateLatest(ctx context.Context, scope string) ([]*store.QualityAggregate, error) {
	org, join := `'' AS org, '' AS name`, ``
	if scope == store.QualityScopeSource {
		org = `COALESCE(CAST(h.organization_id AS TEXT), '') AS org, h.name AS name`
		join = `JOIN harvest_source h ON CAST(h.id AS TEXT) = a.scope_id`
	}
	return Collect(s.q.Query(ctx, `SELECT `+qualityColumns+`, CAST(summary AS TEXT), org, name FROM (
			SELECT a.*, `+org+`, ROW_NUMBER() OVER (PARTITION BY a.scope_id
				ORDER BY a.computed_at DESC, a.job_id DESC) AS n
			FROM quality_aggregate a `+join+` WHERE a.scope = $1) latest
		WHERE n = 1 ORDER BY scope_id`, scope), func(row Row) (*store.QualityAggregate, error) {
		return s.scan.qualityAggregate(row, true)
	})
}

// qualityAggregate reads a quality_aggregate row (qualityColumns, then summary, NULL or text,
// then with org the source's organization and name).
func (s *Scanner) qualityAggregate(row Row, org bool) (*store.QualityAggregate, error) {
	var a store.QualityAggregate
	var summary *string
	dest := []any{&a.Scope, &a.ScopeID, &a.JobID, &a.SourceID, s.Time(&a.ComputedAt), &a.Datasets, &a.Mean, &a.Rating,
		&a.LinksURLs, &a.LinksBroken, &summary}
	if org {
		dest = append(dest, &a.OrganizationID, &a.SourceName)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	a.ComputedAt = a.ComputedAt.UTC()
	if summary != nil {
		a.Summary = []byte(*summary)
	}
	return &a, nil
}

// QualityChangeList implements store.Store (the quality_change_source index answers it).
func (s *Store) QualityChangeList(ctx context.Context, sourceID string) ([]int64, error) {
	return Collect(s.q.Query(ctx, `SELECT id FROM quality_change WHERE source_id = $1 ORDER BY id`, sourceID),
		func(row Row) (int64, error) {
			var id int64
			return id, row.Scan(&id)
		})
}

// QualityChangeDelete implements store.Store, maxIDsPerStatement ids a statement.
func (s *Store) QualityChangeDelete(ctx context.Context, ids []int64) error {
	for chunk := range slices.Chunk(ids, maxIDsPerStatement) {
		marks, args := inList(chunk)
		if _, err := s.q.Exec(ctx, `DELETE FROM quality_change WHERE id IN (`+marks+`)`,
			args...); err != nil {
			return err
		}
	}
	return nil
}

// markAllSources marks every source's quality inputs changed (store.Store QualityChangeList), a
// stored link check being any source's, and deletes the marks this made redundant: those before
// the new ones of a source that has a newer mark. Link checks change often and mark every
// source, so without that a source whose jobs do not end (a paused source) would gather a mark a
// link check. Deleting a mark is safe whenever a newer mark of its source is committed: a job's
// end deletes only the marks it read before scoring, so the newest mark of a source outlives any
// change made after that read, and the marks it read are of changes the scoring saw. Marks locked
// by a concurrent writer are skipped (SQL.SkipLocked), never waited for: the next call takes them.
func (s *Store) markAllSources(ctx context.Context, q Querier) error {
	before, err := Count(ctx, q, `SELECT coalesce(max(id), 0) FROM quality_change`)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `INSERT INTO quality_change (source_id) SELECT id FROM harvest_source`); err != nil {
		return err
	}
	_, err = q.Exec(ctx, `DELETE FROM quality_change WHERE id IN (SELECT o.id FROM quality_change o
		WHERE o.id <= $1 AND EXISTS (SELECT 1 FROM quality_change n WHERE n.source_id = o.source_id AND n.id > $1)
		`+s.d.SQL.SkipLocked+`)`, before)
	return err
}
