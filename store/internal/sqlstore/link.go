package sqlstore

import (
	"context"
	"hash/maphash"
	"slices"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality"
	"github.com/harvester-dev/harvester/store"
)

// findingsOf is whether the record r of dataset d has a validation row that counts against
// compliance (store.DatasetQuality.Findings): for a DCAT-AP record a SHACL finding, for any
// other any row (the harvest_record_error_record index answers it).
const findingsOf = `EXISTS (SELECT 1 FROM harvest_record_error e WHERE e.harvest_record_id = d.harvest_record_id
	AND (COALESCE(r.schema_type, '') <> '` + string(harvest.SchemaDCATAP) + `'
		OR e.type IN ('` + harvest.TypeValidationError + `', '` + harvest.TypeValidationWarning + `')))`

// graphOf is the record graph of a DCAT-AP record r (its source_raw), else NULL.
const graphOf = `CASE WHEN r.schema_type = '` + string(harvest.SchemaDCATAP) + `' THEN r.source_raw END`

// datasetQualitySelect reads a dataset d's id, slug, identifier, record, whether its record
// has a validation row that counts (findingsOf) and its record graph (graphOf).
const datasetQualitySelect = `SELECT d.id, d.slug, d.identifier, d.dcat, ` + findingsOf + `, ` + graphOf + `
	FROM dataset d LEFT JOIN harvest_record r ON r.id = d.harvest_record_id `

// linkColumns are link_result's columns, in the order linkScan reads and linkArgs writes them.
const linkColumns = `url, status, error_class, error, final_url, content_type, content_length, redirects, ok,
	checked_at, last_ok_at, consecutive_failures`

// DatasetQualityStream implements store.Store.
func (s *Store) DatasetQualityStream(ctx context.Context, p *store.DatasetQualityParams,
	fn func(*store.DatasetQuality) error,
) error {
	// One query: a second Query would hold the first one's connection (pgx) until Close.
	var rows Rows
	if p.DatasetID != "" {
		rows = s.q.Query(ctx, datasetQualitySelect+`WHERE d.id = $1`, p.DatasetID)
	} else {
		rows = s.q.Query(ctx, datasetQualitySelect+`WHERE d.harvest_source_id = $1 AND d.duplicate_of IS NULL
		ORDER BY d.id`, p.SourceID)
	}
	return Each(rows, func(row Row) (*store.DatasetQuality, error) {
		var d store.DatasetQuality
		var dcat []byte
		var graph *string
		if err := row.Scan(&d.ID, &d.Slug, &d.Identifier, &dcat, &d.Findings, &graph); err != nil {
			return nil, err
		}
		d.DCAT, d.URLs = dcat, quality.LinkURLs(dcat)
		if graph != nil && *graph != "" {
			d.Graph = []byte(*graph)
		}
		return &d, nil
	}, fn)
}

