package waf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// wafServer serves the corpus's real WAF listings, each at the path its links expect, and a
// corpus ISO file for every .xml link; it counts the XML downloads.
type wafServer struct {
	*httptest.Server
	mu        sync.Mutex
	downloads int
}

// wafListings maps each listing's path to its corpus capture (or to literal HTML).
var wafListings = map[string]string{
	"/apache/":            "waf/apache-noaa-garfo.html",
	"/nginx/":             "waf/nginx-alaska-dggs.html",
	"/ul/":                "waf/apache-census-division-ul.html",
	"/pre/":               "waf/apache-folder-with-subfolder.html",
	"/NTADmetadata/":      "waf/iis-bts-ntad.html",
	"/WAFer_harvest/ISO/": "waf/iis-epa-edg.html",
}

// subfolder is the listing of /pre/subfolder/: a dated file, and links back up that must not loop.
const subfolder = `<html><body><pre><a href="../">Parent Directory</a>
<a href="/pre/">/pre/</a>
<a href="record-2.xml">record-2.xml</a>          2024-05-01 10:00  12K
</pre></body></html>`

// wafRecords are the corpus files served for .xml links: valid ISO, odd but valid ISO, FGDC
// (mapped by its root element whatever the source's schema type), and files that must end as
// error rows.
var wafRecords = []string{
	"iso19115/datagov-valid-iso2-gmi.xml",
	"iso19115/datagov-valid-iso1-gmd.xml",
	"iso19115/catalog-data-gov-noaa-wcsd-leading-whitespace-gmi.xml",
	"iso19115/census-series-collection-tl-2013-county-gmi.xml",
	"iso19115/fgdc-usgs-white-fronted-goose.xml",
	"iso19115/INVALID-datagov-decode-error.xml",
	"iso19115/census-2013-county-ea-iso19110-featurecatalogue-latin1.xml",
	"iso19115/INVALID-ckanspatial-gemini-bad-xml.xml",
}

func newWAFServer(t *testing.T) *wafServer {
	t.Helper()
	s := &wafServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		switch {
		case path == "/pre/subfolder/":
			fmt.Fprint(w, subfolder)
		case wafListings[path] != "":
			http.ServeFile(w, r, corpustest.Path(t, wafListings[path]))
		case strings.HasSuffix(strings.ToLower(path), ".xml"):
			s.mu.Lock()
			s.downloads++
			s.mu.Unlock()
			h := fnv.New32a()
			h.Write([]byte(path))
			w.Header().Set("Content-Type", "application/xml")
			http.ServeFile(w, r, corpustest.Path(t, wafRecords[int(h.Sum32())%len(wafRecords)]))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *wafServer) downloaded() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.downloads
	s.downloads = 0
	return n
}

func TestHarvestWAFs(t *testing.T) {
	t.Parallel()
	srv := newWAFServer(t)

	for listing := range wafListings {
		// Each listing serves the same ISO files: one catalog per listing, else the second
		// source's datasets would be held as cross-source duplicates of the first's (same
		// landingPage), which is not what this test is about.
		h := pipelinetest.New(t)
		st := h.Store
		url := srv.URL + listing
		src := pipelinetest.Source{URL: url, SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_2}
		first := h.Harvest(t, src)
		require.Equal(t, "complete", first.Status, listing)
		require.Equal(t, 2, first.Total, "%s: every .xml file of the listing and nothing else", listing)
		require.Equal(t, first.Total, first.Added+first.Errored, listing)
		require.Equal(t, first.Total, srv.downloaded(), listing)

		// Every file is a dataset or an error row with a reason.
		datasets, err := st.DatasetList(context.Background(), &store.DatasetListParams{SourceID: first.SourceID})
		require.NoError(t, err)
		errs, _, err := st.RecordErrorList(context.Background(), &store.RecordErrorListParams{JobID: first.JobID,
			PageParams: store.PageParams{Limit: 100}})
		require.NoError(t, err)
		failed := map[string]bool{}
		for _, e := range errs {
			if e.Severity == "error" {
				require.NotEmpty(t, e.Message)
				failed[e.Identifier] = true
			}
		}
		require.Len(t, datasets, first.Added, listing)
		require.Len(t, failed, first.Errored, listing)
		for _, d := range datasets {
			require.True(t, strings.HasPrefix(d.Identifier, srv.URL+"/"), "the identifier is the file's URL: %s", d.Identifier)
			require.Contains(t, string(d.DCAT), `"geospatial"`)
		}

		// The listing dates say nothing changed: nothing is downloaded.
		second := h.Harvest(t, src)
		require.Equal(t, "complete", second.Status, listing)
		// Unchanged files are unchanged, and invalid ones errored again with their error rows
		// carried, whether the listing date or the downloaded bytes said they had not changed.
		require.Equal(t, first.Added, second.Unchanged, listing)
		require.Equal(t, first.Errored, second.Errored, listing)
		if listing == "/ul/" { // this listing shows no dates: the files are downloaded and compared
			require.Equal(t, 2, srv.downloaded(), listing)
		} else {
			require.Zero(t, srv.downloaded(), "%s: a harvest with unchanged listing dates downloads no XML", listing)
		}

		src.JobType = harvest.JobForceHarvest
		forced := h.Harvest(t, src)
		require.Equal(t, "complete", forced.Status, listing)
		require.Equal(t, 2, srv.downloaded(), "%s: force_harvest downloads everything", listing)
	}
}

