package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// Issue 26 item 11: with Postgres and no OpenSearch, the bleve index is kept per database
// under the data directory: two catalogs (two DATABASE_URLs) harvested with one data directory
// get two index directories, and a search of one does not find the other's datasets. Before,
// both went to <data-dir>/search/datasets.
func TestSearchIndexPerDatabase(t *testing.T) {
	t.Parallel()
	dataDir, natsURL := t.TempDir(), natstest.URL(t)
	// Two deployments on one NATS server: each needs its own --nats-prefix.
	catalogs := []struct{ dbURL, file, sourceID string }{
		{dbtest.URL(t), "../../examples/agency-sample.data.json", ""},
		{dbtest.URL(t), corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"), ""},
	}
	services := func(dbURL string) []string {
		prefix := "catalog-a"
		if dbURL == catalogs[1].dbURL {
			prefix = "catalog-b"
		}
		return []string{"--database-url", dbURL, "--nats-url", natsURL, "--nats-prefix", prefix, "--data-dir", dataDir,
			"--opensearch-url", ""}
	}
	var dirs []string
	for i, c := range catalogs {
		rep := runJSON(t, append([]string{"harvest", "--file", c.file, "--schema-type", federal}, services(c.dbURL)...)...)
		require.Equal(t, "complete", rep.Status, rep.JobErrors)
		catalogs[i].sourceID = rep.SourceID
		key, err := postgres.DatabaseKey(c.dbURL)
		require.NoError(t, err)
		dir := filepath.Join(dataDir, "search", key, opensearch.DefaultAlias)
		require.DirExists(t, dir, "the index of catalog %d", i)
		dirs = append(dirs, dir)
	}
	require.NotEqual(t, dirs[0], dirs[1])
	require.NoDirExists(t, filepath.Join(dataDir, "search", opensearch.DefaultAlias), "no index shared by both")

	// hits is how many datasets of the source a search of the database's index finds.
	hits := func(dbURL, sourceID string) int {
		t.Helper()
		var out, errOut bytes.Buffer
		args := append([]string{"search", "--source", sourceID, "--format", "json"}, services(dbURL)...)
		require.Equal(t, exitOK, run(context.Background(), args, &out, &errOut), errOut.String())
		var res search.Result
		require.NoError(t, json.Unmarshal(out.Bytes(), &res), out.String())
		return res.Total
	}
	for i, c := range catalogs {
		require.Positive(t, hits(c.dbURL, c.sourceID), "catalog %d finds its own datasets", i)
		other := catalogs[1-i]
		require.Zero(t, hits(c.dbURL, other.sourceID), "catalog %d's index has none of the other's", i)
	}
}

// Issue 26 item 11: --help says where the index is: with DATABASE_URL set and no
// OPENSEARCH_URL, the bleve directory of that database under the data directory.
func TestHelpSaysWhereTheSearchIndexIs(t *testing.T) {
	dataDir := t.TempDir()
	const dbURL = "postgres://harvester@db.example:5433/catalog_a"
	t.Setenv("DATABASE_URL", dbURL)
	t.Setenv("HARVESTER_DATA_DIR", dataDir)
	t.Setenv("OPENSEARCH_URL", "")
	t.Setenv("HARVESTER_SEARCH_INDEX", "")
	indexLine := func(command string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		require.Equal(t, exitOK, run(context.Background(), []string{command, "--help"}, &out, &errOut), errOut.String())
		_, line, ok := strings.Cut(out.String(), "\n  index: ")
		require.True(t, ok, "an index line in %s --help", command)
		line, _, _ = strings.Cut(line, "\n")
		return line
	}
	require.Contains(t, indexLine("harvest"), "bleve in "+
		filepath.Join(dataDir, "search", "postgres-db.example-5433-catalog_a", opensearch.DefaultAlias)+" ")

	t.Setenv("DATABASE_URL", "")
	require.Contains(t, indexLine("serve"), "bleve in "+filepath.Join(dataDir, "search", opensearch.DefaultAlias)+" ",
		"SQLite: one catalog per data directory")
}
