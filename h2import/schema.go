package h2import

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ErrNotH2 is a --from database that lacks a table or column the import reads: not a Data.gov
// H2.0 database (or one of another version).
var ErrNotH2 = errors.New("not a Data.gov H2.0 database")

// h2Columns are the tables and columns the import reads, as H2.0's migrations at e04f7de8
// create them.
var h2Columns = map[string][]string{
	"organization": {"id", "name", "slug"},
	"harvest_source": {"id", "organization_id", "name", "url", "notification_emails", "frequency", "schema_type",
		"source_type", "notification_frequency", "collection_parent_url"},
	"harvest_job": {"id", "harvest_source_id", "job_type", "status", "date_created", "date_finished",
		"records_total", "records_added", "records_updated", "records_deleted", "records_ignored",
		"records_errored", "records_validated", "records_warned"},
	"harvest_record": {"id", "harvest_job_id", "harvest_source_id", "identifier", "record_type", "action",
		"status", "source_hash", "source_raw", "source_transform", "date_created", "date_finished"},
	"dataset": {"id", "slug", "dcat", "harvest_record_id", "last_harvested_date", "type"},
}

// checkSchema returns an ErrNotH2 error naming what is missing (whole tables, else columns as
// table.column) when the database of tx lacks any of h2Columns in its current schema.
func checkSchema(ctx context.Context, tx pgx.Tx) error {
	rows, err := tx.Query(ctx, `SELECT table_name::text, column_name::text FROM information_schema.columns
		WHERE table_schema = current_schema()`)
	if err != nil {
		return fmt.Errorf("read the H2.0 database's schema: %w", err)
	}
	has := map[string]map[string]bool{}
	var table, column string
	_, err = pgx.ForEachRow(rows, []any{&table, &column}, func() error {
		if has[table] == nil {
			has[table] = map[string]bool{}
		}
		has[table][column] = true
		return nil
	})
	if err != nil {
		return fmt.Errorf("read the H2.0 database's schema: %w", err)
	}
	var noTables, noColumns []string
	for t, cols := range h2Columns {
		if has[t] == nil {
			noTables = append(noTables, t)
			continue
		}
		for _, c := range cols {
			if !has[t][c] {
				noColumns = append(noColumns, t+"."+c)
			}
		}
	}
	slices.Sort(noTables)
	slices.Sort(noColumns)
	var missing []string
	if len(noTables) > 0 {
		missing = append(missing, "the tables "+list(noTables))
	}
	if len(noColumns) > 0 {
		missing = append(missing, "the columns "+list(noColumns))
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("the database to import from is %w (as H2.0's migrations at e04f7de8 make one): it lacks %s",
		ErrNotH2, strings.Join(missing, " and "))
}

// list is "a", "a and b", "a, b and c".
func list(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
