package feeds

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/testenv"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// backends runs f on a fresh SQLite store and a fresh Postgres schema.
func backends(t *testing.T, f func(t *testing.T, st store.Store)) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "h.db"))
		require.NoError(t, err)
		t.Cleanup(func() { st.Close() })
		require.NoError(t, st.Migrate(t.Context()))
		f(t, st)
	})
	t.Run("postgres", func(t *testing.T) { f(t, dbtest.Store(t)) })
}

// seeded is what seedCorpus stored: the schema each dataset identifier's record is checked
// against in the 1.1 feed ("federal" or "non-federal"), and the 3.0 records by type.
type seeded struct {
	schema11 map[string]string
	v3       map[string]int  // record type -> count
	v3keys   map[string]bool // "record type identifier" of each 3.0 record
	skipped  int             // 3.0 records a 1.1 feed must leave out
	org      *store.Organization
	jobs     map[string]string // source id -> the job its records were written by
}

// seedCorpus stores the records of corpus data.json file as a harvest of a source of schema
// would leave them: each record that the schema's validator accepts becomes a live dataset of a
// new source of org (nil: none).
func seedCorpus(t *testing.T, st store.Store, s *seeded, file string, schema harvest.SchemaType, org *store.Organization) {
	t.Helper()
	ctx := t.Context()
	sp := &store.SourceInsertParams{Name: file, URL: "https://example.gov/" + uuid.NewString() + "/" + file,
		SourceType: harvest.SourceDocument, SchemaType: schema}
	if org != nil {
		sp.OrganizationID = org.ID
	}
	src, err := st.SourceInsert(ctx, sp)
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	if s.jobs == nil {
		s.jobs = map[string]string{}
	}
	s.jobs[src.ID] = job.ID
	put := func(e catalog.Entry, v *dcatus.Validator) {
		if e.Err != nil || e.Raw == nil || e.Structure != nil {
			return
		}
		if problems, err := v.Validate(e.Raw); err != nil || len(problems) > 0 {
			return
		}
		if _, ok := s.schema11[e.Identifier]; ok {
			return // an identifier two files share: the first one's stays
		}
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: e.Identifier, Action: harvest.ActionCreate, SourceHash: uuid.NewString(), SourceRaw: string(e.Raw),
			SchemaType: schema})
		require.NoError(t, err)
		_, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: e.Identifier,
			Slug: "ds-" + uuid.NewString()[:12], DCAT: e.Raw, RecordID: rec.ID, RecordType: e.RecordType})
		require.NoError(t, err)
		switch {
		case schema == harvest.SchemaDCATUS30:
			s.v3[store.DatasetRecordType(e.RecordType)]++
			s.v3keys[store.DatasetRecordType(e.RecordType)+" "+e.Identifier] = true
			if _, err := MapDCATUS3To11(e.Raw); err == nil && store.DatasetRecordType(e.RecordType) == harvest.RecordTypeDataset {
				s.schema11[e.Identifier] = "non-federal"
			} else {
				s.skipped++
			}
		case schema == harvest.SchemaDCATUS11Federal:
			s.schema11[e.Identifier] = "federal"
		default:
			s.schema11[e.Identifier] = "non-federal"
		}
	}
	path := file
	if !filepath.IsAbs(file) {
		path = corpustest.Path(t, "dcatus/"+file)
	}
	if schema == harvest.SchemaDCATUS30 {
		fh, err := os.Open(path)
		require.NoError(t, err)
		defer fh.Close()
		links, err := catalog.Check3(fh)
		require.NoError(t, err)
		_, _ = fh.Seek(0, 0)
		require.NoError(t, catalog.WalkEntries3(fh, catalog.DefaultMaxRecordBytes, links, func(e catalog.Entry) error {
			v, err := dcatus.NewValidator3(e.RecordType)
			require.NoError(t, err)
			put(e, v)
			return nil
		}))
		return
	}
	v, err := dcatus.NewValidator(string(schema))
	require.NoError(t, err)
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	require.NoError(t, catalog.WalkEntries(fh, catalog.DefaultMaxRecordBytes, func(e catalog.Entry) error {
		put(e, v)
		return nil
	}))
}

