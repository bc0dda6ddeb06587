package sqlstore

import (
	"cmp"
	"context"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// upsertByID runs an INSERT of table's columns (cols, their values args, then the dialect's
// now() arguments) that, when the row p.ID exists, updates the columns update to the new values
// only where one differs, in a transaction that first looks whether the row exists: the
// ImportResult of the store's *Import methods. extraUpdate is added to the SET list of an
// update (e.g. updated_at = now()); insertOnly are columns (with their SQL values) written only
// by the INSERT; keep, when set, is a condition on the existing row under which it is left as
// it is (ImportUnchanged).
func (s *Store) upsertByID(ctx context.Context, table, id string, cols []string, args []any, update []string,
	insertOnly map[string]string, extraUpdate, keep string) (store.ImportResult, error) {
	values := make([]string, len(cols))
	for i := range cols {
		values[i] = "$" + strconv.Itoa(i+1)
	}
	allCols := slices.Clone(cols)
	for _, c := range slices.Sorted(maps.Keys(insertOnly)) {
		allCols, values = append(allCols, c), append(values, insertOnly[c])
	}
	set := make([]string, 0, len(update)+1)
	differs := make([]string, 0, len(update))
	for _, c := range update {
		set = append(set, c+" = excluded."+c)
		differs = append(differs, table+"."+c+" IS DISTINCT FROM excluded."+c)
	}
	if extraUpdate != "" {
		set = append(set, extraUpdate)
	}
	where := "(" + strings.Join(differs, " OR ") + ")"
	if keep != "" {
		where += " AND NOT (" + keep + ")"
	}
	stmt := s.sql(`INSERT INTO ` + table + ` (` + strings.Join(allCols, ", ") + `) VALUES (` +
		strings.Join(values, ", ") + `) ON CONFLICT (id) DO UPDATE SET ` + strings.Join(set, ", ") +
		` WHERE ` + where + ` RETURNING id`)
	result := store.ImportUnchanged
	err := s.d.InTx(ctx, func(tx Querier) error {
		existed, err := Count(ctx, tx, `SELECT count(*) FROM `+table+` WHERE id = $1`, id)
		if err != nil {
			return err
		}
		var got string
		err = tx.QueryRow(ctx, stmt, s.stamped(s.d.NowArgs(), args...)...).Scan(&got)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return nil // existed and equal: the update's WHERE matched nothing
		case err != nil:
			return err
		case existed > 0:
			result = store.ImportChanged
		default:
			result = store.ImportCreated
		}
		return nil
	})
	return result, err
}

// ImportTx implements store.Store: fn writes through a Store over the transaction, whose
// writes each run in a savepoint (upsertByID's transaction, nested).
func (s *Store) ImportTx(ctx context.Context, fn func(store.Importer) error) error {
	return s.d.InTx(ctx, func(tx Querier) error {
		in := *s
		in.q = tx
		in.d.InTx = func(ctx context.Context, fn func(Querier) error) error { return savepoint(ctx, tx, fn) }
		return fn(&in)
	})
}

