package main

import (
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/web"
)

// Issue 26 item 8: the record page's "As harvested (XML)" of an ISO record is the stored
// source_raw as it came, the corpus file's bytes, escaped as text: its namespace declarations
// are not rewritten (encoding/xml's re-encoding wrote xmlns:_xmlns="xmlns" and renamed
// prefixes).
func TestRecordPageShowsISOXMLAsHarvested(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const file = "iso19115/datagov-valid-iso2-gmi.xml"
	raw, err := os.ReadFile(corpustest.Path(t, file))
	require.NoError(t, err)
	rep, code := b.harvest(t, "--file", corpustest.Path(t, file), "--schema-type", "iso19115_2")
	require.Equal(t, exitOK, code, rep.JobErrors)
	require.Equal(t, 1, rep.Added)
	ds, err := b.st.DatasetList(t.Context(), &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.Len(t, ds, 1)
	rec, err := b.st.RecordGet(t.Context(), ds[0].RecordID)
	require.NoError(t, err)
	require.Equal(t, string(raw), rec.SourceRaw, "source_raw is the file as it came")

	log := slog.New(slog.DiscardHandler)
	apiHandler, err := api.New(api.Config{}, api.Deps{Store: b.st, Logger: log})
	require.NoError(t, err)
	pages, err := web.New(web.Config{}, web.Deps{Store: b.st, API: apiHandler, Logger: log})
	require.NoError(t, err)
	srv := httptest.NewServer(pages)
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/harvest_records/" + rec.ID)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	page := string(body)
	require.Contains(t, page, "As harvested (XML)")
	_, pre, ok := strings.Cut(page, `<pre id="record-raw" tabindex="0">`)
	require.True(t, ok, page)
	pre, _, ok = strings.Cut(pre, "</pre>")
	require.True(t, ok)
	require.NotContains(t, page, "_xmlns")
	require.True(t, string(raw) == html.UnescapeString(pre), "the stored bytes, escaped as text")
}