// seedMixed stores a federal agency's catalog (of organization "Agency"), a city's (non-federal)
// and three DCAT-US 3.0 catalogs with services and catalog records.
func seedMixed(t *testing.T, st store.Store) *seeded {
	t.Helper()
	s := &seeded{schema11: map[string]string{}, v3: map[string]int{}, v3keys: map[string]bool{}}
	var err error
	s.org, err = st.OrganizationInsert(t.Context(), &store.OrganizationInsertParams{Name: "Agency", Slug: "agency"})
	require.NoError(t, err)
	seedCorpus(t, st, s, "agency-gsa-2025-07.data.json", harvest.SchemaDCATUS11Federal, s.org)
	seedCorpus(t, st, s, "city-philadelphia-with-nulls.data.json", harvest.SchemaDCATUS11NonFederal, nil)
	// Data.gov's complete 3.0 Dataset example, which maps to 1.1, in a 3.0 catalog.
	example, err := os.ReadFile(corpustest.Path(t, "schemas/dcat-us-3.0/examples/Dataset-good-complete_example.json"))
	require.NoError(t, err)
	complete := filepath.Join(t.TempDir(), "complete.json")
	require.NoError(t, os.WriteFile(complete, []byte(`{"@type":"Catalog","conformsTo":{"@type":"Standard","title":"DCAT-US 3.0"},"dataset":[`+
		string(example)+`]}`), 0o600))
	for _, f := range []string{complete, "dcatus3-catalog.json", "dcatus3-with-services.json", "dcatus3-with-records.json"} {
		seedCorpus(t, st, s, f, harvest.SchemaDCATUS30, nil)
	}
	t.Logf("seeded: %d datasets in 1.1, 3.0 records %v, %d of them not in 1.1", len(s.schema11), s.v3, s.skipped)
	require.NotEmpty(t, s.v3[harvest.RecordTypeDataService], "the 3.0 seed has a data service")
	require.Equal(t, "non-federal", s.schema11["NCDC-CLIMATE-OBS-2024"], "a 3.0 dataset mapped to 1.1")
	nonFederal := 0
	for _, v := range s.schema11 {
		if v == "non-federal" {
			nonFederal++
		}
	}
	require.Greater(t, nonFederal, 5, "non-federal records of a non-federal source")
	require.NotEmpty(t, s.v3[harvest.RecordTypeCatalogRecord], "the 3.0 seed has catalog records")
	return s
}

// get GETs path from h with the headers given in pairs.
func get(t *testing.T, h http.Handler, path string, headers ...string) *http.Response {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Result()
}

func body(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return b
}

// feedHandler serves f's feed p at every path.
func feedHandler(f *DataJSON, p DataJSONParams) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := f.Serve(w, r, p); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
}

type catalog11 struct {
	Context     string            `json:"@context"`
	ID          string            `json:"@id"`
	Type        string            `json:"@type"`
	ConformsTo  string            `json:"conformsTo"`
	DescribedBy string            `json:"describedBy"`
	Dataset     []json.RawMessage `json:"dataset"`
}