// savepoint runs fn inside tx in a savepoint (same SQL on Postgres and SQLite): when fn fails,
// what it wrote is undone and the transaction goes on.
func savepoint(ctx context.Context, tx Querier, fn func(Querier) error) error {
	if _, err := tx.Exec(ctx, `SAVEPOINT import_row`); err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		if _, rerr := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT import_row`); rerr != nil {
			return errors.Join(err, rerr)
		}
		_, rerr := tx.Exec(ctx, `RELEASE SAVEPOINT import_row`)
		return errors.Join(err, rerr)
	}
	_, err := tx.Exec(ctx, `RELEASE SAVEPOINT import_row`)
	return err
}

// OrganizationImport implements store.Store.
func (s *Store) OrganizationImport(ctx context.Context, p *store.OrganizationImportParams) (store.ImportResult, error) {
	return s.upsertByID(ctx, "organization", p.ID, []string{"id", "name", "slug"}, []any{p.ID, p.Name, p.Slug},
		[]string{"name", "slug"}, map[string]string{"created_at": "now()"}, "", "")
}

// SourceImport implements store.Store.
func (s *Store) SourceImport(ctx context.Context, p *store.SourceImportParams) (store.ImportResult, error) {
	freq := cmp.Or(p.Frequency, harvest.FrequencyManual)
	cols := []string{"id", "organization_id", "name", "url", "source_type", "schema_type", "frequency",
		"notification_emails", "notification_frequency", "collection_parent_url"}
	args := []any{p.ID, nullable(p.OrganizationID), p.Name, p.URL, string(p.SourceType), string(p.SchemaType),
		string(freq), s.d.Strings(p.NotificationEmails), string(cmp.Or(p.NotificationFrequency, harvest.NotifyOnError)),
		nullable(p.CollectionParentURL)}
	var nextRun any // none for manual; not due at once otherwise
	if freq != harvest.FrequencyManual {
		nextRun = s.d.Time(freq.After(time.Now().UTC()))
	}
	args = append(args, nextRun)
	return s.upsertByID(ctx, "harvest_source", p.ID, cols, args, cols[1:],
		map[string]string{"created_at": "now()", "updated_at": "now()", "next_run_at": "$" + strconv.Itoa(len(args))},
		"updated_at = now()", "")
}

// JobImport implements store.Store.
func (s *Store) JobImport(ctx context.Context, p *store.JobImportParams) (store.ImportResult, error) {
	cols := []string{"id", "harvest_source_id", "job_type", "status", "date_created", "date_finished",
		"records_total", "records_added", "records_updated", "records_deleted", "records_unchanged",
		"records_errored", "records_validated", "records_warned", "records_settled", "records_expected"}
	args := []any{p.ID, p.SourceID, string(p.JobType), string(p.Status), s.d.Time(p.CreatedAt), s.d.Time(p.FinishedAt),
		p.Total, p.Added, p.Updated, p.Deleted, p.Unchanged, p.Errored, p.Validated, p.Warned, p.Total, p.Total}
	return s.upsertByID(ctx, "harvest_job", p.ID, cols, args, cols[1:], nil, "", "")
}

// RecordImport implements store.Store.
func (s *Store) RecordImport(ctx context.Context, p *store.RecordImportParams) (store.ImportResult, error) {
	var transform any
	if len(p.SourceTransform) > 0 {
		transform = string(store.StorableJSON(p.SourceTransform))
	}
	cols := []string{"id", "harvest_job_id", "harvest_source_id", "identifier", "action", "source_hash",
		"h2_source_hash", "source_raw", "source_transform", "status", "schema_type", "date_created", "date_finished"}
	args := []any{p.ID, p.JobID, p.SourceID, p.Identifier, string(p.Action), nullable(p.SourceHash),
		nullable(p.H2SourceHash), nullable(p.SourceRaw), transform, string(harvest.RecordSuccess),
		nullable(string(p.SchemaType)), s.d.Time(p.CreatedAt), s.d.Time(p.CreatedAt)}
	return s.upsertByID(ctx, "harvest_record", p.ID, cols, args, cols[1:], nil, "", "")
}

// DatasetImport implements store.Store.
func (s *Store) DatasetImport(ctx context.Context, p *store.DatasetImportParams) (store.ImportResult, error) {
	cols := []string{"id", "slug", "harvest_source_id", "identifier", "dcat", "harvest_record_id",
		"last_harvested_date", "record_type"}
	args := []any{p.ID, p.Slug, p.SourceID, p.Identifier, string(store.StorableJSON(p.DCAT)), p.RecordID,
		s.d.Time(p.LastHarvestedDate), store.DatasetRecordType(p.RecordType)}
	// A dataset that a harvest has written since (its record is not an imported one) is kept.
	res, err := s.upsertByID(ctx, "dataset", p.ID, cols, args, cols[1:], nil, "",
		`EXISTS (SELECT 1 FROM harvest_record h WHERE h.id = dataset.harvest_record_id AND h.h2_source_hash IS NULL)`)
	if err != nil {
		return res, err
	}
	// Its identifier was first published, as far as H2.0 tells, when it was last harvested there.
	return res, s.firstPublishedImported(ctx, p.ID)
}
