package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search/bleve"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

const testKey = "test-api-key"

// testBundle is one API over its own SQLite store, served by an httptest server.
type testBundle struct {
	store store.Store
	api   *server
	url   string
	logs  *syncBuffer
}

// syncBuffer is a log sink that handlers may write to concurrently.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// setup starts an API with APIKey testKey; opts adjust its config and dependencies first.
func setup(t *testing.T, opts ...func(*Config, *Deps)) *testBundle {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(ctx))
	logs := &syncBuffer{}
	cfg := Config{APIKey: testKey}
	idx, err := bleve.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { idx.Close() })
	deps := Deps{Store: st, Logger: slog.New(slog.NewJSONHandler(logs, nil)),
		Fetch: fetch.Config{Attempts: 1, AllowPrivate: true}, Search: idx}
	for _, o := range opts {
		o(&cfg, &deps)
	}
	s, err := newServer(cfg, deps)
	require.NoError(t, err)
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return &testBundle{store: deps.Store, api: s, url: srv.URL, logs: logs}
}

// response is an answer read whole.
type response struct {
	status int
	header http.Header
	body   []byte
}

// decode reads the body as JSON into a value of type T.
func decode[T any](t *testing.T, r response) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(r.body, &v), "body: %s", r.body)
	return v
}

// object reads the body as a JSON object.
func (r response) object(t *testing.T) map[string]any {
	t.Helper()
	return decode[map[string]any](t, r)
}

// request sends body (nil: none; string or []byte: as is; else marshalled) with the headers
// in hdr ("Name: value" each).
func (b *testBundle) request(t *testing.T, method, path string, body any, hdr ...string) response {
	t.Helper()
	var rd io.Reader
	switch v := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(v)
	case []byte:
		rd = bytes.NewReader(v)
	default:
		data, err := json.Marshal(v)
		require.NoError(t, err)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, b.url+path, rd)
	require.NoError(t, err)
	for _, h := range hdr {
		name, value, _ := strings.Cut(h, ": ")
		req.Header.Set(name, value)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

// get is an anonymous read.
func (b *testBundle) get(t *testing.T, path string) response {
	t.Helper()
	return b.request(t, http.MethodGet, path, nil)
}

// write sends a request with the API key.
func (b *testBundle) write(t *testing.T, method, path string, body any) response {
	t.Helper()
	return b.request(t, method, path, body, "X-API-Key: "+testKey)
}

// requireError checks an error answer: its status, and that its message contains want.
func requireError(t *testing.T, r response, status int, want string) {
	t.Helper()
	require.Equal(t, status, r.status, "body: %s", r.body)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	msg, _ := r.object(t)["error"].(string)
	require.Contains(t, msg, want)
}

// requireFields checks a 422 that names exactly the given fields.
func requireFields(t *testing.T, r response, fields ...string) map[string]any {
	t.Helper()
	requireError(t, r, http.StatusUnprocessableEntity, "invalid input")
	got, _ := r.object(t)["fields"].(map[string]any)
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	require.ElementsMatch(t, fields, names, "fields: %v", got)
	return got
}

// newOrganization creates an organization in the store.
func (b *testBundle) newOrganization(t *testing.T) *store.Organization {
	t.Helper()
	slug := "org-" + uuid.NewString()[:8]
	o, err := b.store.OrganizationInsert(context.Background(), &store.OrganizationInsertParams{Name: "Org " + slug, Slug: slug})
	require.NoError(t, err)
	return o
}

// newSource creates a manual harvest source in the store.
func (b *testBundle) newSource(t *testing.T, orgID string) *store.Source {
	t.Helper()
	id := uuid.NewString()
	src, err := b.store.SourceInsert(context.Background(), &store.SourceInsertParams{OrganizationID: orgID,
		Name: "Source " + id[:8], URL: "https://data.example.gov/" + id + "/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	return src
}

// newJob starts a job of the source in the store (in_progress).
func (b *testBundle) newJob(t *testing.T, sourceID string, jobType harvest.JobType) *store.HarvestJob {
	t.Helper()
	job, err := b.store.JobInsert(context.Background(), &store.JobInsertParams{SourceID: sourceID, JobType: jobType})
	require.NoError(t, err)
	return job
}

// newHarvestJob is a new source (newSource, no organization) and a harvest job of it (newJob).
func (b *testBundle) newHarvestJob(t *testing.T) (*store.Source, *store.HarvestJob) {
	t.Helper()
	src := b.newSource(t, "")
	return src, b.newJob(t, src.ID, harvest.JobHarvest)
}

// queueJob is a new source (newSource) and the id of the harvest job POST
// /api/v1/harvest_sources/{id}/jobs queued for it.
func (b *testBundle) queueJob(t *testing.T) (*store.Source, string) {
	t.Helper()
	src := b.newSource(t, "")
	return src, b.write(t, http.MethodPost, "/api/v1/harvest_sources/"+src.ID+"/jobs", nil).object(t)["id"].(string)
}

// failJob ends a job in error.
func (b *testBundle) failJob(t *testing.T, jobID string) {
	t.Helper()
	_, err := b.store.JobFail(context.Background(), &store.JobFailParams{JobID: jobID, Type: harvest.TypeExtractError,
		Message: "GET https://data.example.gov/data.json: HTTP 404 Not Found"})
	require.NoError(t, err)
}
