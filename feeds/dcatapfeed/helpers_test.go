package dcatapfeed_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/feeds/dcatapfeed"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/testenv"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// backends runs f on SQLite and on Postgres (dbtest: skipped without a database unless
// HARVESTER_TEST_REQUIRE_POSTGRES is set, which fails instead).
func backends(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "h.db"))
		require.NoError(t, err)
		t.Cleanup(st.Close)
		require.NoError(t, st.Migrate(context.Background()))
		f(t, st)
	})
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.Store(t)) })
}

// seeded is one source's datasets written to a store as a harvest would leave them.
type seeded struct {
	org *store.Organization
	src *store.Source
	job *store.HarvestJob
	// bodies are the stored DCAT-US records by identifier.
	bodies map[string]json.RawMessage
}

// seedCorpus writes the datasets of a corpus data.json (each with a string identifier, the
// first of a repeated one) as live datasets of a new source of a new organization.
func seedCorpus(t *testing.T, st store.Store, file string) *seeded {
	t.Helper()
	raw, err := os.ReadFile(corpustest.Path(t, "dcatus/"+file))
	require.NoError(t, err)
	var doc struct {
		Dataset []json.RawMessage `json:"dataset"`
	}
	require.NoError(t, json.Unmarshal(raw, &doc))
	s := newSource(t, st, file)
	for _, d := range doc.Dataset {
		var head struct {
			Identifier any `json:"identifier"`
		}
		require.NoError(t, json.Unmarshal(d, &head))
		id, ok := head.Identifier.(string)
		if !ok || id == "" || s.bodies[id] != nil {
			continue
		}
		s.add(t, st, id, d)
	}
	require.NotEmpty(t, s.bodies, file)
	return s
}

func newSource(t *testing.T, st store.Store, name string) *seeded {
	t.Helper()
	ctx := t.Context()
	org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Org of " + name + " " + uuid.NewString()[:6],
		Slug: "org-" + uuid.NewString()[:8]})
	require.NoError(t, err)
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: org.ID, Name: name,
		URL: "https://agency.example.gov/" + uuid.NewString()[:8] + "/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	return &seeded{org: org, src: src, job: job, bodies: map[string]json.RawMessage{}}
}

// add writes one record and its live dataset.
func (s *seeded) add(t *testing.T, st store.Store, ident string, body json.RawMessage) *store.Dataset {
	t.Helper()
	ctx := t.Context()
	rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: s.job.ID, SourceID: s.src.ID,
		Identifier: ident, Action: harvest.ActionCreate, SourceHash: uuid.NewString(), SourceRaw: string(body),
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	ds, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: s.src.ID, Identifier: ident,
		Slug: "ds-" + strings.ReplaceAll(uuid.NewString(), "-", "")[:16], DCAT: body, RecordID: rec.ID})
	require.NoError(t, err)
	s.bodies[ident] = body
	return ds
}

