package bleve

import (
	"os"
	"path/filepath"
	"testing"

	blevesearch "github.com/blevesearch/bleve/v2"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
)

// unstamped writes a live generation the way versions before the mapping stamp made it: this
// mapping, no stamp (or, with version set, another version's stamp).
func unstamped(t *testing.T, dir, version string) {
	t.Helper()
	im, err := indexMapping()
	require.NoError(t, err)
	idx, err := blevesearch.New(filepath.Join(dir, "datasets-1.bleve"), im)
	require.NoError(t, err)
	if version != "" {
		require.NoError(t, idx.SetInternal([]byte(internalVersion), []byte(version)))
	}
	require.NoError(t, idx.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "current"), []byte("datasets-1.bleve\n"), 0o644))
}

// TestOutdated: a generation this version made is current, opened again too; one made before
// the stamp, or by another mapping, is outdated until a Rebuild.
func TestOutdated(t *testing.T) {
	dir := t.TempDir()
	x, err := Open(dir)
	require.NoError(t, err)
	require.False(t, x.Outdated(), "a new index")
	require.NoError(t, x.Close())
	x, err = Open(dir)
	require.NoError(t, err)
	require.False(t, x.Outdated(), "reopened")
	require.NoError(t, x.Close())

	for _, version := range []string{"", "0123456789abcdef"} {
		dir := t.TempDir()
		unstamped(t, dir, version)
		x, err := Open(dir)
		require.NoError(t, err)
		require.True(t, x.Outdated(), "stamp %q", version)
		require.NoError(t, x.Rebuild(t.Context(), func(func(search.Document) error) error { return nil }))
		require.False(t, x.Outdated(), "rebuilt")
		require.NoError(t, x.Close())
		x, err = Open(dir)
		require.NoError(t, err)
		require.False(t, x.Outdated(), "rebuilt, reopened")
		require.NoError(t, x.Close())
	}
}