// DatasetLinkURLs implements store.Store.
func (s *Store) DatasetLinkURLs(ctx context.Context, sourceID string) ([]string, error) {
	seen := map[string]bool{}
	err := s.DatasetQualityStream(ctx, &store.DatasetQualityParams{SourceID: sourceID}, func(d *store.DatasetQuality) error {
		for _, u := range d.URLs {
			seen[u] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(seen))
	for u := range seen {
		out = append(out, u)
	}
	slices.Sort(out)
	return out, nil
}

// LinkResultGet implements store.Store, maxIDsPerStatement URLs a statement.
func (s *Store) LinkResultGet(ctx context.Context, urls []string) (map[string]*store.LinkResult, error) {
	out := map[string]*store.LinkResult{}
	for chunk := range slices.Chunk(urls, maxIDsPerStatement) {
		marks, args := inList(chunk)
		err := Each(s.q.Query(ctx, `SELECT `+linkColumns+` FROM link_result WHERE url IN (`+marks+`)`,
			args...), s.scan.linkResult, func(r *store.LinkResult) error {
			out[r.URL] = r
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// linkResult reads a link_result row (linkColumns).
func (s *Scanner) linkResult(row Row) (*store.LinkResult, error) {
	var r store.LinkResult
	var lastOK *time.Time
	err := row.Scan(&r.URL, &r.Status, &r.ErrorClass, &r.Error, &r.FinalURL, &r.ContentType, &r.ContentLength,
		&r.Redirects, &r.OK, s.Time(&r.CheckedAt), s.NullTime(&lastOK), &r.ConsecutiveFailures)
	if err != nil {
		return nil, err
	}
	r.CheckedAt = r.CheckedAt.UTC()
	if lastOK != nil {
		r.LastOKAt = lastOK.UTC()
	}
	return &r, nil
}

// LinkResultUpsert implements store.Store. It marks every source's quality inputs changed
// (QualityChangeList) when a URL's result as the score reads it changes: a URL without a
// stored check, or whose status, error class or OK its rows change (linkScoreChange).
func (s *Store) LinkResultUpsert(ctx context.Context, rows []*store.LinkResult) error {
	return s.d.InTx(ctx, func(tx Querier) error {
		changed, err := s.linkScoreChange(ctx, tx, rows)
		if err != nil {
			return err
		}
		for _, r := range rows {
			if _, err := tx.Exec(ctx, `INSERT INTO link_result (`+linkColumns+`)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
				ON CONFLICT (url) DO UPDATE SET status = excluded.status, error_class = excluded.error_class,
				error = excluded.error, final_url = excluded.final_url, content_type = excluded.content_type,
				content_length = excluded.content_length, redirects = excluded.redirects, ok = excluded.ok,
				checked_at = excluded.checked_at, last_ok_at = excluded.last_ok_at,
				consecutive_failures = excluded.consecutive_failures`, s.linkArgs(r)...); err != nil {
				return err
			}
		}
		if !changed {
			return nil
		}
		return s.markAllSources(ctx, tx)
	})
}

// linkScore is what the quality score reads of a stored link check (check.Result's Checked,
// OK and LinkResult): its status, error class and OK.
type linkScore struct {
	status     int
	errorClass string
	ok         bool
}

// linkScoreChange reports whether writing rows (a later row of a URL winning) changes the
// linkScore of a URL, or stores a URL that has no row yet. It reads the stored rows in tx with
// the dialect's RowLock, so that no other writer changes them before tx writes.
func (s *Store) linkScoreChange(ctx context.Context, tx Querier, rows []*store.LinkResult) (bool, error) {
	next := map[string]linkScore{}
	for _, r := range rows {
		next[r.URL] = linkScore{r.Status, r.ErrorClass, r.OK}
	}
	urls := make([]string, 0, len(next))
	for u := range next {
		urls = append(urls, u)
	}
	slices.Sort(urls) // the locks taken in one order
	stored := 0
	for chunk := range slices.Chunk(urls, maxIDsPerStatement) {
		marks, args := inList(chunk)
		type scored struct {
			url string
			linkScore
		}
		changed := false
		err := Each(tx.Query(ctx, `SELECT url, status, error_class, ok FROM link_result
			WHERE url IN (`+marks+`) ORDER BY url `+s.d.SQL.RowLock, args...),
			func(row Row) (scored, error) {
				var r scored
				return r, row.Scan(&r.url, &r.status, &r.errorClass, &r.ok)
			}, func(r scored) error {
				stored++
				changed = changed || next[r.url] != r.linkScore
				return nil
			})
		if err != nil || changed {
			return changed, err
		}
	}
	return stored < len(urls), nil
}

// linkArgs are r's values in linkColumns' order.
func (s *Store) linkArgs(r *store.LinkResult) []any {
	var lastOK any
	if !r.LastOKAt.IsZero() {
		lastOK = s.d.Time(r.LastOKAt)
	}
	return []any{r.URL, r.Status, r.ErrorClass, r.Error, r.FinalURL, r.ContentType, r.ContentLength,
		r.Redirects, r.OK, s.d.Time(r.CheckedAt), lastOK, r.ConsecutiveFailures}
}

// LinkResultPrune implements store.Store. The URLs in use are kept as 64-bit hashes, so that the
// catalog's URLs need not fit in memory as text: a collision keeps a row it could drop, never
// the reverse.
func (s *Store) LinkResultPrune(ctx context.Context) (int, error) {
	seed := maphash.MakeSeed()
	used := map[uint64]bool{}
	err := Each(s.q.Query(ctx, `SELECT dcat FROM dataset WHERE duplicate_of IS NULL`), func(row Row) ([]byte, error) {
		var dcat []byte
		return dcat, row.Scan(&dcat)
	}, func(dcat []byte) error {
		for _, u := range quality.LinkURLs(dcat) {
			used[maphash.String(seed, u)] = true
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	var drop []string
	err = Each(s.q.Query(ctx, `SELECT url FROM link_result`), String, func(u string) error {
		if !used[maphash.String(seed, u)] {
			drop = append(drop, u)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for chunk := range slices.Chunk(drop, maxIDsPerStatement) {
		marks, args := inList(chunk)
		k, err := s.q.Exec(ctx, `DELETE FROM link_result WHERE url IN (`+marks+`)`, args...)
		if err != nil {
			return n, err
		}
		n += int(k)
	}
	if n > 0 { // marked after the deletes: a mark never comes before its change
		if err := s.markAllSources(ctx, s.q); err != nil {
			return n, err
		}
	}
	return n, nil
}

// DatasetFindings implements store.Store, maxIDsPerStatement ids a statement.
func (s *Store) DatasetFindings(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for chunk := range slices.Chunk(ids, maxIDsPerStatement) {
		marks, args := inList(chunk)
		type finding struct {
			id  string
			has bool
		}
		err := Each(s.q.Query(ctx, `SELECT CAST(d.id AS TEXT), `+findingsOf+`
			FROM dataset d LEFT JOIN harvest_record r ON r.id = d.harvest_record_id
			WHERE d.id IN (`+marks+`)`, args...), func(row Row) (finding, error) {
			var f finding
			return f, row.Scan(&f.id, &f.has)
		}, func(f finding) error {
			out[f.id] = f.has
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DatasetGraphs implements store.Store, maxIDsPerStatement ids a statement.
func (s *Store) DatasetGraphs(ctx context.Context, ids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for chunk := range slices.Chunk(ids, maxIDsPerStatement) {
		marks, args := inList(chunk)
		type graph struct {
			id     string
			nquads string
		}
		err := Each(s.q.Query(ctx, `SELECT CAST(d.id AS TEXT), r.source_raw
			FROM dataset d JOIN harvest_record r ON r.id = d.harvest_record_id
			WHERE d.id IN (`+marks+`) AND r.schema_type = '`+string(harvest.SchemaDCATAP)+`'
				AND r.source_raw IS NOT NULL AND r.source_raw <> ''`, args...), func(row Row) (graph, error) {
			var g graph
			return g, row.Scan(&g.id, &g.nquads)
		}, func(g graph) error {
			out[g.id] = []byte(g.nquads)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// LinkResultNewest implements store.Store (the link_result_checked_at index answers it).
func (s *Store) LinkResultNewest(ctx context.Context) (time.Time, error) {
	var newest *time.Time
	rows := s.q.Query(ctx, `SELECT max(checked_at) FROM link_result`)
	err := Each(rows, func(row Row) (*time.Time, error) {
		return nil, row.Scan(s.scan.NullTime(&newest))
	}, func(*time.Time) error { return nil })
	if err != nil || newest == nil {
		return time.Time{}, err
	}
	return newest.UTC(), nil
}
