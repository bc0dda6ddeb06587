package opensearch_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
)

// call sends one request to the test node and returns its status and body.
func call(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	r, err := http.NewRequestWithContext(t.Context(), method, searchtest.OpenSearchURL(t)+path, strings.NewReader(body))
	require.NoError(t, err)
	r.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// aliasIndices returns the indices the alias is on, each with its is_write_index (nil: unset).
func aliasIndices(t *testing.T, alias string) map[string]*bool {
	t.Helper()
	status, body := call(t, http.MethodGet, "/_alias/"+alias, "")
	require.Equal(t, http.StatusOK, status, body)
	var out map[string]struct {
		Aliases map[string]struct {
			IsWriteIndex *bool `json:"is_write_index"`
		} `json:"aliases"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &out))
	m := map[string]*bool{}
	for idx, a := range out {
		m[idx] = a.Aliases[alias].IsWriteIndex
	}
	return m
}

func newAlias(t *testing.T) string {
	alias := "test-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	t.Cleanup(func() { // every index of the test, in the alias or not
		r, _ := http.NewRequest(http.MethodDelete, searchtest.OpenSearchURL(t)+"/"+alias+"-*", nil)
		if resp, err := http.DefaultClient.Do(r); err == nil {
			resp.Body.Close()
		}
	})
	return alias
}

// TestOpenNewAliasAtOnce: processes that open a new alias at the same time (api and a sync
// worker starting together) end with the alias on one index, its write index, and every one
// of them can write through it.
func TestOpenNewAliasAtOnce(t *testing.T) {
	t.Parallel()
	url, alias := searchtest.OpenSearchURL(t), newAlias(t)
	const n = 4
	idxs := make([]*opensearch.Index, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			idxs[i], errs[i] = opensearch.Open(context.Background(), url, alias)
		})
	}
	close(start)
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i], "open %d", i)
	}
	in := aliasIndices(t, alias)
	require.Len(t, in, 1, "the alias is on one index: %v", in)
	for name, w := range in {
		require.NotNil(t, w, "%s is the alias's write index", name)
		require.True(t, *w, "%s is the alias's write index", name)
	}
	for i, x := range idxs {
		d := search.Document{ID: fmt.Sprintf("d%d", i), Title: "Written", Identifier: "x", SourceID: "s"}
		errs, err := x.Apply(t.Context(), []search.Op{{ID: d.ID, Doc: &d}})
		require.NoError(t, err)
		require.NoError(t, errs[0], "write through open %d", i)
	}
	require.NoError(t, idxs[0].Refresh(t.Context()))
	res, err := idxs[0].Search(t.Context(), search.Query{Text: "written"})
	require.NoError(t, err)
	require.Equal(t, n, res.Total)
}

// TestOpenRefusesBrokenAlias: an alias on two indices, or on one that is not its write index,
// is refused with the way out (reindex, or the _aliases request); an alias on one index with
// is_write_index unset (how earlier versions made it) is fine, and OpenToRebuild opens any of
// them so that Rebuild (harvester reindex) repairs the alias.
func TestOpenRefusesBrokenAlias(t *testing.T) {
	t.Parallel()
	url := searchtest.OpenSearchURL(t)
	mk := func(t *testing.T, alias string, names ...string) {
		for _, name := range names {
			status, body := call(t, http.MethodPut, "/"+alias+"-"+name, `{"mappings": {"dynamic": "strict",
				"properties": {"id": {"type": "keyword"}, "title": {"type": "text"}}}}`)
			require.Equal(t, http.StatusOK, status, body)
		}
	}
	t.Run("two indices", func(t *testing.T) {
		t.Parallel()
		alias := newAlias(t)
		mk(t, alias, "1", "2")
		status, body := call(t, http.MethodPost, "/_aliases", fmt.Sprintf(`{"actions": [
			{"add": {"index": "%[1]s-1", "alias": "%[1]s"}}, {"add": {"index": "%[1]s-2", "alias": "%[1]s"}}]}`, alias))
		require.Equal(t, http.StatusOK, status, body)
		_, err := opensearch.Open(t.Context(), url, alias)
		require.ErrorIs(t, err, opensearch.ErrAlias)
		require.ErrorContains(t, err, "is on 2 indices")
		require.ErrorContains(t, err, "harvester reindex")
		require.ErrorContains(t, err, "POST /_aliases")

		x, err := opensearch.OpenToRebuild(t.Context(), url, alias)
		require.NoError(t, err)
		d := search.Document{ID: "d1", Title: "Repaired", Identifier: "x", SourceID: "s"}
		require.NoError(t, x.Rebuild(t.Context(), func(put func(search.Document) error) error { return put(d) }))
		require.Len(t, aliasIndices(t, alias), 1)
		_, err = opensearch.Open(t.Context(), url, alias)
		require.NoError(t, err, "the rebuild repaired the alias")
	})
	t.Run("not the write index", func(t *testing.T) {
		t.Parallel()
		alias := newAlias(t)
		mk(t, alias, "1")
		status, body := call(t, http.MethodPost, "/_aliases", fmt.Sprintf(`{"actions": [
			{"add": {"index": "%[1]s-1", "alias": "%[1]s", "is_write_index": false}}]}`, alias))
		require.Equal(t, http.StatusOK, status, body)
		_, err := opensearch.Open(t.Context(), url, alias)
		require.ErrorIs(t, err, opensearch.ErrAlias)
		require.ErrorContains(t, err, "no write index")
		require.ErrorContains(t, err, `"is_write_index":true`)
	})
	t.Run("one index, write index unset", func(t *testing.T) {
		t.Parallel()
		alias := newAlias(t)
		mk(t, alias, "1")
		status, body := call(t, http.MethodPut, "/"+alias+"-1/_alias/"+alias, "")
		require.Equal(t, http.StatusOK, status, body)
		_, err := opensearch.Open(t.Context(), url, alias)
		require.NoError(t, err)
	})
}

// TestRebuildsFromTwoProcesses: two processes (two Opens) rebuilding the alias at once end
// with it on one index, its write index, holding one rebuild's documents whole.
func TestRebuildsFromTwoProcesses(t *testing.T) {
	t.Parallel()
	url, alias := searchtest.OpenSearchURL(t), newAlias(t)
	for round := range 3 {
		a, err := opensearch.Open(t.Context(), url, alias)
		require.NoError(t, err)
		b, err := opensearch.Open(t.Context(), url, alias)
		require.NoError(t, err)
		var filled, wg sync.WaitGroup
		filled.Add(2)
		errs := make([]error, 2)
		for i, x := range []*opensearch.Index{a, b} {
			wg.Go(func() {
				errs[i] = x.Rebuild(t.Context(), func(put func(search.Document) error) error {
					for j := range 200 {
						d := search.Document{ID: fmt.Sprintf("%c%04d", 'a'+i, j), Title: "Rebuilt", Identifier: "x", SourceID: "s1"}
						if err := put(d); err != nil {
							return err
						}
					}
					filled.Done()
					filled.Wait()
					return nil
				})
			})
		}
		wg.Wait()
		require.NoError(t, errors.Join(errs...), "round %d", round)
		in := aliasIndices(t, alias)
		require.Len(t, in, 1, "round %d: %v", round, in)
		for _, w := range in {
			require.True(t, w != nil && *w, "round %d: the write index", round)
		}
		searchtest.RebuildSets(t, a, 200, "a", "b")
		requireDocs(t, b, 201)
	}
}

// requireDocs asserts that the index has n documents.
func requireDocs(t *testing.T, x *opensearch.Index, n int) {
	t.Helper()
	require.NoError(t, x.Refresh(t.Context()))
	res, err := x.Search(t.Context(), search.Query{})
	require.NoError(t, err)
	require.Equal(t, n, res.Total)
}

// TestOutdated: an index this version made is current, opened again too; one made before the
// mapping stamp (no _meta), or by another mapping, is outdated until a Rebuild.
func TestOutdated(t *testing.T) {
	t.Parallel()
	url := searchtest.OpenSearchURL(t)
	alias := newAlias(t)
	x, err := opensearch.Open(t.Context(), url, alias)
	require.NoError(t, err)
	require.False(t, x.Outdated(), "a new index")
	x, err = opensearch.Open(t.Context(), url, alias)
	require.NoError(t, err)
	require.False(t, x.Outdated(), "reopened")

	for _, meta := range []string{``, `"_meta": {"harvester_mapping": "0123456789abcdef"},`} {
		alias := newAlias(t)
		status, body := call(t, http.MethodPut, "/"+alias+"-1", `{"aliases": {"`+alias+`": {}}, "mappings": {`+meta+
			`"dynamic": "strict", "properties": {"id": {"type": "keyword"}, "title": {"type": "text"}}}}`)
		require.Equal(t, http.StatusOK, status, body)
		x, err := opensearch.Open(t.Context(), url, alias)
		require.NoError(t, err)
		require.True(t, x.Outdated(), "meta %q", meta)
		require.NoError(t, x.Rebuild(t.Context(), func(func(search.Document) error) error { return nil }))
		require.False(t, x.Outdated(), "rebuilt")
		x, err = opensearch.Open(t.Context(), url, alias)
		require.NoError(t, err)
		require.False(t, x.Outdated(), "rebuilt, reopened")
	}
}

// TestWriteWithoutAliasCreatesNoIndex: when the alias's index is gone (an operator deleted the
// one in use while cleaning up after a rebuild, as docs/search-index.md has them delete indices
// by hand), a write through the alias fails instead of letting OpenSearch auto-create a concrete
// index named as the alias, with a dynamic mapping: that index took the writes and made every
// later Open and `harvester reindex` fail with invalid_alias_name_exception.
func TestWriteWithoutAliasCreatesNoIndex(t *testing.T) {
	t.Parallel()
	url, alias := searchtest.OpenSearchURL(t), newAlias(t)
	t.Cleanup(func() { // the index a write may have auto-created
		r, _ := http.NewRequest(http.MethodDelete, url+"/"+alias, nil)
		if resp, err := http.DefaultClient.Do(r); err == nil {
			resp.Body.Close()
		}
	})
	x, err := opensearch.Open(t.Context(), url, alias)
	require.NoError(t, err)
	status, body := call(t, http.MethodDelete, "/"+alias+"-0", "")
	require.Equal(t, http.StatusOK, status, body)

	d := search.Document{ID: "d1", Title: "Written", Identifier: "x", SourceID: "s"}
	errs, err := x.Apply(t.Context(), []search.Op{{ID: d.ID, Doc: &d}})
	if err == nil {
		err = errors.Join(errs...)
	}
	require.Error(t, err, "a write through a missing alias")
	// Retryable: another process's Rebuild swaps the alias and deletes the old index under a
	// write (seen in the crash tests: a worker starting mid-harvest rebuilt an index still empty,
	// and SYNC gave up on two records); sent again it goes to the new index.
	require.True(t, search.Retryable(err), "%v", err)
	status, body = call(t, http.MethodGet, "/_cat/indices/"+alias, "")
	require.Equal(t, http.StatusNotFound, status, "no index named as the alias: %s", body)

	_, err = opensearch.Open(t.Context(), url, alias)
	require.NoError(t, err, "the alias is made again")
	errs, err = x.Apply(t.Context(), []search.Op{{ID: d.ID, Doc: &d}})
	require.NoError(t, err)
	require.NoError(t, errors.Join(errs...), "the write sent again lands")
}
