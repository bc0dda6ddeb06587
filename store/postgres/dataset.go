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
	ids := make([]string, len(ps)) // a new dataset's id; one that exists keeps its own
	var jobs guardedJobs
	for i, p := range ps {
		k := key{p.SourceID, p.Identifier}
		if _, dup := at[k]; dup {
			return nil, fmt.Errorf("%w: dataset %q of source %s twice in one batch", store.ErrConflict, p.Identifier, p.SourceID)
		}
		at[k] = i
		slugs[i], identifiers[i], dcats[i], sources[i] = p.Slug, p.Identifier, string(store.StorableJSON(p.DCAT)), p.SourceID
		alts[i], ids[i] = p.AltSlug, sqlstore.NewDatasetID()
		recordTypes[i] = store.DatasetRecordType(p.RecordType)
		landings[i], shas[i] = p.LandingPage, p.DownloadURLsSHA
		if p.RecordID != "" {
			records[i] = &p.RecordID
		}
		jobs.add(p.JobID)
	}
	// The jobs' check (open: every job of the batch still open, share-locked), the datasets, then
	// the keys their sources publish for the first time (as sqlstore.FirstPublished: at the
	// statement's now(), in key order, a key published before keeps its row).
	rows := s.q.Query(ctx, `WITH open AS (`+jobs.openSQL("$10")+`),
	up AS (
		INSERT INTO dataset (id, slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date, record_type,
			landing_page, download_urls_sha)
		SELECT v.id, CASE WHEN v.alt <> '' AND EXISTS (SELECT 1 FROM dataset x WHERE x.slug = v.slug
				AND NOT (x.harvest_source_id = v.source AND x.identifier = v.identifier)) THEN v.alt ELSE v.slug END,
			v.identifier, v.dcat::jsonb, v.source, v.record, now(), v.record_type, NULLIF(v.landing, ''),
			NULLIF(v.sha, '')
		FROM unnest($1::text[], $2::text[], $3::text[], $4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::text[],
			$9::text[], $12::uuid[]) AS v(slug, identifier, dcat, source, record, record_type, landing, sha, alt, id)
		WHERE (SELECT count(*) FROM open) = $11
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
	SELECT `+sqlstore.DatasetColumns+` FROM up`, slugs, identifiers, dcats, sources, records, recordTypes, landings, shas, alts,
		jobs.ids, len(jobs.ids), ids)
	out := make([]*store.Dataset, len(ps))
	n := 0
	err := sqlstore.Each(rows, scan.Dataset, func(d *store.Dataset) error {
		out[at[key{d.SourceID, d.Identifier}]] = d
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n < len(ps) { // only the jobs' check writes nothing
		return nil, sqlstore.JobEnded(ctx, s.q, "a batch of datasets", jobs.ids...)
	}
	return out, nil
}

// jobOpenLock is sqlstore.SQL.JobOpenLock on Postgres: the share lock a write of a job's
// record holds on the job's row, which only JobFail's FOR UPDATE conflicts with.
const jobOpenLock = " FOR KEY SHARE"

// guardedJobs are the distinct jobs a batch of writes checks (store.ErrJobEnded), in order.
type guardedJobs struct {
	ids  []string
	seen map[string]bool
}

// add adds job ("" for none: a write whatever the job's status).
func (g *guardedJobs) add(job string) {
	if job == "" || g.seen[job] {
		return
	}
	if g.seen == nil {
		g.seen = map[string]bool{}
	}
	g.seen[job] = true
	g.ids = append(g.ids, job)
}

// openSQL selects, share-locked, the jobs of the array param that are new or in progress: a
// batch writes only when their count is the number of jobs it checks, so that it is all or
// nothing as the store's contract says.
func (g *guardedJobs) openSQL(param string) string {
	return `SELECT id FROM harvest_job WHERE id = ANY(` + param + `::uuid[]) AND status IN ('new', 'in_progress')` +
		jobOpenLock
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
