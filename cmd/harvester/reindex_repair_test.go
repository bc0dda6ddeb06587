package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search/opensearch"
)

// TestReindexRepairsBrokenAlias: an OpenSearch alias on two indices (left by two processes
// that created it at once, before the fixed first index) is refused by search with the
// sentence that names reindex, and `harvester reindex` repairs it: the alias ends on one
// index, its write index, holding every dataset.
func TestReindexRepairsBrokenAlias(t *testing.T) {
	t.Parallel()
	b := setup(t)
	sb := opensearchBackend(t)
	b.extra = sb.flags
	rep := b.harvestCorpus(t, "dcatus/agency-gsa-2025-01.data.json")
	alias := sb.idx.(*opensearch.Index).Alias()
	url := sb.flags[1]

	send := func(method, path, body string) {
		t.Helper()
		r, err := http.NewRequestWithContext(t.Context(), method, url+path, strings.NewReader(body))
		require.NoError(t, err)
		r.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(r)
		require.NoError(t, err)
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Less(t, resp.StatusCode, 300, string(msg))
	}
	second := alias + "-1"
	send(http.MethodPut, "/"+second, `{"mappings": {"properties": {"id": {"type": "keyword"}}}}`)
	send(http.MethodPost, "/_aliases", fmt.Sprintf(`{"actions": [{"add": {"index": %q, "alias": %q}}]}`, second, alias))

	var out, errOut bytes.Buffer
	code := run(context.Background(), append([]string{"search", "--database-url", b.dbURL}, b.extra...), &out, &errOut)
	require.Equal(t, exitJobError, code)
	require.Contains(t, errOut.String(), "is on 2 indices")
	require.Contains(t, errOut.String(), "Run `harvester reindex`")

	code, stdout := b.runIndexCommand(t, "reindex")
	require.Equal(t, exitOK, code, stdout)
	require.JSONEq(t, fmt.Sprintf(`{"documents": %d}`, rep.Added), stdout)
	res := (&searchRun{t: t, b: b, sb: sb}).search()
	require.Equal(t, rep.Added, res.Total, "every dataset once, on one index")
}
