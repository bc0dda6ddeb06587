package bleve

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
)

// TestSettingsApplyToEveryGeneration: a generation made without our settings, opened again,
// and one that Rebuild makes both merge by settings. Many small batches (SYNC's) stay several
// segments, and a rebuild's three bulk requests three, where scorch's default plan merges
// each down to one.
func TestSettingsApplyToEveryGeneration(t *testing.T) {
	dir := t.TempDir()
	old, err := open(dir, nil) // made before the settings
	require.NoError(t, err)
	require.NoError(t, old.Close())

	x, err := Open(dir)
	require.NoError(t, err)
	defer x.Close()
	for batch := range 40 {
		ops := make([]search.Op, 30)
		for i := range ops {
			id := fmt.Sprintf("d%02d-%02d", batch, i)
			ops[i] = search.Op{ID: id, Doc: &search.Document{ID: id, Title: "Small batch", Identifier: id, SourceID: "s"}}
		}
		_, err := x.Apply(t.Context(), ops)
		require.NoError(t, err)
	}
	require.Greater(t, segments(quiesce(t, x.Index)), 1, "the reopened generation merges by settings")

	require.NoError(t, x.Rebuild(t.Context(), func(put func(search.Document) error) error {
		for i := range 2*search.BulkSize + 200 {
			id := fmt.Sprintf("r%04d", i)
			if err := put(search.Document{ID: id, Title: "Rebuilt", Identifier: id, SourceID: "s"}); err != nil {
				return err
			}
		}
		return nil
	}))
	require.Equal(t, 3, segments(quiesce(t, x.Index)), "the rebuilt generation merges by settings")
	res, err := x.Search(t.Context(), search.Query{Text: "rebuilt"})
	require.NoError(t, err)
	require.Equal(t, 2*search.BulkSize+200, res.Total)
}
