package portal

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
)

// servePages serves body (a corpus file, or JSON text) for every request and records the
// requests' URLs (read them once the request is answered).
func servePages(t *testing.T, body []byte) (*httptest.Server, *[]*url.URL) {
	t.Helper()
	var (
		mu   sync.Mutex
		reqs []*url.URL
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reqs = append(reqs, r.URL)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &reqs
}

func corpusBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(corpustest.Path(t, name))
	require.NoError(t, err)
	return b
}

func fastFetch() fetch.Config {
	return fetch.Config{AllowPrivate: true, Attempts: 1}.WithDefaults()
}

func pagerFor(t *testing.T, typ harvest.SourceType, u string, options map[string]string) (*extract.Pager, error) {
	t.Helper()
	h := &handler{newHandler(nil, nil, fastFetch())}
	job := &harvest.Job{SourceType: typ, URL: u, Options: options}
	switch typ {
	case harvest.SourceSocrata:
		return h.socrataPager(h.Fetch(), job)
	case harvest.SourceArcGIS:
		return h.arcgisPager(h.Fetch(), job)
	default:
		return h.odsPager(h.Fetch(), job)
	}
}

func TestSocrataPagerReadsTheDiscoveryAPI(t *testing.T) {
	srv, reqs := servePages(t, corpusBytes(t, "socrata/discovery-api-catalog-v1-datasets.json"))
	p, err := pagerFor(t, harvest.SourceSocrata, srv.URL+"/browse?x=1", map[string]string{"domain": "data.cms.gov", "limit": "7"})
	require.NoError(t, err)
	require.Equal(t, 7, p.PageSize)
	page, err := p.Page(context.Background(), 14)
	require.NoError(t, err)
	require.Equal(t, 150680, page.Total)
	require.Len(t, page.Items, 7)
	require.Empty(t, page.Items[0].Identifier, "a result of another domain is not keyed")
	require.ErrorContains(t, page.Items[0].Err, `msk6-43c6 (title "Approved Building Permits") is a view of domain "data.cityofboston.gov", not of this source's domain "data.cms.gov"`)
	require.Equal(t, "https://data.cms.gov/d/qcn7-gc3g", page.Items[2].Identifier)
	require.Equal(t, "Order and Referring", page.Items[2].Title)
	q := (*reqs)[0].Query()
	require.Equal(t, "/api/catalog/v1", (*reqs)[0].Path)
	require.Equal(t, "data.cms.gov", q.Get("domains"))
	require.Equal(t, "dataset", q.Get("only"))
	require.Equal(t, "dataset_id", q.Get("order"))
	require.Equal(t, "14", q.Get("offset"))
	require.Equal(t, "7", q.Get("limit"))

	_, err = pagerFor(t, harvest.SourceSocrata, srv.URL, map[string]string{"limit": "0"})
	require.ErrorContains(t, err, `limit option "0": want a page size from 1 to 10000`)
	_, err = pagerFor(t, harvest.SourceSocrata, "ftp://data.example.gov", nil)
	require.ErrorContains(t, err, "want the domain's http(s) URL")

	// An answer without resultSetSize is not a Discovery API answer.
	srv2, _ := servePages(t, []byte(`{"results": []}`))
	p, err = pagerFor(t, harvest.SourceSocrata, srv2.URL, nil)
	require.NoError(t, err)
	_, err = p.Page(context.Background(), 0)
	require.ErrorContains(t, err, "no resultSetSize")
}

