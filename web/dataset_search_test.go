package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/bleve"
	"github.com/harvester-dev/harvester/store"
)

// TestPublicDatasetSearch: GET /dataset searches the index without signing in (reads
// protected): hits link to /dataset/{slug} with snippet, organization, formats and last
// modified; facet links add a filter and keep the others; the bounding box's four inputs
// filter; paging keeps every parameter; the page is labelled for assistive technology.
func TestPublicDatasetSearch(t *testing.T) {
	idx := searchFixture(t)

	st := sqliteStore(t)
	log := slog.New(slog.DiscardHandler)
	h, err := api.New(api.Config{APIKey: testKey, ProtectReads: true}, api.Deps{Store: st, Logger: log, Search: idx})
	require.NoError(t, err)
	w, err := New(Config{APIKey: testKey, ProtectReads: true}, Deps{Store: st, API: h, Logger: log, Search: idx})
	require.NoError(t, err)
	srv := httptest.NewServer(w)
	t.Cleanup(srv.Close)
	b := (&site{store: st, url: srv.URL}).browser(t)

	code, body := b.get("/dataset?q=wells&sort=modified")
	require.Equal(t, http.StatusOK, code, body)
	requireLabelled(t, "/dataset", body)
	require.Contains(t, body, `<p id="search-total" role="status">25 datasets</p>`)
	require.Contains(t, body, `<a href="/dataset/wells-24">Wells 24</a>`, "newest first, linked by slug")
	require.Contains(t, body, `Monthly well levels &amp; &lt;counts&gt;.`, "the snippet, escaped")
	require.Contains(t, body, `<span class="organization">Org &lt;A&gt;</span>`)
	require.Contains(t, body, `<span class="formats">CSV, application/zip</span>`)
	require.Contains(t, body, `Last modified <time datetime="2024-03-25T00:00:00Z">2024-03-25</time>`)
	require.Contains(t, body, `<option value="modified" selected>`)
	for _, facet := range []string{"organization", "keyword", "format", "publisher", "theme"} {
		require.Contains(t, body, `id="facet-`+facet+`-h"`, facet)
	}

	links := regexp.MustCompile(`href="([^"]+)"`)
	find := func(body, contains string) string {
		for _, m := range links.FindAllStringSubmatch(body, -1) {
			if u := html.UnescapeString(m[1]); strings.Contains(u, contains) {
				return u
			}
		}
		t.Fatalf("no link with %q", contains)
		return ""
	}
	// A facet link adds its filter and keeps q and sort.
	roads := find(body, "keyword=roads")
	require.Contains(t, roads, "q=wells")
	require.Contains(t, roads, "sort=modified")
	code, body = b.get(roads)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `5 datasets`)
	require.Contains(t, body, `<input type="hidden" name="keyword" value="roads">`, "the form keeps the filter")
	csv := find(body, "format=CSV")
	require.Contains(t, csv, "keyword=roads", "a second facet keeps the first")
	_, body = b.get(csv)
	require.Contains(t, body, `5 datasets`)
	m := regexp.MustCompile(`href="([^"]+)">Remove<span class="visually-hidden"> filter Keyword roads`).FindStringSubmatch(body)
	require.NotNil(t, m, "a link removes the keyword filter")
	require.Contains(t, html.UnescapeString(m[1]), "format=CSV", "removing the keyword keeps the format")
	require.NotContains(t, html.UnescapeString(m[1]), "keyword=")

	// The bounding box: all four inputs, or an error.
	_, body = b.get("/dataset?west=-125&south=30&east=-110&north=45")
	require.Contains(t, body, `5 datasets`, "Ohio is a place name: only the boxes match")
	require.Contains(t, body, `id="bbox-west" name="west" value="-125"`)
	_, body = b.get("/dataset?west=-125&south=30")
	require.Contains(t, body, `id="search-error"`)
	_, body = b.get("/dataset?west=0&south=50&east=1&north=40")
	require.Contains(t, body, `south must not be north of north`)

	// Paging keeps the filters.
	_, body = b.get("/dataset?format=csv&sort=title")
	require.Contains(t, body, `25 datasets`)
	next := find(body, "page=2")
	require.Contains(t, next, "format=csv")
	require.Contains(t, next, "sort=title")
	_, body = b.get(next)
	require.Contains(t, body, `Wells 24`)
	require.NotContains(t, body, `Wells 01<`)
	_, body = b.get("/dataset?page=100000")
	require.Contains(t, body, `id="search-error"`, "past the window: an error, not a 500")
}

// searchFixture is a bleve index of 25 datasets "Wells NN": every fifth has keyword roads and a
// bounding box, the others keyword water and a place name; organization "Org <A>".
func searchFixture(t *testing.T) *bleve.Handle {
	t.Helper()
	idx, err := bleve.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { idx.Close() })
	var ops []search.Op
	for i := range 25 {
		kw, spatial := "water", "Ohio"
		if i%5 == 0 {
			kw, spatial = "roads", "-124.5,32.5,-114.1,42.0"
		}
		doc := search.FromDataset(&store.Dataset{ID: fmt.Sprintf("d%02d", i), Slug: fmt.Sprintf("wells-%02d", i), SourceID: "s1",
			Identifier: fmt.Sprint(i), DCAT: json.RawMessage(fmt.Sprintf(`{"title": "Wells %02d", "description": "Monthly well levels & <counts>.",
			"keyword": [%q], "modified": "2024-03-%02d", "spatial": %q, "distribution": [{"format": "CSV"}, {"mediaType": "application/zip"}]}`,
				i, kw, i+1, spatial))}, "Org <A>")
		ops = append(ops, search.Op{ID: doc.ID, Doc: &doc})
	}
	errs, err := idx.Apply(t.Context(), ops)
	require.NoError(t, err)
	require.NoError(t, errors.Join(errs...))

	return idx
}
