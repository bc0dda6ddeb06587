package extract_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/extracttest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/postgres"
)

// TestHandleStoresSeenBeforeListing: a listing of more identifiers than one batch has stored
// every one of them (the last, partial batch too) when its Listing is published, on both
// backends, so COMPARE deletes only the dataset the catalog no longer has.
func TestHandleStoresSeenBeforeListing(t *testing.T) {
	t.Parallel()
	for name, open := range backends() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			n := 2*extract.SeenBatch + 7
			var entries []string
			live := []string{"gone"}
			for i := range n {
				id := fmt.Sprintf("id-%04d", i)
				entries = append(entries, `{"identifier":"`+id+`"}`)
				live = append(live, id)
			}
			entries = append(entries, `{"identifier":"id-0003"}`) // a duplicate is not stored twice
			doc := []byte(`{"dataset":[` + strings.Join(entries, ",") + `]}`)

			r := runExtractOn(t, open(t), doc, live)
			require.NoError(t, r.err)
			require.Equal(t, n+1, r.listed(t))
			require.Len(t, r.records(t), n)
			require.Equal(t, []string{"gone"}, r.unseenAtListing,
				"every listed identifier was stored before the Listing was published")
		})
	}
}

// TestRedeliveredListingFindsNoRepeats: a job's listing run again (its message redelivered, or
// retried after a store error) lists every record again and finds the same duplicate, with the
// same first position, not every identifier the first listing stored; a document that changed
// between the two listings is judged by its own order. On both backends: the repeats are found
// in the store (JobIdentifierClaimBatch).
func TestRedeliveredListingFindsNoRepeats(t *testing.T) {
	t.Parallel()
	for name, open := range backends() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			doc := func(ids ...string) []byte {
				var entries []string
				for _, id := range ids {
					entries = append(entries, `{"identifier":"`+id+`","title":"T `+id+`"}`)
				}
				return []byte(`{"dataset":[` + strings.Join(entries, ",") + `]}`)
			}
			st := open(t)
			first := runExtractOn(t, st, doc("a", "b", "c", "b"), nil)
			require.NoError(t, first.err)
			require.Equal(t, []string{"a", "b", "c"}, extracttest.Identifiers(first.records(t)))
			dup := `dataset #4 repeats identifier "b" of dataset #2 in this catalog; the first one is kept`
			require.Equal(t, map[string]string{"b": dup}, first.OnlyErrors(t, harvest.TypeDuplicateIdentifier))

			again := redeliver(t, st, first, nil)
			require.Equal(t, []string{"a", "b", "c"}, extracttest.Identifiers(again.records(t)))
			require.Equal(t, map[string]string{"b": dup}, again.OnlyErrors(t, harvest.TypeDuplicateIdentifier))

			changed := redeliver(t, st, first, doc("c", "a", "a", "b"))
			require.Equal(t, []string{"c", "a", "b"}, extracttest.Identifiers(changed.records(t)))
			require.Equal(t, map[string]string{"a": `dataset #3 repeats identifier "a" of dataset #2 in this catalog; the first one is kept`},
				changed.OnlyErrors(t, harvest.TypeDuplicateIdentifier))
		})
	}
}

// backends opens a migrated store of each backend, by name: SQLite, and Postgres on a scratch
// database of the test server (dbtest.URL).
func backends() map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"sqlite": func(t *testing.T) store.Store { return openSQLite(t) },
		"postgres": func(t *testing.T) store.Store {
			st, err := postgres.Open(context.Background(), dbtest.URL(t))
			require.NoError(t, err)
			t.Cleanup(st.Close)
			require.NoError(t, st.Migrate(context.Background()))
			return st
		},
	}
}
