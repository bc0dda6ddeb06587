package h2import_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/h2import"
	"github.com/harvester-dev/harvester/h2import/h2dumptest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// identifiers returns the first n identifiers of the source's records, in order.
func identifiers(t *testing.T, h2, source string, n int) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, h2)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT identifier FROM harvest_record WHERE harvest_source_id = $1
		ORDER BY identifier LIMIT $2`, source, n)
	require.NoError(t, err)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return ids
}

// TestRefusedRows: rows that the API would refuse, or that no harvest writes, are not imported,
// nor is what depends on them, and each is one report line naming its table, id and why: a
// source whose url is a local file (/etc/passwd, file://) with all its jobs, records and
// datasets; an organization with an empty name with its source; a dataset with an empty slug,
// one whose dcat is not a JSON object, and a record whose id is not a UUID, each with its record.
// The rest is imported.
func TestRefusedRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h2 := h2dumptest.Load(t, "h2-gsa-2025-07.sql.gz")
	const (
		passwd  = "ffffffff-ffff-4fff-8fff-0000000000c1"
		fileURL = "ffffffff-ffff-4fff-8fff-0000000000c2"
		ofBad   = "ffffffff-ffff-4fff-8fff-0000000000c3"
		badOrg  = "ffffffff-ffff-4fff-8fff-0000000000a2"
	)
	h2dumptest.CopySource(t, h2, gsaSource, passwd, "passwd")
	h2dumptest.CopySource(t, h2, gsaSource, fileURL, "file")
	h2dumptest.CopySource(t, h2, gsaSource, ofBad, "badorg")
	ids := identifiers(t, h2, gsaSource, 3)
	emptySlug, arrayDCAT, notUUID := ids[0], ids[1], ids[2]
	h2dumptest.Exec(t, h2,
		`UPDATE harvest_source SET url = '/etc/passwd' WHERE id = '`+passwd+`'`,
		`UPDATE harvest_source SET url = 'file:///etc/passwd' WHERE id = '`+fileURL+`'`,
		`INSERT INTO organization (id, name, slug) VALUES ('`+badOrg+`', ' ', 'bad-org')`,
		`UPDATE harvest_source SET organization_id = '`+badOrg+`' WHERE id = '`+ofBad+`'`,
		`UPDATE dataset SET organization_id = '`+badOrg+`' WHERE harvest_source_id = '`+ofBad+`'`,
		`UPDATE dataset SET slug = '' WHERE harvest_source_id = '`+gsaSource+`' AND harvest_record_id IN
			(SELECT id FROM harvest_record WHERE identifier = '`+emptySlug+`')`,
		`UPDATE dataset SET dcat = '[1]' WHERE harvest_source_id = '`+gsaSource+`' AND harvest_record_id IN
			(SELECT id FROM harvest_record WHERE identifier = '`+arrayDCAT+`')`,
		`ALTER TABLE dataset DROP CONSTRAINT dataset_harvest_record_id_fkey`,
		`UPDATE dataset SET harvest_record_id = 'not-a-uuid' WHERE harvest_source_id = '`+gsaSource+`' AND harvest_record_id IN
			(SELECT id FROM harvest_record WHERE identifier = '`+notUUID+`')`,
		`UPDATE harvest_record SET id = 'not-a-uuid' WHERE harvest_source_id = '`+gsaSource+`' AND identifier = '`+notUUID+`'`,
	)

	st := dbtest.Store(t)
	rep, err := h2import.Run(ctx, h2import.Config{From: h2}, st)
	require.NoError(t, err)
	require.Equal(t, 340, rep.Datasets.Created, rep.String())
	require.Equal(t, 1, rep.Sources.Created)
	require.Equal(t, 1, rep.Organizations.Created)
	require.Equal(t, 7, rep.ErrorCount, strings.Join(rep.Errors, "\n"))
	report := strings.Join(rep.Errors, "\n")
	for _, line := range []string{
		`harvest_source ` + passwd + `: url: "/etc/passwd" is not an absolute http(s) URL; its jobs, records and datasets are not imported`,
		`harvest_source ` + fileURL + `: url: "file:///etc/passwd" is not an absolute http(s) URL; its jobs`,
		`organization ` + badOrg + `: name: required; its harvest sources are not imported`,
		`harvest_source ` + ofBad + `: organization_id: organization ` + badOrg + ` is not imported`,
		`: slug: required; its record and dataset are not imported`,
		`: dcat: not a JSON object; its record and dataset are not imported`,
		`harvest_record not-a-uuid: id: "not-a-uuid" is not a UUID; its record and dataset are not imported`,
	} {
		require.Contains(t, report, line)
	}
	for _, src := range []string{passwd, fileURL, ofBad} {
		require.Equal(t, snapshot{}, takeSnapshot(t, st, src), src)
		jobs, _, err := st.JobList(ctx, &store.JobListParams{SourceID: src})
		require.NoError(t, err)
		require.Empty(t, jobs)
	}
	_, err = st.OrganizationGet(ctx, badOrg)
	require.ErrorIs(t, err, store.ErrNotFound)
	for _, id := range ids {
		_, err := st.DatasetGet(ctx, &store.DatasetGetParams{SourceID: gsaSource, Identifier: id})
		require.ErrorIs(t, err, store.ErrNotFound, id)
		_, err = st.RecordLatest(ctx, &store.RecordLatestParams{SourceID: gsaSource, Identifier: id})
		require.ErrorIs(t, err, store.ErrNotFound, id)
	}
}

// TestSourceURLTaken: a source whose url another source of the store has (a harvest made it
// before the import) is one report line saying so, and none of its rows is imported.
func TestSourceURLTaken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h2 := h2dumptest.Load(t, "h2-gsa-2025-07.sql.gz")
	st := dbtest.Store(t)
	other, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "harvested", SourceType: "document",
		URL: "http://127.0.0.1:18093/agency-gsa-2025-07.data.json", SchemaType: "dcatus1.1: federal"})
	require.NoError(t, err)
	rep, err := h2import.Run(ctx, h2import.Config{From: h2}, st)
	require.NoError(t, err)
	require.Equal(t, []string{`harvest_source ` + gsaSource + `: url "http://127.0.0.1:18093/agency-gsa-2025-07.data.json" ` +
		`is another harvest source's, made since by a harvest or the API: delete that source, or rewrite this one's ` +
		`url, and import again; its jobs, records and datasets are not imported`}, rep.Errors)
	require.Equal(t, snapshot{}, takeSnapshot(t, st, gsaSource))
	n, err := st.RecordCount(ctx, other.ID)
	require.NoError(t, err)
	require.Zero(t, n)
}
