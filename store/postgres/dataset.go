package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// DatasetUpsertBatch implements store.Store with one INSERT ... SELECT FROM unnest(...) ON
// CONFLICT DO UPDATE (bench: BenchmarkDatasetUpsert), with the keys the datasets' sources
// publish for the first time in the same statement; a created dataset whose slug is taken
// takes its AltSlug in the same statement.
func (s *Store) DatasetUpsertBatch(ctx context.Context, ps []*store.DatasetUpsertParams) ([]*store.Dataset, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	type key struct{ source, identifier string }
	at := make(map[key]int, len(ps))
	slugs, alts, identifiers, dcats, sources, records := make([]string, len(ps)), make([]string, len(ps)),
		make([]string, len(ps)), make([]string, len(ps)), make([]string, len(ps)), make([]*string, len(ps))
	recordTypes, landings, shas := make([]string, len(ps)), make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		k := key{p.SourceID, p.Identifier}
		if _, dup := at[k]; dup {
			return nil, fmt.Errorf("%w: dataset %q of source %s twice in one batch", store.ErrConflict, p.Identifier, p.SourceID)
		}
		at[k] = i
		slugs[i], identifiers[i], dcats[i], sources[i] = p.Slug, p.Identifier, string(store.StorableJSON(p.DCAT)), p.SourceID
		alts[i] = p.AltSlug
		recordTypes[i] = store.DatasetRecordType(p.RecordType)
		landings[i], shas[i] = p.LandingPage, p.DownloadURLsSHA
		if p.RecordID != "" {
			records[i] = &p.RecordID
		}
	}
	// The datasets, then the keys their sources publish for the first time (as
	// sqlstore.FirstPublished: at the statement's now(), in key order, a key published before
	// keeps its row).
	rows := s.q.Query(ctx, `WITH up AS (
		INSERT INTO dataset (slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date, record_type,
			landing_page, download_urls_sha)
		SELECT CASE WHEN v.alt <> '' AND EXISTS (SELECT 1 FROM dataset x WHERE x.slug = v.slug
				AND NOT (x.harvest_source_id = v.source AND x.identifier = v.identifier)) THEN v.alt ELSE v.slug END,
			v.identifier, v.dcat::jsonb, v.source, v.record, now(), v.record_type, NULLIF(v.landing, ''),
			NULLIF(v.sha, '')
		FROM unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::text[],
			$9::text[]) AS v(slug, identifier, dcat, source, record, record_type, landing, sha, alt)
		ON CONFLICT (harvest_source_id, identifier) DO UPDATE SET dcat = EXCLUDED.dcat,
			harvest_record_id = EXCLUDED.harvest_record_id, last_harvested_date = EXCLUDED.last_harvested_date,
			record_type = EXCLUDED.record_type, landing_page = EXCLUDED.landing_page,
			download_urls_sha = EXCLUDED.download_urls_sha, duplicate_moved = false
		RETURNING *),
	published AS (INSERT INTO source_key_first_published (harvest_source_id, duplicate_match, duplicate_key,
			first_published_at, first_job_id, first_job_created_at)
		SELECT up.harvest_source_id, k.m, k.v, now(), j.id, COALESCE(j.date_created, now())
		FROM up CROSS JOIN LATERAL (VALUES ('identifier', up.identifier), ('landingPage', up.landing_page),
			('downloadURL', up.download_urls_sha)) AS k(m, v)
		LEFT JOIN harvest_record r ON r.id = up.harvest_record_id
		LEFT JOIN harvest_job j ON j.id = r.harvest_job_id
		WHERE k.v IS NOT NULL
		ORDER BY 1, 2, 3
		ON CONFLICT DO NOTHING)
	SELECT `+sqlstore.DatasetColumns+` FROM up`, slugs, identifiers, dcats, sources, records, recordTypes, landings, shas, alts)
	out := make([]*store.Dataset, len(ps))
	err := sqlstore.Each(rows, scan.Dataset, func(d *store.Dataset) error {
		out[at[key{d.SourceID, d.Identifier}]] = d
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// DatasetDuplicatePossible implements store.Store in one statement over an array of the ids.
func (s *Store) DatasetDuplicatePossible(ctx context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ids) == 0 {
		return out, nil
	}
	keys := make([]pgtype.UUID, len(ids))
	for i, id := range ids {
		keys[i] = pgUUID(id)
	}
	if err := sqlstore.AddIDs(out, s.q.Query(ctx, `SELECT d.id::text FROM dataset d WHERE d.id = ANY($1::uuid[])
		AND `+sqlstore.DuplicatePossible(" OFFSET 0"), keys)); err != nil {
		return nil, err
	}
	return out, nil
}
