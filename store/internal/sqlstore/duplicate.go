package sqlstore

import (
	"context"

	"github.com/harvester-dev/harvester/store"
)

// duplicateSide are the columns of one side of a pair: source (alias s), organization (o) and
// dataset (d), in store.DuplicateSide's order.
func duplicateSide(s, o, d string) string {
	return s + `.id, ` + s + `.name, COALESCE(CAST(` + s + `.organization_id AS TEXT), ''), COALESCE(` + o + `.name, ''), ` +
		d + `.id, ` + d + `.slug, ` + d + `.identifier, ` + d + `.harvest_record_id, ` + s + `.precedence`
}

// duplicateFrom joins each held dataset (h) to the dataset it duplicates (k), their sources (hs,
// ks) and organizations (ho, ko), filtered on $1 source (either side), $2 organization (either
// side) and $3 first job, each NULL for any.
const duplicateFrom = ` FROM dataset h
	JOIN dataset k ON k.id = h.duplicate_of
	JOIN harvest_source hs ON hs.id = h.harvest_source_id
	JOIN harvest_source ks ON ks.id = k.harvest_source_id
	LEFT JOIN organization ho ON ho.id = hs.organization_id
	LEFT JOIN organization ko ON ko.id = ks.organization_id
	WHERE h.duplicate_of IS NOT NULL
	AND (CAST($1 AS TEXT) IS NULL OR CAST(h.harvest_source_id AS TEXT) = $1 OR CAST(k.harvest_source_id AS TEXT) = $1)
	AND (CAST($2 AS TEXT) IS NULL OR CAST(hs.organization_id AS TEXT) = $2 OR CAST(ks.organization_id AS TEXT) = $2)
	AND (CAST($3 AS TEXT) IS NULL OR CAST(h.duplicate_job_id AS TEXT) = $3)`

// CrossSourceDuplicateList implements store.Store.
func (s *Store) CrossSourceDuplicateList(ctx context.Context, p *store.CrossSourceDuplicateListParams) ([]store.CrossSourceDuplicate, int, error) {
	args := []any{nullable(p.SourceID), nullable(p.OrganizationID), nullable(p.JobID)}
	total, err := Count(ctx, s.q, `SELECT count(*)`+duplicateFrom, args...)
	if err != nil {
		return nil, 0, err
	}
	limit, offset := p.Bounds()
	pairs, err := Collect(s.q.Query(ctx, `SELECT h.duplicate_match, COALESCE(h.duplicate_key, ''),
		COALESCE(CAST(h.duplicate_job_id AS TEXT), ''), h.duplicate_seen_at, `+
		duplicateSide("ks", "ko", "k")+`, `+duplicateSide("hs", "ho", "h")+duplicateFrom+`
		ORDER BY h.duplicate_seen_at DESC, h.id LIMIT $4 OFFSET $5`, append(args, limit, offset)...), s.scanDuplicate)
	return pairs, total, err
}

// scanDuplicate reads a row of CrossSourceDuplicateList.
func (s *Store) scanDuplicate(row Row) (store.CrossSourceDuplicate, error) {
	var c store.CrossSourceDuplicate
	side := func(d *store.DuplicateSide) []any {
		return []any{&d.SourceID, &d.SourceName, &d.OrganizationID, &d.OrganizationName, &d.DatasetID,
			&d.DatasetSlug, &d.Identifier, &d.RecordID, &d.Precedence}
	}
	dest := append([]any{&c.Match, &c.Key, &c.FirstJobID, s.scan.Time(&c.FirstSeenAt)}, side(&c.Kept)...)
	err := row.Scan(append(dest, side(&c.Held)...)...)
	return c, err
}
