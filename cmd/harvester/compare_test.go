package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/store"
)

// A record that failed the federal schema is checked again when the source moves to the
// non-federal schema, although its content did not change; and it is then added, not updated,
// because it never was in the catalog. The record that passed is checked again too, and, still
// valid, is unchanged (its dataset is not rewritten). Moving back to the federal schema fails
// the record without codes again (its live dataset is kept).
func TestSchemaChangeRevalidatesUnchangedRecords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	catalog := filepath.Join(t.TempDir(), "data.json")
	record := `{"identifier":"%s","title":"T","description":"D","keyword":["k"],"modified":"2025-01-01",
		"publisher":{"name":"P"},"contactPoint":{"fn":"F","hasEmail":"mailto:f@example.gov"},"accessLevel":"public"%s}`
	doc := `{"dataset":[` + fmt.Sprintf(record, "federal", `,"bureauCode":["015:11"],"programCode":["015:001"]`) + `,` +
		fmt.Sprintf(record, "no-codes", "") + `]}`
	require.NoError(t, os.WriteFile(catalog, []byte(doc), 0o644))

	first, code := b.harvest(t, "--file", catalog, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, [2]int{1, 1}, [2]int{first.Added, first.Errored})

	second, code := b.harvest(t, "--file", catalog, "--schema-type", nonFederal)
	require.Equal(t, exitOK, code)
	require.Equal(t, 1, second.Added, "the record that only failed the federal schema is added now")
	require.Equal(t, 1, second.Unchanged, "the valid record, validated again")
	require.Equal(t, 2, second.Validated, "both records were validated")
	require.Zero(t, second.Errored)
	datasets, err := b.st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: second.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 2)

	third, code := b.harvest(t, "--file", catalog, "--schema-type", nonFederal, "--job-type", "force_harvest")
	require.Equal(t, exitOK, code)
	require.Equal(t, [2]int{0, 2}, [2]int{third.Added, third.Updated}, "both are in the catalog: updates")

	val, code := b.harvest(t, "--file", catalog, "--schema-type", federal, "--job-type", "validate")
	require.Equal(t, exitOK, code)
	require.Equal(t, [3]int{0, 1, 1}, [3]int{val.Updated, val.Unchanged, val.Errored}, "a validate job says what a harvest will")

	fourth, code := b.harvest(t, "--file", catalog, "--schema-type", federal)
	require.Equal(t, exitOK, code)
	require.Equal(t, [3]int{0, 1, 1}, [3]int{fourth.Updated, fourth.Unchanged, fourth.Errored},
		"stricter again: the record without codes fails, the other is unchanged")
	datasets, err = b.st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: fourth.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 2, "an invalid record deletes nothing")
}

// A validate job says what a harvest would do, deletes included, and changes nothing.
func TestValidateJobCountsDeletes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.harvestCorpus(t, "dcatus/agency-gsa-2025-07.data.json")
	b.srv.Serve(corpustest.Path(t, "dcatus/agency-gsa-2025-01.data.json"))
	val, code := b.harvestURL(t, federal, "--job-type", "validate")
	require.Equal(t, exitOK, code)
	require.Equal(t, [5]int{0, 99, 4, 240, 0}, [5]int{val.Added, val.Updated, val.Deleted, val.Unchanged, val.Errored})
	datasets, err := b.st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: val.SourceID})
	require.NoError(t, err)
	require.Len(t, datasets, 343, "validate deleted nothing")
}