// TestDataJSON: /data.json holds every live dataset of a mixed catalog once (3.0 datasets
// mapped, other 3.0 records left out and counted in the trailer), with the 1.1 catalog's own
// members; each dataset validates in Python jsonschema against Data.gov's DCAT-US 1.1 schema
// of its source's schema type and the whole against the catalog schema; the 3.0 feed holds the
// 3.0 records by array, and re-reads as a 3.0 catalog; per organization selects; ETag 304 and
// gzip; on both stores, through a keyset walk of several pages.
func TestDataJSON(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		s := seedMixed(t, st)
		f := &DataJSON{Store: st, Catalog: Catalog{BaseURL: "https://catalog.example.gov"}, pageSize: 7}
		h := feedHandler(f, DataJSONParams{Version: DCATUS11, Path: "/data.json"})
		resp := get(t, h, "/data.json")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		raw := body(t, resp)
		require.Equal(t, strconv.Itoa(s.skipped), resp.Trailer.Get(SkippedHeader))
		require.Positive(t, s.skipped, "the seed has 3.0 records a 1.1 feed cannot hold")
		var c catalog11
		require.NoError(t, json.Unmarshal(raw, &c))
		require.Equal(t, POD11Context, c.Context)
		require.Equal(t, "https://catalog.example.gov/data.json", c.ID)
		require.Equal(t, "dcat:Catalog", c.Type)
		require.Equal(t, POD11ConformsTo, c.ConformsTo)
		require.Equal(t, POD11DescribedBy, c.DescribedBy)
		require.Greater(t, len(s.schema11), 3*7, "more than three pages")
		seen := map[string]bool{}
		for _, d := range c.Dataset {
			var k struct{ Identifier string }
			require.NoError(t, json.Unmarshal(d, &k))
			require.Contains(t, s.schema11, k.Identifier)
			require.False(t, seen[k.Identifier], "once: %s", k.Identifier)
			seen[k.Identifier] = true
		}
		require.Len(t, seen, len(s.schema11), "every live dataset")

		// Conditional GET and gzip.
		etag := resp.Header.Get("ETag")
		require.NotEmpty(t, etag)
		require.NotEmpty(t, resp.Header.Get("Last-Modified"))
		require.Equal(t, http.StatusNotModified, get(t, h, "/data.json", "If-None-Match", etag).StatusCode)
		require.Equal(t, http.StatusNotModified, get(t, h, "/data.json", "If-Modified-Since", resp.Header.Get("Last-Modified")).StatusCode)
		zresp := get(t, h, "/data.json", "Accept-Encoding", "br;q=1.0, gzip;q=0.8")
		require.Equal(t, "gzip", zresp.Header.Get("Content-Encoding"))
		require.NotEqual(t, etag, zresp.Header.Get("ETag"), "each encoding its own ETag")
		zr, err := gzip.NewReader(zresp.Body)
		require.NoError(t, err)
		unzipped, err := io.ReadAll(zr)
		require.NoError(t, err)
		require.Equal(t, raw, unzipped)
		require.Empty(t, get(t, h, "/data.json", "Accept-Encoding", "gzip;q=0").Header.Get("Content-Encoding"))

		// A change makes a new ETag.
		drop, err := st.DatasetPage(t.Context(), &store.DatasetPageParams{Limit: 1})
		require.NoError(t, err)
		_, err = st.DatasetDelete(t.Context(), &store.DatasetDeleteParams{SourceID: drop[0].SourceID, Identifier: drop[0].Identifier})
		require.NoError(t, err)
		after := get(t, h, "/data.json", "If-None-Match", etag)
		require.Equal(t, http.StatusOK, after.StatusCode, "a deleted dataset changes the ETag")
		require.NotContains(t, string(body(t, after)), drop[0].Identifier+`"`)

		// Per organization: only the agency's.
		org := get(t, feedHandler(f, DataJSONParams{Version: DCATUS11, OrganizationID: s.org.ID, Path: "/organization/agency/data.json"}), "/")
		var oc catalog11
		require.NoError(t, json.Unmarshal(body(t, org), &oc))
		require.NotEmpty(t, oc.Dataset)
		for _, d := range oc.Dataset {
			var k struct{ Identifier string }
			require.NoError(t, json.Unmarshal(d, &k))
			require.Equal(t, "federal", s.schema11[k.Identifier], k.Identifier)
		}

		// The 3.0 feed: the 3.0 records by array, read back as EXTRACT reads a 3.0 catalog.
		v3 := body(t, get(t, feedHandler(f, DataJSONParams{Version: DCATUS30, Path: "/data.v3.json"}), "/"))
		links, err := catalog.Check3(bytes.NewReader(v3))
		require.NoError(t, err, "%.300s", v3)
		keys := map[string]bool{}
		require.NoError(t, catalog.WalkEntries3(bytes.NewReader(v3), catalog.DefaultMaxRecordBytes, links, func(e catalog.Entry) error {
			keys[store.DatasetRecordType(e.RecordType)+" "+e.Identifier] = true
			return nil
		}))
		require.Equal(t, s.v3keys, keys)

		// Last, as it skips without Python outside CI: every dataset valid by Data.gov's schema.
		validate11(t, raw, s.schema11)
	})
}

// TestDataJSONHugeValue: a record with a 1 MB description goes out whole, and the feed stays
// valid JSON around it: a record is never cut or held to a size.
func TestDataJSONHugeValue(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		s := &seeded{schema11: map[string]string{}, v3: map[string]int{}, v3keys: map[string]bool{}}
		seedCorpus(t, st, s, "datagov-cftc.data.json", harvest.SchemaDCATUS11Federal, nil)
		page, err := st.DatasetPage(t.Context(), &store.DatasetPageParams{Limit: 1})
		require.NoError(t, err)
		var d map[string]any
		require.NoError(t, json.Unmarshal(page[0].DCAT, &d))
		huge := strings.Repeat("ü≠ \"quoted\" ", 1<<20/14)
		d["description"] = huge
		b, err := json.Marshal(d)
		require.NoError(t, err)
		_, err = st.DatasetUpsert(t.Context(), &store.DatasetUpsertParams{SourceID: page[0].SourceID, Identifier: page[0].Identifier,
			DCAT: b, RecordID: page[0].RecordID})
		require.NoError(t, err)
		raw := body(t, get(t, feedHandler(&DataJSON{Store: st}, DataJSONParams{Version: DCATUS11, Path: "/data.json"}), "/data.json"))
		var c catalog11
		require.NoError(t, json.Unmarshal(raw, &c))
		found := false
		for _, x := range c.Dataset {
			var k struct{ Identifier, Description string }
			require.NoError(t, json.Unmarshal(x, &k))
			if k.Identifier == page[0].Identifier {
				require.Equal(t, huge, k.Description)
				found = true
			}
		}
		require.True(t, found)
		// Not checked by the schema: its description is at most 65,536 characters (such a
		// record fails VALIDATE; this one is written into the store behind its back).
	})
}

