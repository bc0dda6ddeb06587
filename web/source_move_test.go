package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/bleve"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// setups runs f on both setups: SQLite with bleve, and Postgres with OpenSearch (skipped
// locally without the node, failed in CI: searchtest.OpenSearchURL).
func setups(t *testing.T, f func(t *testing.T, st store.Store, idx search.Index)) {
	t.Run("sqlite+bleve", func(t *testing.T) {
		idx, err := bleve.Open(t.TempDir())
		require.NoError(t, err)
		t.Cleanup(func() { _ = idx.Close() })
		f(t, sqliteStore(t), idx)
	})
	t.Run("postgres+opensearch", func(t *testing.T) {
		u := searchtest.OpenSearchURL(t)
		idx, err := opensearch.Open(t.Context(), u, "webtest-"+strings.ReplaceAll(uuid.NewString(), "-", ""))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, idx.Drop(context.Background())) })
		f(t, dbtest.Store(t), idx)
	})
}

// TestSourceMoveReindexes: a source moved to another organization by the API's PUT or by the
// web form has its datasets' search documents written again at once: a search filtered by
// the new organization finds them, one by the old organization finds none (before, only the
// harvest command's --organization did so).
func TestSourceMoveReindexes(t *testing.T) {
	setups(t, func(t *testing.T, st store.Store, idx search.Index) {
		ctx := t.Context()
		org := func(name string) *store.Organization {
			o, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: name + " " + uuid.NewString()[:8],
				Slug: "move-" + uuid.NewString()[:8]})
			require.NoError(t, err)
			return o
		}
		first, second, third := org("First"), org("Second"), org("Third")
		src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: first.ID, Name: "Moving catalog",
			URL: "https://example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
			SchemaType: harvest.SchemaDCATUS11Federal, Frequency: harvest.FrequencyManual})
		require.NoError(t, err)
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		for i := range 3 {
			ident := fmt.Sprintf("moving-%d", i)
			rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
				Identifier: ident, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: `{}`, SchemaType: harvest.SchemaDCATUS11Federal})
			require.NoError(t, err)
			_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: ident, Slug: ident + "-" + uuid.NewString()[:6],
				DCAT: json.RawMessage(`{"identifier":"` + ident + `","title":"Moving ` + ident + `"}`), RecordID: rec.ID})
			require.NoError(t, err)
		}
		_, err = search.Reindex(ctx, st, idx, src.ID)
		require.NoError(t, err)
		require.NoError(t, idx.Refresh(ctx))
		found := func(o *store.Organization) int {
			t.Helper()
			res, err := idx.Search(ctx, search.Query{Organization: o.Name})
			require.NoError(t, err)
			return res.Total
		}
		require.Equal(t, 3, found(first))

		log := slog.New(slog.DiscardHandler)
		a, err := api.New(api.Config{APIKey: testKey}, api.Deps{Store: st, Search: idx, Logger: log, Fetch: fetch.Config{AllowPrivate: true}})
		require.NoError(t, err)
		h, err := New(Config{APIKey: testKey, AllowPrivateSources: true}, Deps{Store: st, API: a, Search: idx, Logger: log})
		require.NoError(t, err)
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)

		// The API's PUT, as a client sends it (every field; the organization changed).
		body, _ := json.Marshal(map[string]any{"name": src.Name, "url": src.URL, "source_type": "document",
			"schema_type": "dcatus1.1: federal", "frequency": "manual", "organization_id": second.ID})
		req, err := http.NewRequest(http.MethodPut, srv.URL+"/api/v1/harvest_sources/"+src.ID, bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-API-Key", testKey)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		require.Equal(t, 3, found(second), "the API's move: the new organization finds the source's datasets")
		require.Zero(t, found(first), "the API's move: the old organization finds none")

		// The web form.
		b := (&site{store: st, url: srv.URL}).browser(t)
		b.signIn()
		edit := "/harvest_sources/" + src.ID + "/edit"
		form := url.Values{"name": {src.Name}, "url": {src.URL}, "source_type": {"document"},
			"schema_type": {"dcatus1.1: federal"}, "frequency": {"manual"}, "notification_frequency": {"on_error"},
			"organization_id": {third.ID}, "csrf_token": {b.csrf(edit)}}
		resp, page := b.post(edit, form)
		require.Equal(t, http.StatusSeeOther, resp.StatusCode, page)
		moved, err := st.SourceGet(ctx, src.ID)
		require.NoError(t, err)
		require.Equal(t, third.ID, moved.OrganizationID)
		require.Equal(t, 3, found(third), "the form's move: the new organization finds the source's datasets")
		require.Zero(t, found(second), "the form's move: the old organization finds none")
	})
}
