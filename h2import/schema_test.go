package h2import_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/h2import"
	"github.com/harvester-dev/harvester/h2import/h2dumptest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// TestNotH2: pointed at a database that is not H2.0's (Harvester's own, migrated), the import
// says so in one sentence naming what it lacks, and writes nothing.
func TestNotH2(t *testing.T) {
	t.Parallel()
	from := dbtest.URL(t) // Harvester's own schema, with an organization in it
	ours := dbtest.Open(t, from)
	require.NoError(t, ours.Migrate(context.Background()))
	_, err := ours.OrganizationInsert(context.Background(), &store.OrganizationInsertParams{Name: "A", Slug: "a"})
	require.NoError(t, err)
	st := dbtest.Store(t)
	rep, err := h2import.Run(context.Background(), h2import.Config{From: from}, st)
	require.ErrorIs(t, err, h2import.ErrNotH2)
	require.Nil(t, rep)
	msg := err.Error()
	orgs, _, err := st.OrganizationList(context.Background(), &store.PageParams{})
	require.NoError(t, err)
	require.Empty(t, orgs, "nothing written")
	require.Equal(t, "the database to import from is not a Data.gov H2.0 database (as H2.0's migrations at "+
		"e04f7de8 make one): it lacks the columns dataset.type, harvest_job.records_ignored and "+
		"harvest_record.record_type", msg)

	empty := dbtest.URL(t) // no tables at all
	_, err = h2import.Run(context.Background(), h2import.Config{From: empty}, st)
	require.ErrorIs(t, err, h2import.ErrNotH2)
	require.Contains(t, err.Error(), "it lacks the tables dataset, harvest_job, harvest_record, harvest_source and organization")
}

// TestNulls: NULLs where H2.0's schema allows them are imported as their defaults, and a NULL
// in a column H2.0 makes NOT NULL (in a database that dropped the constraint) is a row-level
// report, not a scan error.
func TestNulls(t *testing.T) {
	t.Parallel()
	h2 := h2dumptest.Load(t, "h2-gsa-2025-07.sql.gz")
	ids := identifiers(t, h2, gsaSource, 2)
	h2dumptest.Exec(t, h2,
		`UPDATE harvest_source SET notification_emails = NULL, collection_parent_url = NULL`,
		`UPDATE harvest_job SET job_type = NULL, date_created = NULL, date_finished = NULL, records_total = NULL,
			records_added = NULL, records_updated = NULL, records_deleted = NULL, records_errored = NULL,
			records_ignored = NULL, records_validated = NULL, records_warned = NULL`,
		`UPDATE harvest_record SET source_hash = NULL, action = NULL, date_finished = NULL, source_transform = NULL`,
		`UPDATE dataset SET last_harvested_date = NULL`,
		`ALTER TABLE dataset ALTER slug DROP NOT NULL`,
		`UPDATE dataset SET slug = NULL WHERE harvest_record_id IN
			(SELECT id FROM harvest_record WHERE identifier = '`+ids[0]+`')`,
		`ALTER TABLE harvest_record ALTER identifier DROP NOT NULL`,
		`UPDATE harvest_record SET identifier = NULL WHERE identifier = '`+ids[1]+`'`,
	)
	st := dbtest.Store(t)
	rep, err := h2import.Run(context.Background(), h2import.Config{From: h2}, st)
	require.NoError(t, err)
	require.Equal(t, 341, rep.Datasets.Created, rep.String())
	require.Equal(t, 2, rep.ErrorCount, rep.Errors)
	report := strings.Join(rep.Errors, "\n")
	require.Contains(t, report, ": slug: required; its record and dataset are not imported")
	require.Contains(t, report, ": identifier: required; its record and dataset are not imported")
}
