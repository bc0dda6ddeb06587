package sources_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/bleve"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// stores runs f on both stores: SQLite, and Postgres (dbtest: skipped locally without a
// server, failed in CI).
func stores(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		f(t, sqliteStore(t))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		f(t, dbtest.Store(t))
	})
}

// setups runs f on both setups: SQLite with bleve, and Postgres with OpenSearch (skipped
// locally without the node, failed in CI: searchtest.OpenSearchURL).
func setups(t *testing.T, f func(t *testing.T, st store.Store, idx search.Index)) {
	t.Run("sqlite+bleve", func(t *testing.T) {
		t.Parallel()
		idx, err := bleve.Open(t.TempDir())
		require.NoError(t, err)
		t.Cleanup(func() { _ = idx.Close() })
		f(t, sqliteStore(t), idx)
	})
	t.Run("postgres+opensearch", func(t *testing.T) {
		t.Parallel()
		u := searchtest.OpenSearchURL(t)
		idx, err := opensearch.Open(t.Context(), u, "sourcestest-"+strings.ReplaceAll(uuid.NewString(), "-", ""))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, idx.Drop(context.Background())) })
		f(t, dbtest.Store(t), idx)
	})
}

func sqliteStore(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(context.Background()))
	return st
}

// withDatasets gives src n live datasets, indexed under its organization.
func withDatasets(t *testing.T, st store.Store, idx search.Index, src *store.Source, n int) {
	t.Helper()
	ctx := t.Context()
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	for i := range n {
		ident := fmt.Sprintf("moving-%d", i)
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: ident, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: `{}`,
			SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: ident,
			Slug: ident + "-" + uuid.NewString()[:6], RecordID: rec.ID,
			DCAT: json.RawMessage(`{"identifier":"` + ident + `","title":"Moving ` + ident + `"}`)})
		require.NoError(t, err)
	}
	_, err = st.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "Test", Message: "done"})
	require.NoError(t, err)
	if idx != nil {
		_, err = search.Reindex(ctx, st, idx, src.ID)
		require.NoError(t, err)
		require.NoError(t, idx.Refresh(ctx))
	}
}

// found is how many documents a search filtered by the organization named name finds.
func found(t *testing.T, idx search.Index, name string) int {
	t.Helper()
	res, err := idx.Search(t.Context(), search.Query{Organization: name})
	require.NoError(t, err)
	return res.Total
}