// A waf-collection's parent record is harvested first, and every child is part of it.
func TestHarvestWAFCollection(t *testing.T) {
	t.Parallel()
	srv := newWAFServer(t)
	h := pipelinetest.New(t)
	parent := srv.URL + "/cfg/parent.xml"
	rep := h.Harvest(t, pipelinetest.Source{URL: srv.URL + "/apache/", SourceType: harvest.SourceWAFCollection, CollectionParentURL: parent, SchemaType: harvest.SchemaISO19115_2})
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, 3, rep.Total, "the parent and the two files")
	datasets, err := h.Store.DatasetList(context.Background(), &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	require.NotEmpty(t, datasets)
	for _, d := range datasets {
		var dcat struct {
			IsPartOf *string `json:"isPartOf"`
		}
		require.NoError(t, json.Unmarshal(d.DCAT, &dcat))
		if d.Identifier == parent {
			require.Nil(t, dcat.IsPartOf, "the parent is part of nothing")
			continue
		}
		require.NotNil(t, dcat.IsPartOf, d.Identifier)
		require.Equal(t, parent, *dcat.IsPartOf, d.Identifier)
	}
}

// One ISO file is a one-record document source; its DCAT-US is kept as source_transform, and
// the placeholders it needed are warning rows.
func TestHarvestISODocument(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	ctx, st := context.Background(), h.Store
	for _, file := range []string{"iso19115/datagov-valid-iso1-gmd.xml", "iso19115/mdtranslator-iso19115-3-mdb-dataidentification.xml"} {
		rep := h.Harvest(t, pipelinetest.Source{URL: corpustest.Path(t, file), SchemaType: harvest.SchemaISO19115_1})
		require.Equal(t, "complete", rep.Status, file)
		require.Equal(t, [2]int{1, 1}, [2]int{rep.Total, rep.Added}, file)
		datasets, err := st.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
		require.NoError(t, err)
		require.Len(t, datasets, 1)
		rec, err := st.RecordGet(ctx, datasets[0].RecordID)
		require.NoError(t, err)
		require.JSONEq(t, string(datasets[0].DCAT), string(rec.SourceTransform), "the dataset is the transform")
		require.True(t, strings.HasPrefix(strings.TrimSpace(rec.SourceRaw), "<"), "source_raw is the XML")
		errs, _, err := st.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: rep.JobID})
		require.NoError(t, err)
		for _, e := range errs {
			require.Equal(t, "warning", string(e.Severity), e.Message)
		}
		if strings.Contains(file, "mdb") {
			require.NotEmpty(t, errs, "the placeholders used are warning rows")
		}
	}
}

