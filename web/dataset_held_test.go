package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// TestDatasetPageHeld: the query-form dataset URL of a dataset held as a cross-source duplicate
// (another source with a higher precedence publishes it too) is a 404 saying so, as is a
// dataset no source has and a slug of 10,000 characters; the live one's is a 301 to its
// public page, which shows it; without both parameters it is a 400. The record page links the
// live dataset's public page, and says a held one is not live.
func TestDatasetPageHeld(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f, other := holdOne(t, st)
		b := newSite(t, st).browser(t)
		code, body := b.get("/datasets?source_id=" + f.src.ID + "&identifier=a")
		require.Equal(t, http.StatusNotFound, code)
		require.Contains(t, body, "held as a cross-source duplicate")
		code, _ = b.get("/datasets?source_id=" + f.src.ID + "&identifier=nope")
		require.Equal(t, http.StatusNotFound, code)
		code, _ = b.get("/datasets?source_id=" + other.ID)
		require.Equal(t, http.StatusBadRequest, code)
		own, err := st.DatasetGet(t.Context(), &store.DatasetGetParams{SourceID: other.ID, Identifier: "a"})
		require.NoError(t, err)
		res, err := b.c.Get(b.base + "/datasets?source_id=" + other.ID + "&identifier=a")
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusMovedPermanently, res.StatusCode)
		require.Equal(t, "/dataset/"+own.Slug, res.Header.Get("Location"))
		code, body = b.get(res.Header.Get("Location"))
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, body, `<h1 id="page-title">Own title</h1>`)
		_, body = b.get("/harvest_records/" + own.RecordID)
		require.Contains(t, body, `<a href="/dataset/`+own.Slug+`" id="record-dataset">the live dataset</a>`, "the record page links the public page")
		_, body = b.get("/harvest_records/" + f.updated.ID)
		require.Contains(t, body, `<span id="record-dataset">no live dataset</span>`, "a held dataset is not live")
		code, _ = b.get("/dataset/" + strings.Repeat("a", 10_000))
		require.Equal(t, http.StatusNotFound, code)
		code, _ = b.get("/datasets?source_id=" + other.ID + "&identifier=" + strings.Repeat("a", 10_000))
		require.Equal(t, http.StatusNotFound, code)
	})
}

// holdOne seeds st and holds the seeded source's dataset "a" against a dataset of another source
// ("Agency's own", precedence 10), which it returns.
func holdOne(t *testing.T, st store.Store) (*fixture, *store.Source) {
	t.Helper()
	ctx := t.Context()
	f := seed(t, st)
	other, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "Agency's own", Precedence: 10,
		URL: "https://own.example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: other.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID,
		SourceID: other.ID, Identifier: "a", Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}"})
	require.NoError(t, err)
	kept, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: other.ID, Identifier: "a",
		Slug: "own-a-" + uuid.NewString()[:8], DCAT: json.RawMessage(`{"identifier":"a","title":"Own title"}`),
		RecordID: rec.ID})
	require.NoError(t, err)
	held, err := st.DatasetDuplicateKeep(ctx, &store.DatasetDuplicateKeepParams{DatasetID: kept.ID, JobID: job.ID})
	require.NoError(t, err)
	require.Len(t, held, 1)
	return f, other
}

// TestSourceDeleteClearCountHeld: the delete and clear confirmation pages of a source count its
// held datasets too (a clear job removes them; a delete is refused while it has any).
func TestSourceDeleteClearCountHeld(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f, _ := holdOne(t, st)
		live, err := st.DatasetCount(t.Context(), f.src.ID)
		require.NoError(t, err)
		want := fmt.Sprintf("%d datasets (1 of them held as cross-source duplicates)", live+1)
		b := newSite(t, st).browser(t)
		code, body := b.get("/harvest_sources/" + f.src.ID + "/delete")
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, body, want)
		code, body = b.get("/harvest_sources/" + f.src.ID + "/jobs/new?job_type=clear")
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, body, "removes all "+want)
		require.Contains(t, body, fmt.Sprintf("Clear %d datasets", live+1))
	})
}