// feedServer serves f's routes as web/catalog_feed.go mounts them.
func feedServer(t *testing.T, st store.Store, c feeds.Catalog) *httptest.Server {
	t.Helper()
	f := dcatapfeed.New(st, c)
	mux := http.NewServeMux()
	answer := func(w http.ResponseWriter, err error) {
		var bad *dcatapfeed.BadRequest
		var missing *dcatapfeed.NotFound
		switch {
		case errors.As(err, &bad):
			http.Error(w, bad.Msg, http.StatusBadRequest)
		case errors.As(err, &missing):
			http.Error(w, missing.Msg, http.StatusNotFound)
		case err != nil:
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}
	mux.HandleFunc("GET /catalog", func(w http.ResponseWriter, r *http.Request) { answer(w, f.ServeCatalog(w, r, "")) })
	for ext, format := range dcatapfeed.Extensions {
		mux.HandleFunc("GET /catalog"+ext, func(w http.ResponseWriter, r *http.Request) { answer(w, f.ServeCatalog(w, r, format)) })
	}
	mux.HandleFunc("GET /dataset/{file}", func(w http.ResponseWriter, r *http.Request) {
		file := r.PathValue("file")
		ext := filepath.Ext(file)
		format, ok := dcatapfeed.Extensions[ext]
		if !ok {
			http.NotFound(w, r)
			return
		}
		ds, err := st.DatasetFind(r.Context(), &store.DatasetFindParams{Slug: strings.TrimSuffix(file, ext)})
		if err != nil {
			http.NotFound(w, r)
			return
		}
		answer(w, f.ServeDataset(w, r, ds, format))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// get fetches url with Accept accept and returns the answer with its body read.
func get(t *testing.T, url, accept string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, body
}

// page is one fetched document of the feed.
type page struct {
	url     string
	format  rdf.Format
	body    []byte
	triples []rdf.Triple
}

// parse reads a document with our parser.
func parse(t *testing.T, body []byte, format rdf.Format, base string) []rdf.Triple {
	t.Helper()
	var ts []rdf.Triple
	require.NoError(t, rdf.Parse(bytes.NewReader(body), format, base, func(tr rdf.Triple) error {
		ts = append(ts, tr)
		return nil
	}), "%s", firstBytes(body))
	return ts
}

func firstBytes(b []byte) string {
	if len(b) > 2000 {
		return string(b[:2000]) + "…"
	}
	return string(b)
}

const hydra = "http://www.w3.org/ns/hydra/core#"

// walk fetches start and every page its hydra:next links lead to (at most limit pages).
func walk(t *testing.T, start string, limit int) []page {
	t.Helper()
	var pages []page
	for url := start; url != "" && len(pages) < limit; {
		resp, body := get(t, url, "")
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", url, body)
		format, err := rdf.FormatFor(resp.Header.Get("Content-Type"), "", url)
		require.NoError(t, err)
		p := page{url: url, format: format, body: body, triples: parse(t, body, format, url)}
		pages = append(pages, p)
		url = ""
		for _, tr := range p.triples {
			if tr.P.Value == hydra+"next" {
				url = tr.O.Value
			}
		}
	}
	return pages
}

// objects returns the objects of (s, p) in ts; a zero s matches any subject.
func objects(ts []rdf.Triple, s rdf.Term, p string) []rdf.Term {
	var out []rdf.Term
	for _, t := range ts {
		if (s.IsZero() || t.S == s) && t.P.Value == p {
			out = append(out, t.O)
		}
	}
	return out
}

// python is the interpreter with rdflib and pySHACL (HARVESTER_TEST_PYTHON, which
// scripts/services.sh sets). Its absence fails the test in CI and skips it elsewhere.
func python(t *testing.T) string {
	t.Helper()
	p := os.Getenv("HARVESTER_TEST_PYTHON")
	if p == "" {
		testenv.Missing(t, "HARVESTER_TEST_PYTHON is not set: eval \"$(scripts/services.sh)\" makes a venv with rdflib and pyshacl")
	}
	if err := exec.Command(p, "-c", "import rdflib, pyshacl").Run(); err != nil {
		testenv.Missing(t, fmt.Sprintf("%s cannot import rdflib and pyshacl (%v)", p, err))
	}
	return p
}

// rdflibDoc and rdflibGraph are testdata/rdflib_read.py's input.
type rdflibDoc struct {
	Path   string `json:"path"`
	Format string `json:"format"`
}

type rdflibGraph struct {
	ID        string      `json:"id"`
	Docs      []rdflibDoc `json:"docs"`
	Canonical bool        `json:"canonical"`
}

type rdflibResult struct {
	Triples   int    `json:"triples"`
	Error     string `json:"error"`
	Canonical string `json:"canonical"`
}

// rdflibFormat is rdflib's name of a syntax.
var rdflibFormat = map[rdf.Format]string{rdf.Turtle: "turtle", rdf.RDFXML: "xml", rdf.JSONLD: "json-ld", rdf.NTriples: "nt"}

// rdflibRead parses each graph's documents with rdflib.
func rdflibRead(t *testing.T, py string, graphs []rdflibGraph) map[string]rdflibResult {
	t.Helper()
	in, err := json.Marshal(map[string]any{"graphs": graphs})
	require.NoError(t, err)
	cmd := exec.Command(py, "testdata/rdflib_read.py")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "rdflib: %s", stderr.String())
	var res map[string]rdflibResult
	require.NoError(t, json.Unmarshal(out, &res))
	return res
}

// writeTemp writes b to a new file in dir and returns its path.
func writeTemp(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}
