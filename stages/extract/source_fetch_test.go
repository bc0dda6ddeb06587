package extract_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/extract/document"
	"github.com/harvester-dev/harvester/stages/extract/extracttest"
	"github.com/harvester-dev/harvester/stages/extract/waf"
	"github.com/harvester-dev/harvester/store"
)

// TestHandleSendsSourceAcceptAndAuthHeader: a document source's GET carries the job's Accept
// header and the source's auth header (read from the store, not the message); a WAF's pages
// and files on the source's host do too.
func TestHandleSendsSourceAcceptAndAuthHeader(t *testing.T) {
	t.Parallel()
	type seen struct{ accept, auth string }
	var mu sync.Mutex
	got := map[string]seen{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Path] = seen{r.Header.Get("Accept"), r.Header.Get("X-Api-Key")}
		mu.Unlock()
		switch r.URL.Path {
		case "/data.json":
			_, _ = w.Write([]byte(`{"dataset":[{"identifier":"a"}]}`))
		case "/waf/":
			_, _ = w.Write([]byte(`<html><body><a href="r.xml">r.xml</a></body></html>`))
		case "/waf/r.xml":
			_, _ = w.Write([]byte(`<?xml version="1.0"?><gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd"/>`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	st := extracttest.OpenSQLite(t)
	pubsub := gochannel.NewGoChannel(gochannel.Config{}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pubsub.Close() })
	h := extract.New(st, wmbridge.Publisher{Publisher: pubsub}, fetch.Config{AllowPrivate: true, Backoff: time.Millisecond, Attempts: 1},
		extract.WithListers(map[harvest.Family]extract.Lister{harvest.FamilyDocument: document.Lister{},
			harvest.FamilyWAF: waf.Lister{}}))

	run := func(url string, sourceType harvest.SourceType, schema harvest.SchemaType, accept string) {
		t.Helper()
		src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: url, SourceType: sourceType,
			SchemaType: schema, AuthHeader: &store.AuthHeader{Name: "X-Api-Key", Value: "k-123"}})
		require.NoError(t, err)
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		m, err := harvest.NewMessage(harvest.SubjectExtract, &harvest.Job{V: harvest.Version, JobID: job.ID,
			SourceID: src.ID, JobType: harvest.JobHarvest, SourceType: sourceType, SchemaType: schema, URL: url,
			Accept: accept})
		require.NoError(t, err)
		m.SetContext(ctx)
		require.NoError(t, h.Handle(m))
		errs, err := st.JobErrorList(ctx, job.ID)
		require.NoError(t, err)
		require.Empty(t, errs)
	}
	run(srv.URL+"/data.json", harvest.SourceDocument, harvest.SchemaDCATUS11Federal, "application/json")
	run(srv.URL+"/waf/", harvest.SourceWAF, harvest.SchemaISO19115_2, "")
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, seen{"application/json", "k-123"}, got["/data.json"])
	require.Equal(t, seen{fetch.DefaultAccept, "k-123"}, got["/waf/"], "no Accept: the default")
	require.Equal(t, seen{fetch.DefaultAccept, "k-123"}, got["/waf/r.xml"])
	require.Equal(t, fetch.Config{}.Accept, h.Fetch().Accept, "the shared handler is not changed")
	require.Nil(t, h.Fetch().AuthHeader)
}