// fileWAF serves listing at path and the local files by their URL paths until the test ends.
func fileWAF(t *testing.T, path, listing string, files map[string]string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == path {
			fmt.Fprint(w, listing)
			return
		}
		if p, ok := files[r.URL.Path]; ok {
			http.ServeFile(w, r, p)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Every INVALID ISO file of the corpus, and the ISO 19110 file, end as error rows that say why;
// the job completes. (The FGDC files are harvested: fgdc_job_test.go.)
func TestHarvestWAFOfBadFiles(t *testing.T) {
	t.Parallel()
	bad := []string{
		"iso19115/INVALID-ckanspatial-gemini-bad-xml.xml",
		"iso19115/INVALID-ckanspatial-iso19139-dataset-invalid-gmd.xml",
		"iso19115/INVALID-datagov-decode-error.xml",
		"iso19115/INVALID-datagov-invalid-iso2-gmi.xml",
		"iso19115/census-2013-county-ea-iso19110-featurecatalogue-latin1.xml",
	}
	files := map[string]string{}
	listing := "<html><body><pre>\n"
	for _, f := range bad {
		name := strings.TrimPrefix(f, "iso19115/")
		files["/bad/"+name] = corpustest.Path(t, f)
		listing += fmt.Sprintf("<a href=%q>%s</a>  2024-01-01 00:00  1K\n", name, name)
	}
	listing += "</pre></body></html>"
	srv := fileWAF(t, "/bad/", listing, files)
	h := pipelinetest.New(t)
	rep := h.Harvest(t, pipelinetest.Source{URL: srv.URL + "/bad/", SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_2})
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, len(bad), rep.Total)
	require.Equal(t, len(bad), rep.Errored)

	errs, _, err := h.Store.RecordErrorList(context.Background(), &store.RecordErrorListParams{JobID: rep.JobID,
		PageParams: store.PageParams{Limit: 100}})
	require.NoError(t, err)
	reasons := map[string]string{}
	for _, e := range errs {
		reasons[strings.TrimPrefix(e.Identifier, srv.URL+"/bad/")] = e.Message
	}
	for _, want := range []struct{ file, reason string }{
		{"INVALID-ckanspatial-gemini-bad-xml.xml", "line"},
		{"INVALID-ckanspatial-iso19139-dataset-invalid-gmd.xml", "gmd:nosuchelement"},
		{"INVALID-datagov-decode-error.xml", "byte 0x92 at offset 88"},
		{"INVALID-datagov-invalid-iso2-gmi.xml", "gmd:role is empty"},
		{"census-2013-county-ea-iso19110-featurecatalogue-latin1.xml", "ISO 19110"},
	} {
		require.Contains(t, reasons[want.file], want.reason, want.file)
	}
}

// An empty ISO file (0 bytes, or white space only) is one error row that says so, for a
// document source and in a WAF, never a COMPARE failure; the job completes.
func TestHarvestEmptyISOFiles(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	empty := filepath.Join(t.TempDir(), "empty.xml")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	rep := h.Harvest(t, pipelinetest.Source{URL: empty, SchemaType: harvest.SchemaISO19115_2})
	require.Equal(t, "complete", rep.Status)
	require.Equal(t, [2]int{1, 1}, [2]int{rep.Total, rep.Errored})

	files := map[string]string{"/waf/empty.xml": empty, "/waf/good.xml": corpustest.Path(t, "iso19115/datagov-valid-iso2-gmi.xml")}
	blank := filepath.Join(t.TempDir(), "blank.xml")
	require.NoError(t, os.WriteFile(blank, []byte("\xEF\xBB\xBF \n\t\n"), 0o644))
	files["/waf/blank.xml"] = blank
	srv := fileWAF(t, "/waf/", `<html><body><a href="empty.xml">empty.xml</a> <a href="blank.xml">blank.xml</a> `+
		`<a href="good.xml">good.xml</a></body></html>`, files)
	waf := h.Harvest(t, pipelinetest.Source{URL: srv.URL + "/waf/", SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_2})
	require.Equal(t, "complete", waf.Status)
	require.Equal(t, [3]int{3, 1, 2}, [3]int{waf.Total, waf.Added, waf.Errored})

	reasons := map[string]string{}
	for _, jobID := range []string{rep.JobID, waf.JobID} {
		errs, _, err := h.Store.RecordErrorList(context.Background(), &store.RecordErrorListParams{JobID: jobID})
		require.NoError(t, err)
		for _, e := range errs {
			reasons[e.Identifier] = e.Type + ": " + e.Message
		}
	}
	require.Equal(t, map[string]string{
		empty:                      "EmptyFile: file " + empty + " is empty (0 bytes): it holds no ISO 19115 or FGDC record",
		srv.URL + "/waf/empty.xml": "EmptyFile: file " + srv.URL + "/waf/empty.xml is empty (0 bytes): it holds no ISO 19115 or FGDC record",
		srv.URL + "/waf/blank.xml": "EmptyFile: file " + srv.URL + "/waf/blank.xml is empty (7 bytes of white space): it holds no ISO 19115 or FGDC record",
	}, reasons)
}

// TestHarvestWAFRecordOverTheCap: a WAF file over the record cap (--max-record-bytes) is an error row naming
// the cap, and its download stops there: the server, which counts what it managed to send,
// sent a small share of the 64 MiB file. The other file is harvested.
func TestHarvestWAFRecordOverTheCap(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	small, err := os.ReadFile(corpustest.Path(t, "iso19115/datagov-valid-iso2-gmi.xml"))
	require.NoError(t, err)
	chunk := bytes.Repeat([]byte("<!-- padding -->"), 4096) // 64 KiB
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/waf/":
			_, _ = w.Write([]byte(`<html><body><pre><a href="small.xml">small.xml</a>` + "\n" +
				`<a href="huge.xml">huge.xml</a>` + "\n</pre></body></html>"))
		case "/waf/small.xml":
			_, _ = w.Write(small)
		case "/waf/huge.xml":
			_, _ = w.Write([]byte(`<?xml version="1.0"?>`))
			for range 1024 { // 64 MiB
				n, err := w.Write(chunk)
				sent.Add(int64(n))
				if err != nil {
					return
				}
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	h.Config.MaxRecordBytes = 1048576
	rep := h.Harvest(t, pipelinetest.Source{URL: srv.URL + "/waf/", SourceType: harvest.SourceWAF,
		SchemaType: harvest.SchemaISO19115_2})
	require.Equal(t, "complete", rep.Status, "%+v", rep)
	require.Equal(t, [3]int{2, 1, 1}, [3]int{rep.Total, rep.Added, rep.Errored}, "%+v", rep)
	errs, _, err := h.Store.RecordErrorList(context.Background(), &store.RecordErrorListParams{JobID: rep.JobID})
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.Equal(t, "RecordTooLarge", errs[0].Type)
	require.Contains(t, errs[0].Message, "huge.xml is more than 1048576 bytes, over the record size cap")
	require.Less(t, sent.Load(), int64(24<<20), "bytes of the 64 MiB file the server could send")
}
