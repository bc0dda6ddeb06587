package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmePortalExample harvests examples/ckan the way the README says (a plain static file
// server over the folder: it answers package_search whatever the query), on the embedded
// default, and checks the counts and the error row the README shows, so that neither the
// example nor the README's copy of its output can drift.
func TestReadmePortalExample(t *testing.T) {
	t.Parallel()
	portal := httptest.NewServer(http.FileServer(http.Dir("../../examples/ckan")))
	t.Cleanup(portal.Close)
	args := []string{"harvest", "--source-type", "ckan", "--url", portal.URL, "--allow-private-sources",
		"--database-url", "", "--nats-url", "", "--opensearch-url", "", "--data-dir", t.TempDir()}
	var out, errOut bytes.Buffer
	code := run(t.Context(), args, &out, &errOut)
	require.Equal(t, exitOK, code, errOut.String())
	summary := "total 3: added 2, updated 0, deleted 0, unchanged 0, errored 1"
	require.Contains(t, out.String(), summary)
	row := `/dataset/e8a3f5b4-7c12-4f0d-b6e9-3d2a1c0f8e03": $: 'description' and 'contactPoint' are required properties`
	require.Contains(t, out.String(), row)

	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	require.Contains(t, string(readme), "cd examples/ckan && python3 -m http.server 8000 --bind 127.0.0.1")
	require.Contains(t, string(readme), summary, "the README shows the example's output")
	require.Contains(t, string(readme), row)
}
