package h2dumptest

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// Exec runs statements on the database at url.
func Exec(t testing.TB, url string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for _, s := range stmts {
		_, err := conn.Exec(ctx, s)
		require.NoError(t, err, s)
	}
}

// CopySource adds to the H2.0 database at url a copy of the harvest source from, with the id
// to, the url "<from's url>?<suffix>", and a copy of each of its jobs, records and datasets
// (ids md5(id || suffix) as UUIDs, dataset slugs "<slug>-<suffix>"): another source of the same
// organization.
func CopySource(t testing.TB, url, from, to, suffix string) {
	t.Helper()
	stmts := []string{
		`INSERT INTO harvest_source (id, organization_id, name, url, notification_emails, frequency, schema_type,
			source_type, notification_frequency, collection_parent_url)
		SELECT '` + to + `', organization_id, name || ' copy', url || '?copy', notification_emails, frequency,
			schema_type, source_type, notification_frequency, collection_parent_url
		FROM harvest_source WHERE id = '` + from + `'`,
		`INSERT INTO harvest_job (id, harvest_source_id, status, job_type, date_created, date_finished, records_total,
			records_added, records_updated, records_deleted, records_errored, records_ignored, records_validated,
			records_warned)
		SELECT md5(id || 'copy')::uuid::text, '` + to + `', status, job_type, date_created, date_finished,
			records_total, records_added, records_updated, records_deleted, records_errored, records_ignored,
			records_validated, records_warned
		FROM harvest_job WHERE harvest_source_id = '` + from + `'`,
		`INSERT INTO harvest_record (id, identifier, harvest_job_id, harvest_source_id, source_hash, source_raw,
			date_created, date_finished, action, status, source_transform, record_type)
		SELECT md5(id || 'copy')::uuid::text, identifier, md5(harvest_job_id || 'copy')::uuid::text, '` + to + `',
			source_hash, source_raw, date_created, date_finished, action, status, source_transform, record_type
		FROM harvest_record WHERE harvest_source_id = '` + from + `'`,
		`INSERT INTO dataset (id, slug, dcat, organization_id, harvest_source_id, harvest_record_id,
			last_harvested_date, type)
		SELECT md5(id || 'copy')::uuid::text, slug || '-copy', dcat, organization_id, '` + to + `',
			md5(harvest_record_id || 'copy')::uuid::text, last_harvested_date, type
		FROM dataset WHERE harvest_source_id = '` + from + `'`,
	}
	r := strings.NewReplacer("'copy'", "'"+suffix+"'", "'?copy'", "'?"+suffix+"'", "'-copy'", "'-"+suffix+"'")
	for i := range stmts {
		stmts[i] = r.Replace(stmts[i])
	}
	Exec(t, url, stmts...)
}

// FailDatasetInsert makes every insert of a dataset row whose slug is slug fail, in the
// Harvester Postgres database (schema) at url, until the returned function is called: an
// import that stops in the middle of a source, as a kill or a lost database would stop it.
func FailDatasetInsert(t testing.TB, url, slug string) (undo func()) {
	t.Helper()
	Exec(t, url, `CREATE FUNCTION fail_dataset_insert() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN
			IF NEW.slug = '`+slug+`' THEN RAISE EXCEPTION 'injected failure at dataset %', NEW.slug; END IF;
			RETURN NEW;
		END $$`,
		`CREATE TRIGGER fail_dataset_insert BEFORE INSERT ON dataset FOR EACH ROW EXECUTE FUNCTION fail_dataset_insert()`)
	return func() { Exec(t, url, `DROP TRIGGER fail_dataset_insert ON dataset`) }
}