// validate11Python checks a served data.json with Python jsonschema: the catalog against
// Data.gov's DCAT-US 1.1 catalog schema (its items against the non-federal dataset schema), and
// each dataset against the federal or non-federal schema that argv[2] (identifier -> schema
// name) gives. It prints a JSON list of the problems found.
const validate11Python = `
import json, sys
from jsonschema import Draft202012Validator, FormatChecker
from referencing import Registry, Resource
d = sys.argv[1]
load = lambda n: json.load(open(d + "/" + n))
schemas = {"federal": load("federal_dataset.json"), "non-federal": load("non-federal_dataset.json")}
registry = Registry().with_resource("https://project-open-data.cio.gov/v1.1/schema/dataset.json",
    Resource.from_contents(schemas["non-federal"]))
fc = FormatChecker()
doc = json.load(open(sys.argv[3]))
want = json.load(open(sys.argv[2]))
problems = []
for e in Draft202012Validator(load("catalog.json"), registry=registry, format_checker=fc).iter_errors(doc):
    problems.append("catalog: " + e.message[:200])
validators = {k: Draft202012Validator(v, format_checker=fc) for k, v in schemas.items()}
for ds in doc["dataset"]:
    which = want.get(ds.get("identifier"))
    if which is None:
        problems.append("not seeded: %r" % ds.get("identifier"))
        continue
    for e in validators[which].iter_errors(ds):
        problems.append("%s (%s) %s: %s" % (ds.get("identifier"), which, list(e.absolute_path), e.message[:200]))
print(json.dumps(problems))
`

// validate11 runs validate11Python on doc (HARVESTER_TEST_PYTHON; testenv.Missing without it).
func validate11(t *testing.T, doc []byte, schemas map[string]string) {
	t.Helper()
	python := os.Getenv("HARVESTER_TEST_PYTHON")
	if python == "" {
		testenv.Missing(t, "HARVESTER_TEST_PYTHON is not set: eval \"$(scripts/services.sh)\" makes a venv with jsonschema; data.json not checked by Python jsonschema")
	}
	dir := t.TempDir()
	docPath, wantPath := filepath.Join(dir, "data.json"), filepath.Join(dir, "want.json")
	require.NoError(t, os.WriteFile(docPath, doc, 0o600))
	w, err := json.Marshal(schemas)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(wantPath, w, 0o600))
	cmd := exec.Command(python, "-c", validate11Python, filepath.Join(corpustest.Dir(t), "schemas", "dcat-us-1.1-datagov-harvester"), wantPath, docPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "python: %s", stderr.String())
	var problems []string
	require.NoError(t, json.Unmarshal(out, &problems))
	require.Empty(t, problems)
}

// TestOneLine: a record already on one line goes out as it is; one with line breaks (as SQLite
// keeps a pretty-printed record) is made compact; what is not a JSON object is an error.
func TestOneLine(t *testing.T) {
	var buf bytes.Buffer
	for in, want := range map[string]string{
		`{"a": 1, "b": "x\ny"}`:                  `{"a": 1, "b": "x\ny"}`,
		"  {\"a\": 1}\n":                         `{"a": 1}`,
		"{\n  \"a\": [1,\n 2],\r\n \"b\": {}\n}": `{"a":[1,2],"b":{}}`,
	} {
		got, err := oneLine(&buf, []byte(in))
		require.NoError(t, err)
		require.Equal(t, want, string(got))
	}
	for _, bad := range []string{"", "[1]", "\"x\"", "{\n\"a\":", "{\"a\":1}\n{\"b\":2}\n"} {
		_, err := oneLine(&buf, []byte(bad))
		require.Error(t, err, "%q", bad)
	}
}
