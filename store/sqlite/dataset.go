package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/internal/sqlstore"
)

// DatasetUpsertBatch implements store.Store: the upserts in one transaction, each with the keys
// its source publishes for the first time (sqlstore.Store.FirstPublished); a created dataset
// whose slug is taken takes its AltSlug.
func (s *Store) DatasetUpsertBatch(ctx context.Context, ps []*store.DatasetUpsertParams) ([]*store.Dataset, error) {
	type key struct{ source, identifier string }
	seen := make(map[key]bool, len(ps))
	for _, p := range ps {
		k := key{p.SourceID, p.Identifier}
		if seen[k] {
			return nil, fmt.Errorf("%w: dataset %q of source %s twice in one batch", store.ErrConflict, p.Identifier, p.SourceID)
		}
		seen[k] = true
	}
	out := make([]*store.Dataset, len(ps))
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		t := now()
		created := make(map[string]bool, len(ps)) // slugs of the datasets this batch created
		for i, p := range ps {
			// As Postgres's one statement, which sees none of its own rows: a slug that a dataset
			// created earlier in this batch took is no reason to take AltSlug, it is a conflict.
			alt, id := p.AltSlug, sqlstore.NewDatasetID()
			if created[p.Slug] {
				alt = ""
			}
			// As DatasetUpsert: with a JobID, only while the job is open (no row: ErrJobEnded,
			// and the whole batch is rolled back).
			d, err := scan.Dataset(querier{tx}.QueryRow(ctx, `
				INSERT INTO dataset (id, slug, identifier, dcat, harvest_source_id, harvest_record_id, last_harvested_date, record_type,
					landing_page, download_urls_sha)
				SELECT ?, CASE WHEN ? <> '' AND EXISTS (SELECT 1 FROM dataset x WHERE x.slug = ?
					AND NOT (x.harvest_source_id = ? AND x.identifier = ?)) THEN ? ELSE ? END,
					?, ?, ?, ?, ?, ?, NULLIF(?, ''), NULLIF(?, '')
				WHERE ? = '' OR `+sqlstore.JobOpen("?", "")+`
				ON CONFLICT (harvest_source_id, identifier) DO UPDATE SET dcat = excluded.dcat,
					harvest_record_id = excluded.harvest_record_id, last_harvested_date = excluded.last_harvested_date,
					record_type = excluded.record_type, landing_page = excluded.landing_page,
					download_urls_sha = excluded.download_urls_sha, duplicate_moved = FALSE
				RETURNING `+sqlstore.DatasetColumns, id, alt, p.Slug, p.SourceID, p.Identifier,
				alt, p.Slug, p.Identifier, string(store.StorableJSON(p.DCAT)),
				p.SourceID, p.RecordID, t, store.DatasetRecordType(p.RecordType), p.LandingPage, p.DownloadURLsSHA,
				p.JobID, p.JobID))
			if errors.Is(err, store.ErrNotFound) && p.JobID != "" {
				return sqlstore.JobEnded(ctx, querier{tx}, fmt.Sprintf("dataset %q", p.Identifier), p.JobID)
			}
			if err != nil {
				return err
			}
			if d.ID == id {
				created[d.Slug] = true
			}
			if err := s.FirstPublished(ctx, querier{tx}, d.ID, []any{sql.Named("now", t)}); err != nil {
				return err
			}
			out[i] = d
		}
		return nil
	})
	if err != nil {
		return nil, interpretError(err)
	}
	return out, nil
}
