package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// resourceChunk is how many URIs one ResourceIDs statement names.
const resourceChunk = 500

// inList is the placeholders "$1, $2, …" of vals, for an IN list, and vals as the statement's
// arguments.
func inList[T any](vals []T) (string, []any) {
	args := make([]any, len(vals))
	for i, v := range vals {
		args[i] = v
	}
	return placeholders(1, len(vals), 1, ""), args
}

// placeholders is "$from, $from+1, …" n times, or, with group > 1, n groups "($a, $b, now())"
// of group placeholders each (the rows of a multi-row VALUES).
func placeholders(from, n, group int, suffix string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		if group == 1 {
			fmt.Fprintf(&b, "$%d", from+i)
			continue
		}
		b.WriteString("(")
		for j := range group {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "$%d", from+i*group+j)
		}
		b.WriteString(suffix + ")")
	}
	return b.String()
}

// ResourceIDs implements store.Store: per chunk of URIs, one SELECT of those known, one INSERT
// of the missing (ON CONFLICT DO NOTHING) and, when any was missing, one SELECT of them again,
// so a concurrent insert's fdkId is the one returned.
func (s *Store) ResourceIDs(ctx context.Context, uris []string, mint func(uri string) string) (map[string]string, error) {
	out := make(map[string]string, len(uris))
	uris = slices.Clone(uris)
	slices.Sort(uris)
	uris = slices.Compact(uris)
	for chunk := range slices.Chunk(uris, resourceChunk) {
		if err := s.resourceIDs(ctx, chunk, out); err != nil {
			return nil, err
		}
		var missing []any
		for _, u := range chunk {
			if _, ok := out[u]; !ok {
				missing = append(missing, u, mint(u))
			}
		}
		if len(missing) == 0 {
			continue
		}
		n := len(missing) / 2
		if _, err := s.q.Exec(ctx, s.sql(`INSERT INTO resource_identity (uri, fdk_id, created_at) VALUES `+
			placeholders(1, n, 2, ", now()")+` ON CONFLICT (uri) DO NOTHING`), s.stamped(s.d.NowArgs(), missing...)...); err != nil {
			return nil, err
		}
		again := make([]string, 0, n)
		for i := 0; i < len(missing); i += 2 {
			again = append(again, missing[i].(string))
		}
		if err := s.resourceIDs(ctx, again, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// resourceIDs adds the stored fdkIds of uris (at most resourceChunk) to out.
func (s *Store) resourceIDs(ctx context.Context, uris []string, out map[string]string) error {
	args := make([]any, len(uris))
	for i, u := range uris {
		args[i] = u
	}
	rows := s.q.Query(ctx, `SELECT uri, fdk_id FROM resource_identity WHERE uri IN (`+
		placeholders(1, len(uris), 1, "")+`)`, args...)
	return Each(rows, scanResource, func(r store.Resource) error {
		out[r.URI] = r.FdkID
		return nil
	})
}

// scanResource reads a (uri, fdk_id) row.
func scanResource(row Row) (store.Resource, error) {
	var r store.Resource
	err := row.Scan(&r.URI, &r.FdkID)
	return r, err
}

// CatalogChecksums implements store.Store.
func (s *Store) CatalogChecksums(ctx context.Context, sourceID string) (map[string]string, error) {
	out := map[string]string{}
	rows := s.q.Query(ctx, `SELECT uri, checksum FROM rdf_catalog WHERE source_id = $1`, sourceID)
	err := Each(rows, scanResource, func(r store.Resource) error { // (uri, checksum)
		out[r.URI] = r.FdkID
		return nil
	})
	return out, err
}

// CatalogChecksumsSet implements store.Store, in one transaction: one upsert per catalog.
func (s *Store) CatalogChecksumsSet(ctx context.Context, p *store.CatalogChecksumsSetParams) error {
	return s.d.InTx(ctx, func(tx Querier) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM harvest_source WHERE id = $1`, p.SourceID).Scan(&one); err != nil {
			return err
		}
		now := s.d.NowArgs()
		for _, c := range p.Catalogs {
			if _, err := tx.Exec(ctx, s.sql(`INSERT INTO rdf_catalog (source_id, uri, fdk_id, checksum, changed_job_id, updated_at)
				VALUES ($1, $2, $3, $4, $5, now())
				ON CONFLICT (source_id, uri) DO UPDATE SET fdk_id = excluded.fdk_id, checksum = excluded.checksum,
					changed_job_id = CASE WHEN rdf_catalog.checksum <> excluded.checksum OR $6
						THEN excluded.changed_job_id ELSE rdf_catalog.changed_job_id END,
					updated_at = excluded.updated_at`),
				s.stamped(now, p.SourceID, c.URI, c.FdkID, c.Checksum, p.JobID, p.Force)...); err != nil {
				return err
			}
		}
		return nil
	})
}

// CatalogsChangedInJob implements store.Store.
func (s *Store) CatalogsChangedInJob(ctx context.Context, jobID string) ([]store.Resource, error) {
	return Collect(s.q.Query(ctx, `SELECT uri, fdk_id FROM rdf_catalog WHERE changed_job_id = $1 ORDER BY uri`, jobID),
		scanResource)
}

// OutcomeIdentifiers implements store.Store: the keys IdentifierKey made ("id:" + identifier),
// without their prefix.
func (s *Store) OutcomeIdentifiers(ctx context.Context, p *store.OutcomeIdentifiersParams) ([]string, error) {
	if len(p.Outcomes) == 0 {
		return nil, nil
	}
	args := []any{p.JobID, harvest.IdentifierKey("") + "%"}
	for _, o := range p.Outcomes {
		args = append(args, string(o))
	}
	where := `harvest_job_id = $1 AND key LIKE $2 AND outcome IN (` + placeholders(3, len(p.Outcomes), 1, "") + `)`
	if p.After != "" {
		args = append(args, harvest.IdentifierKey(p.After))
		where += ` AND key > $` + fmt.Sprint(len(args))
	}
	limit := ""
	if p.Limit > 0 {
		args = append(args, p.Limit)
		limit = ` LIMIT $` + fmt.Sprint(len(args))
	}
	args = append(args, len(harvest.IdentifierKey(""))+1)
	return Collect(s.q.Query(ctx, `SELECT substr(key, $`+fmt.Sprint(len(args))+`) FROM harvest_job_outcome
		WHERE `+where+` ORDER BY key`+limit, args...), String)
}
