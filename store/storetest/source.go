package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testMigrateAgain: migrating a migrated store is a no-op that keeps its rows.
func testMigrateAgain(t *testing.T, s store.Store) {
	src := newSource(t, s)
	require.NoError(t, s.Migrate(t.Context()))
	got, err := s.SourceGet(t.Context(), src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got)
}

func testSourceEnsureCreates(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := &store.SourceEnsureParams{
		Name:       "Agency data",
		URL:        "https://agency.example.gov/data.json",
		SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal,
	}
	src, err := s.SourceEnsure(ctx, p)
	require.NoError(t, err)
	require.NotEmpty(t, src.ID)
	require.Equal(t, p.Name, src.Name)
	require.Equal(t, p.URL, src.URL)
	require.Equal(t, p.SourceType, src.SourceType)
	require.Equal(t, p.SchemaType, src.SchemaType)
	require.False(t, src.CreatedAt.IsZero())

	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got)
}

// testSourceEnsureExisting: the same URL is the same source; only schema_type follows p.
func testSourceEnsureExisting(t *testing.T, s store.Store) {
	ctx := t.Context()
	first, err := s.SourceEnsure(ctx, &store.SourceEnsureParams{
		Name: "Agency data", URL: "https://agency.example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal,
	})
	require.NoError(t, err)

	second, err := s.SourceEnsure(ctx, &store.SourceEnsureParams{
		Name: "Renamed", URL: first.URL,
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11NonFederal,
	})
	require.NoError(t, err)
	require.Equal(t, first.ID, second.ID)
	require.Equal(t, first.Name, second.Name, "an existing source keeps its name")
	require.Equal(t, first.URL, second.URL)
	require.Equal(t, first.SourceType, second.SourceType)
	require.Equal(t, harvest.SchemaDCATUS11NonFederal, second.SchemaType)
	require.True(t, first.CreatedAt.Equal(second.CreatedAt))

	got, err := s.SourceGet(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, second, got)

	other := newSource(t, s)
	require.NotEqual(t, first.ID, other.ID)
}

func testSourceGetNotFound(t *testing.T, s store.Store) {
	newSource(t, s)
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		_, err := s.SourceGet(t.Context(), id)
		require.ErrorIs(t, err, store.ErrNotFound, "id %q", id)
	}
}
