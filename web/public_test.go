package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// TestPublicDatasetFile: /dataset/{slug}{ext} finds the dataset by slug and answers the form of
// ext, with the public headers; a held dataset, an unknown slug and an unknown form are 404;
// with PrivateCatalog the route needs a signed-in operator, and ProtectReads alone does not
// close it.
func TestPublicDatasetFile(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		kept, held := seedHeldPair(t, st)
		for _, private := range []bool{false, true} {
			log := slog.New(slog.DiscardHandler)
			a, err := api.New(api.Config{APIKey: testKey, ProtectReads: true, PrivateCatalog: private}, api.Deps{Store: st, Logger: log})
			require.NoError(t, err)
			h, err := New(Config{APIKey: testKey, ProtectReads: true, PrivateCatalog: private}, Deps{Store: st, API: a, Logger: log})
			require.NoError(t, err)
			var got []string
			h.(*server).datasetFormats[".test"] = func(w http.ResponseWriter, r *http.Request, ds *store.LiveDataset) error {
				got = append(got, ds.Slug+" "+ds.SourceName)
				w.WriteHeader(http.StatusTeapot)
				return nil
			}
			do := func(path string) *httptest.ResponseRecorder {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
				return w
			}
			w := do("/dataset/" + kept.Slug + ".test")
			if private {
				require.Equal(t, http.StatusSeeOther, w.Code, "a private catalog sends the public to sign in")
				require.Empty(t, got)
				continue
			}
			require.Equal(t, http.StatusTeapot, w.Code)
			require.Equal(t, []string{kept.Slug + " Kept source"}, got)
			require.Equal(t, "*", w.Header().Get("Access-Control-Allow-Origin"))
			require.Contains(t, w.Header().Get("Cache-Control"), "public")
			require.Equal(t, http.StatusNotFound, do("/dataset/"+held.Slug+".test").Code, "held")
			require.Equal(t, http.StatusNotFound, do("/dataset/no-such-slug.test").Code)
			require.Equal(t, http.StatusNotFound, do("/dataset/"+kept.Slug+".xyz").Code, "unknown form")
		}
	})
}

// seedHeldPair makes two sources that publish identifier "k": the first's dataset is live, the
// second's held against it.
func seedHeldPair(t *testing.T, st store.Store) (kept, held *store.Dataset) {
	t.Helper()
	ctx := t.Context()
	mk := func(name string) (*store.Dataset, *store.HarvestJob) {
		src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: name, URL: "https://example.gov/" + uuid.NewString() + "/data.json",
			SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: "k", Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: `{}`, SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		ds, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: "k", Slug: "k-" + uuid.NewString()[:8],
			DCAT: json.RawMessage(`{"identifier":"k","title":"K"}`), RecordID: rec.ID})
		require.NoError(t, err)
		return ds, job
	}
	kept, kj := mk("Kept source")
	held, _ = mk("Held source")
	ok, err := st.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: kept.ID, HeldID: held.ID, Match: store.MatchIdentifier, Key: "k", JobID: kj.ID})
	require.NoError(t, err)
	require.True(t, ok)
	return kept, held
}
