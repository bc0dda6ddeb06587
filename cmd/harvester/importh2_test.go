package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/h2import/h2dumptest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// importH2 runs harvester import-h2 against the test's store and returns its JSON report.
func (b *testBundle) importH2(t *testing.T, from string, rewrite ...string) importReportJSON {
	t.Helper()
	args := []string{"import-h2", "--from", from, "--database-url", b.dbURL, "--format", "json"}
	for _, r := range rewrite {
		args = append(args, "--rewrite-url", r)
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	require.Equal(t, exitOK, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	var rep importReportJSON
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	return rep
}

type importReportJSON struct {
	Summary  string `json:"summary"`
	Changed  int    `json:"changed"`
	Datasets struct {
		Created   int `json:"created"`
		Changed   int `json:"changed"`
		Unchanged int `json:"unchanged"`
	} `json:"datasets"`
	NoDataset int `json:"no_dataset"`
}

// h2Slugs is H2.0's slug of each live dataset, by identifier.
func h2Slugs(t *testing.T, url string) map[string]string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT r.identifier, d.slug FROM dataset d JOIN harvest_record r ON r.id = d.harvest_record_id`)
	require.NoError(t, err)
	out := map[string]string{}
	for rows.Next() {
		var id, slug string
		require.NoError(t, rows.Scan(&id, &slug))
		out[id] = slug
	}
	require.NoError(t, rows.Err())
	return out
}

// slugs is the store's slug of each live dataset of a source, by identifier, and the datasets.
func (b *testBundle) slugs(t *testing.T, sourceID string) (map[string]string, []*store.Dataset) {
	t.Helper()
	ds, err := b.st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: sourceID})
	require.NoError(t, err)
	out := map[string]string{}
	for _, d := range ds {
		out[d.Identifier] = d.Slug
	}
	return out, ds
}

// testImportThenHarvest imports the H2.0 dump of a source that harvested corpus file, twice
// (the second run changes nothing), then harvests the same file: nothing is added, updated or
// deleted, every dataset keeps H2.0's slug and row.
func testImportThenHarvest(t *testing.T, dump, file string, datasets, errored int) {
	b := setup(t)
	h2 := h2dumptest.Load(t, dump)
	b.srv.Serve(corpustest.Path(t, file))
	old := "http://127.0.0.1:18093/" + filepath.Base(file)
	want := h2Slugs(t, h2)
	require.Len(t, want, datasets)

	first := b.importH2(t, h2, old+"="+b.srv.URL())
	require.Equal(t, datasets, first.Datasets.Created, first.Summary)
	require.Zero(t, first.NoDataset)
	src, err := b.st.SourceEnsure(context.Background(), &store.SourceEnsureParams{URL: b.srv.URL(), Name: "x",
		SourceType: "document", SchemaType: federal})
	require.NoError(t, err)
	require.Equal(t, "00000000-0000-0000-0000-0000000000b1", src.ID, "the source keeps H2.0's id")
	slugs, before := b.slugs(t, src.ID)
	require.Equal(t, want, slugs)
	records, err := b.st.RecordCount(context.Background(), src.ID)
	require.NoError(t, err)
	require.Equal(t, datasets, records)

	second := b.importH2(t, h2, old+"="+b.srv.URL())
	require.Zero(t, second.Changed, second.Summary)
	require.Equal(t, datasets, second.Datasets.Unchanged)
	require.Contains(t, second.Summary, "; 0 changed")
	_, again := b.slugs(t, src.ID)
	require.Equal(t, before, again, "a second import changes no row")

	rep, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, src.ID, rep.SourceID)
	require.Zero(t, rep.Added, "added")
	require.Zero(t, rep.Updated, "updated")
	require.Zero(t, rep.Deleted, "deleted")
	require.Equal(t, datasets, rep.Unchanged)
	require.Equal(t, errored, rep.Errored)
	slugs, after := b.slugs(t, src.ID)
	require.Equal(t, want, slugs, "slugs are H2.0's")
	require.Equal(t, before, after, "the harvest changed no dataset row")
}

func TestImportH2ThenHarvestGSA(t *testing.T) {
	t.Parallel()
	testImportThenHarvest(t, "h2-gsa-2025-07.sql.gz", "dcatus/agency-gsa-2025-07.data.json", 343, 0)
}

func TestImportH2ThenHarvestVA(t *testing.T) {
	t.Parallel()
	testImportThenHarvest(t, "h2-va-2025-07.sql.gz", "dcatus/agency-va-2025-07.data.json", 1696, 160)
}

func TestImportH2BadArguments(t *testing.T) {
	t.Parallel()
	db := dbtest.URL(t) // never the environment's DATABASE_URL
	for _, args := range [][]string{
		{"import-h2"},
		{"import-h2", "--from", "postgres://127.0.0.1:1/h2", "--rewrite-url", "no-equals-sign"},
		{"import-h2", "--from", "postgres://127.0.0.1:1/h2", "--format", "xml"},
	} {
		var out, errOut bytes.Buffer
		require.Equal(t, exitUsage, run(context.Background(), append(args, "--database-url", db), &out, &errOut), "%q", args)
		require.NotEmpty(t, errOut.String())
	}
	// An H2.0 database that cannot be reached fails and says so.
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"import-h2", "--from", "postgres://postgres@127.0.0.1:1/h2?connect_timeout=5",
		"--database-url", db}, &out, &errOut)
	require.Equal(t, exitJobError, code)
	require.Contains(t, errOut.String(), "connect to the H2.0 database")
}

// TestImportH2InterruptedThenHarvest: an import that stops in the middle of its second source
// (a store write fails) has imported the first whole and nothing of the second; a harvest of
// the first in between changes nothing, and the import run again completes the second with
// H2.0's slugs, with no conflict.
func TestImportH2InterruptedThenHarvest(t *testing.T) {
	t.Parallel()
	const second = "ffffffff-ffff-4fff-8fff-0000000000b2"
	b := setup(t)
	h2 := h2dumptest.Load(t, "h2-gsa-2025-07.sql.gz")
	h2dumptest.CopySource(t, h2, "00000000-0000-0000-0000-0000000000b1", second, "copy")
	b.srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"))
	rewrite := "http://127.0.0.1:18093/agency-gsa-2025-07.data.json=" + b.srv.URL()
	conn, err := pgx.Connect(context.Background(), h2)
	require.NoError(t, err)
	var mid string // a dataset in the middle of the second source
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT d.slug FROM dataset d
		JOIN harvest_record r ON r.id = d.harvest_record_id
		WHERE d.harvest_source_id = $1 ORDER BY r.identifier OFFSET 170 LIMIT 1`, second).Scan(&mid))
	require.NoError(t, conn.Close(context.Background()))
	undo := h2dumptest.FailDatasetInsert(t, b.dbURL, mid)
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"import-h2", "--from", h2, "--database-url", b.dbURL,
		"--rewrite-url", rewrite}, &out, &errOut)
	require.Equal(t, exitJobError, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	require.Contains(t, errOut.String(), "injected failure")
	_, err = b.st.SourceGet(context.Background(), second)
	require.ErrorIs(t, err, store.ErrNotFound, "the interrupted source is absent")
	n, err := b.st.RecordCount(context.Background(), second)
	require.NoError(t, err)
	require.Zero(t, n)

	rep, code := b.harvestURL(t, federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, 343, rep.Unchanged, "the first source was imported whole")

	undo()
	again := b.importH2(t, h2, rewrite)
	require.Equal(t, 343, again.Datasets.Created, again.Summary)
	require.Equal(t, 343, again.Datasets.Unchanged, again.Summary)
	slugs, _ := b.slugs(t, second)
	for id, slug := range slugs {
		require.True(t, strings.HasSuffix(slug, "-copy"), "%s: %s", id, slug)
	}
	require.Len(t, slugs, 343)
}

// TestImportH2NotH2: import-h2 pointed at Harvester's own database says in one line that it is
// not an H2.0 database, naming what it lacks, and exits 1.
func TestImportH2NotH2(t *testing.T) {
	t.Parallel()
	from := dbtest.URL(t)
	require.NoError(t, dbtest.Open(t, from).Migrate(context.Background()))
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"import-h2", "--from", from, "--database-url", dbtest.URL(t)}, &out, &errOut)
	require.Equal(t, exitJobError, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
	require.Empty(t, out.String())
	msg := strings.TrimSpace(errOut.String())
	require.NotContains(t, msg, "\n")
	require.Contains(t, msg, "is not a Data.gov H2.0 database")
	require.Contains(t, msg, "harvest_job.records_ignored")
}
