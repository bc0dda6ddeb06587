package extract_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

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