func TestArcGISPagers(t *testing.T) {
	// The portal search: pages from 1, nextStart 101 (not the last page).
	srv, reqs := servePages(t, corpusBytes(t, "portals/arcgis/arcgis-online-search-hub-sites-page1-nextstart-101.json"))
	p, err := pagerFor(t, harvest.SourceArcGIS, srv.URL+"/sharing/rest/search?q=x", map[string]string{"orgid": "abc", "q": `type:"Feature Service"`})
	require.NoError(t, err)
	require.Equal(t, 1, p.Start)
	page, err := p.Page(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, 146, page.Total)
	require.False(t, page.Last)
	require.Len(t, page.Items, 100)
	require.Equal(t, srv.URL+"/home/item.html?id=4f29e28b4c0b4a52a512e7106dd1245e", page.Items[0].Identifier)
	require.Equal(t, `(type:"Feature Service") AND orgid:abc`, (*reqs)[0].Query().Get("q"))
	require.Equal(t, "created", (*reqs)[0].Query().Get("sortField"))

	// The last page says nextStart -1; an error answer (HTTP 200 with {"error"}) fails the page.
	srv2, _ := servePages(t, []byte(`{"total": 146, "start": 101, "num": 46, "nextStart": -1, "results": []}`))
	p, err = pagerFor(t, harvest.SourceArcGIS, srv2.URL, map[string]string{"api": "search"})
	require.NoError(t, err)
	page, err = p.Page(context.Background(), 101)
	require.NoError(t, err)
	require.True(t, page.Last)
	srv3, _ := servePages(t, []byte(`{"error": {"code": 400, "message": "Invalid query"}}`))
	p, err = pagerFor(t, harvest.SourceArcGIS, srv3.URL+"/sharing/rest", nil)
	require.NoError(t, err)
	_, err = p.Page(context.Background(), 1)
	require.ErrorContains(t, err, "ArcGIS answered an error")
	require.ErrorContains(t, err, "Invalid query")

	// A Hub site (the default for a bare URL): its dataset search, records keyed under the site.
	record := corpusBytes(t, "portals/arcgis/hub-search-dataset-record-geojson-qa.json")
	hub := `{"type": "FeatureCollection", "numberMatched": 1, "numberReturned": 1, "links": [{"rel": "self"}], "features": [` + string(record) + `]}`
	srv4, reqs4 := servePages(t, []byte(hub))
	p, err = pagerFor(t, harvest.SourceArcGIS, srv4.URL+"/", nil)
	require.NoError(t, err)
	page, err = p.Page(context.Background(), 1)
	require.NoError(t, err)
	require.Equal(t, 1, page.Total)
	require.True(t, page.Last, "no next link")
	require.Equal(t, srv4.URL+"/datasets/f4bcc1035b7d46cba95e977f4affb6be_0", page.Items[0].Identifier)
	require.Equal(t, "Tahoe places of interest", page.Items[0].Title)
	require.Equal(t, "/api/search/v1/collections/dataset/items", (*reqs4)[0].Path)
	require.Equal(t, "1", (*reqs4)[0].Query().Get("startindex"))

	_, err = pagerFor(t, harvest.SourceArcGIS, srv.URL, map[string]string{"api": "rest"})
	require.ErrorContains(t, err, `api option "rest": want search or hub`)
}

func TestOpenDataSoftPagers(t *testing.T) {
	// v1: nhits is not trusted as a total: the listing pages until a page is short.
	srv, reqs := servePages(t, corpusBytes(t, "portals/opendatasoft/ods-v1-datasets-search-etalab-sandbox-attachments.json"))
	p, err := pagerFor(t, harvest.SourceOpenDataSoft, srv.URL+"/explore/?sort=modified", map[string]string{"api": "v1", "limit": "10"})
	require.NoError(t, err)
	page, err := p.Page(context.Background(), 0)
	require.NoError(t, err)
	require.Equal(t, -1, page.Total)
	require.Len(t, page.Items, 4)
	require.Equal(t, srv.URL+"/datasets/test-b", page.Items[0].Identifier)
	require.Equal(t, "test-b", page.Items[0].Title)
	require.Equal(t, "/api/datasets/1.0/search/", (*reqs)[0].Path)
	require.Equal(t, "10", (*reqs)[0].Query().Get("rows"))

	// v2.1 (default): total_count, keyed by dataset_uid; v2.0's {dataset: …} wrapping is read too.
	body := `{"total_count": 2, "results": [
	 {"dataset_id": "a", "dataset_uid": "da_1", "metas": {"default": {"title": "A"}}},
	 {"dataset": {"dataset_id": "b", "dataset_uid": "da_2", "metas": {"default": {"title": "B"}}}},
	 {"metas": {"default": {"title": "no id"}}}]}`
	srv2, reqs2 := servePages(t, []byte(body))
	p, err = pagerFor(t, harvest.SourceOpenDataSoft, srv2.URL+"/api/explore/v2.1/catalog/datasets", nil)
	require.NoError(t, err)
	page, err = p.Page(context.Background(), 0)
	require.NoError(t, err)
	require.Equal(t, 2, page.Total)
	require.Equal(t, srv2.URL+"/datasets/da_1", page.Items[0].Identifier)
	require.Equal(t, srv2.URL+"/datasets/da_2", page.Items[1].Identifier)
	require.Equal(t, "B", page.Items[1].Title)
	require.ErrorContains(t, page.Items[2].Err, `dataset (title "no id") has no dataset_uid or dataset_id`)
	require.Equal(t, "/api/explore/v2.1/catalog/datasets", (*reqs2)[0].Path)
	require.Equal(t, "dataset_id", (*reqs2)[0].Query().Get("order_by"))

	_, err = pagerFor(t, harvest.SourceOpenDataSoft, srv.URL, map[string]string{"limit": "101"})
	require.ErrorContains(t, err, "from 1 to 100")
	_, err = pagerFor(t, harvest.SourceOpenDataSoft, srv.URL, map[string]string{"api": "v3"})
	require.ErrorContains(t, err, "want v2.1 or v1")
}
