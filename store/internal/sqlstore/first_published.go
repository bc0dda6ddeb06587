package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/store"
)

// firstPublishedInsert adds to source_key_first_published each duplicate key of the dataset $1
// (its identifier, landing_page, download_urls_sha, those not NULL) that its source has no row
// for yet, published at the time %s (SQL) by the job of the dataset's record (created at that
// time when it has none). A key the source published before keeps its row (ON CONFLICT DO
// NOTHING); the keys are inserted in key order, as every writer does, so that two
// transactions adding the same keys wait for each other instead of deadlocking.
const firstPublishedInsert = `INSERT INTO source_key_first_published (harvest_source_id, duplicate_match,
		duplicate_key, first_published_at, first_job_id, first_job_created_at)
	SELECT d.harvest_source_id, k.m, CASE k.m WHEN 'identifier' THEN d.identifier WHEN 'landingPage' THEN d.landing_page
			ELSE d.download_urls_sha END, %[1]s, j.id, COALESCE(j.date_created, %[1]s)
	FROM dataset d
	CROSS JOIN (SELECT 'identifier' AS m UNION ALL SELECT 'landingPage' UNION ALL SELECT 'downloadURL') k
	LEFT JOIN harvest_record r ON r.id = d.harvest_record_id
	LEFT JOIN harvest_job j ON j.id = r.harvest_job_id
	WHERE d.id = $1 AND CASE k.m WHEN 'identifier' THEN d.identifier WHEN 'landingPage' THEN d.landing_page
			ELSE d.download_urls_sha END IS NOT NULL
	ORDER BY 2, 3
	ON CONFLICT DO NOTHING`

// FirstPublished records when the source of the dataset datasetID, just written in q (a
// transaction), first published each of its keys: now for the keys it publishes for the first
// time (firstPublishedInsert). now are the dialect's arguments of now() (Dialect.NowArgs), the
// same as the write's, so that the dataset and its keys are stamped alike.
func (s *Store) FirstPublished(ctx context.Context, q Querier, datasetID string, now []any) error {
	_, err := q.Exec(ctx, s.sql(fmt.Sprintf(firstPublishedInsert, "now()")), s.stamped(now, datasetID)...)
	return err
}

// firstPublishedImported records the keys of an imported dataset as first published when the
// dataset was last harvested (all Data.gov H2.0 tells of it).
func (s *Store) firstPublishedImported(ctx context.Context, datasetID string) error {
	_, err := s.q.Exec(ctx, fmt.Sprintf(firstPublishedInsert, "d.last_harvested_date"), datasetID)
	return err
}

// DatasetUpsert implements store.Store in one transaction: the dataset's row, and the keys its
// source publishes for the first time (FirstPublished). A new dataset gets a new
// time-ordered (version 7) UUID (NewDatasetID); an existing one keeps its id.
func (s *Store) DatasetUpsert(ctx context.Context, p *store.DatasetUpsertParams) (*store.Dataset, error) {
	open, args := "true", []any{NewDatasetID(), p.Slug, p.Identifier, string(store.StorableJSON(p.DCAT)),
		p.SourceID, p.RecordID, store.DatasetRecordType(p.RecordType), nullable(p.LandingPage), nullable(p.DownloadURLsSHA)}
	if p.JobID != "" {
		open, args = JobOpen("$10", s.d.SQL.JobOpenLock), append(args, p.JobID)
	}
	var ds *store.Dataset
	err := s.d.InTx(ctx, func(tx Querier) error {
		now := s.d.NowArgs()
		var err error
		ds, err = s.scan.Dataset(tx.QueryRow(ctx, s.sql(`
			INSERT INTO dataset (id, slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date,
				record_type, landing_page, download_urls_sha)
			SELECT $1, $2, $3, $4, $5, $6, now(), $7, $8, $9 WHERE `+open+`
			ON CONFLICT (harvest_source_id, identifier) DO UPDATE SET dcat = excluded.dcat,
				harvest_record_id = excluded.harvest_record_id, last_harvested_date = excluded.last_harvested_date,
				record_type = excluded.record_type, landing_page = excluded.landing_page,
				download_urls_sha = excluded.download_urls_sha, duplicate_moved = FALSE
			RETURNING `+DatasetColumns), s.stamped(now, args...)...))
		if errors.Is(err, store.ErrNotFound) && p.JobID != "" {
			return JobEnded(ctx, tx, fmt.Sprintf("dataset %q", p.Identifier), p.JobID)
		}
		if err != nil {
			return err
		}
		return s.FirstPublished(ctx, tx, ds.ID, now)
	})
	if err != nil {
		return nil, err
	}
	return ds, nil
}
