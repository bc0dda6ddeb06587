package feeds

import (
	"encoding/xml"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

type urlset struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []struct {
		Loc     string `xml:"loc"`
		Lastmod string `xml:"lastmod"`
	} `xml:"url"`
}

type sitemapIndex struct {
	XMLName  xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Sitemaps []struct {
		Loc string `xml:"loc"`
	} `xml:"sitemap"`
}

// TestSitemap: up to the limit /sitemap.xml is one urlset of every live dataset's page; past
// it, a sitemapindex whose sitemaps, fetched in turn, list every page exactly once (an exact
// multiple of the limit adds no empty sitemap); a keyset that is no id or past the end lists
// nothing; 304 to a conditional GET; on both stores.
func TestSitemap(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		s := &seeded{schema11: map[string]string{}, v3: map[string]int{}, v3keys: map[string]bool{}}
		seedCorpus(t, st, s, "datagov-cftc.data.json", harvest.SchemaDCATUS11Federal, nil)
		all, err := st.DatasetPage(t.Context(), &store.DatasetPageParams{})
		require.NoError(t, err)
		want := map[string]bool{}
		for _, d := range all {
			want["https://catalog.example.gov/dataset/"+d.Slug] = true
		}
		n := len(all)
		require.GreaterOrEqual(t, n, 6)
		for _, max := range []int{n, n - 1, n / 2, 1} {
			m := &Sitemap{Store: st, Catalog: Catalog{BaseURL: "https://catalog.example.gov"}, maxURLs: max, pageSize: 2}
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var err error
				if strings.HasPrefix(r.URL.Path, SitemapDatasetsPath) {
					err = m.ServeDatasets(w, r)
				} else {
					err = m.ServeSitemap(w, r)
				}
				require.NoError(t, err)
			})
			resp := get(t, h, "/sitemap.xml")
			require.Equal(t, http.StatusOK, resp.StatusCode)
			raw := body(t, resp)
			got := map[string]bool{}
			if max >= n {
				var u urlset
				require.NoError(t, xml.Unmarshal(raw, &u), "%s", raw)
				for _, x := range u.URLs {
					got[x.Loc] = true
					require.NotEmpty(t, x.Lastmod)
				}
				require.Len(t, u.URLs, n)
			} else {
				var idx sitemapIndex
				require.NoError(t, xml.Unmarshal(raw, &idx), "%s", raw)
				require.Len(t, idx.Sitemaps, (n+max-1)/max, "max %d", max)
				for _, sm := range idx.Sitemaps {
					path := strings.TrimPrefix(sm.Loc, "https://catalog.example.gov")
					var u urlset
					require.NoError(t, xml.Unmarshal(body(t, get(t, h, path)), &u))
					require.LessOrEqual(t, len(u.URLs), max)
					for _, x := range u.URLs {
						require.False(t, got[x.Loc], "once: %s", x.Loc)
						got[x.Loc] = true
					}
				}
			}
			require.Equal(t, want, got, "max %d", max)
			for _, after := range []string{"not-an-id", "ffffffff-ffff-ffff-ffff-ffffffffffff", "' OR 1=1 --"} {
				var u urlset
				resp := get(t, h, SitemapDatasetsPath+"?after="+url.QueryEscape(after))
				require.Equal(t, http.StatusOK, resp.StatusCode)
				require.NoError(t, xml.Unmarshal(body(t, resp), &u))
				require.Empty(t, u.URLs, "nothing after %q", after)
			}
			require.Equal(t, http.StatusNotModified, get(t, h, "/sitemap.xml", "If-None-Match", resp.Header.Get("ETag")).StatusCode)
		}
	})
}
