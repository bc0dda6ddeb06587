package feeds

import (
	"bufio"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// MaxSitemapURLs is the most URLs one sitemap lists (sitemaps.org protocol 0.9: 50,000 URLs and
// 50 MB uncompressed; a dataset URL is far under 1 KB).
const MaxSitemapURLs = 50000

// SitemapDatasetsPath is the path of the sitemaps a sitemap index lists, each the dataset pages
// after the dataset id in its "after" query parameter.
const SitemapDatasetsPath = "/sitemap-datasets.xml"

// Sitemap serves the live catalog's dataset pages ({base}/dataset/{slug}, lastmod their last
// change) as sitemaps for crawlers (https://www.sitemaps.org/protocol.html), read from the store by
// keyset and streamed. Up to MaxSitemapURLs datasets, /sitemap.xml is one urlset; past it,
// /sitemap.xml is a sitemapindex of SitemapDatasetsPath sitemaps of MaxSitemapURLs datasets
// each, the n-th starting after the last dataset of the one before (?after={dataset id}).
type Sitemap struct {
	Store   Pager
	Catalog Catalog

	maxURLs  int // MaxSitemapURLs when 0 (a knob for tests)
	pageSize int // store.MaxDatasetPage when 0
}

const sitemapNS = "http://www.sitemaps.org/schemas/sitemap/0.9"

// ServeSitemap answers /sitemap.xml: a urlset of every dataset page, or a sitemapindex when
// the catalog has more than MaxSitemapURLs datasets. ETag and Last-Modified from the catalog's
// store.DatasetPageStats; 304 to a matching conditional GET.
func (m *Sitemap) ServeSitemap(w http.ResponseWriter, r *http.Request) error {
	st, err := m.Store.DatasetPageStats(r.Context(), &store.DatasetPageParams{})
	if err != nil {
		return fmt.Errorf("sitemap stats: %w", err)
	}
	if st.Count <= m.max() {
		return m.serve(w, r, st, "", m.urlset)
	}
	return m.serve(w, r, st, "index", m.index)
}

// ServeDatasets answers SitemapDatasetsPath?after={id}: a urlset of the MaxSitemapURLs dataset
// pages after dataset id (from the first without after; empty past the end).
func (m *Sitemap) ServeDatasets(w http.ResponseWriter, r *http.Request) error {
	st, err := m.Store.DatasetPageStats(r.Context(), &store.DatasetPageParams{})
	if err != nil {
		return fmt.Errorf("sitemap stats: %w", err)
	}
	after := r.URL.Query().Get("after")
	return m.serve(w, r, st, "after "+after, func(ctx context.Context, bw *bufio.Writer, base string) error {
		return m.urlsetAfter(ctx, bw, base, after)
	})
}

func (m *Sitemap) max() int {
	if m.maxURLs > 0 {
		return m.maxURLs
	}
	return MaxSitemapURLs
}

// serve answers with the XML body writes, after the conditional-GET check.
func (m *Sitemap) serve(w http.ResponseWriter, r *http.Request, st *store.DatasetPageStats, query string,
	body func(ctx context.Context, bw *bufio.Writer, base string) error) error {
	c := m.Catalog.WithDefaults()
	base := c.Base(r)
	if NotModified(w, r, StatsETag("sitemap", query+"\x00"+base, st), st.LastModified) {
		return nil
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	if r.Method == http.MethodHead {
		return nil
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(xml.Header)
	err := body(r.Context(), bw, base)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		panic(http.ErrAbortHandler) // a cut sitemap must not look whole
	}
	return nil
}

// urlset writes every dataset page.
func (m *Sitemap) urlset(ctx context.Context, bw *bufio.Writer, base string) error {
	return m.urlsetAfter(ctx, bw, base, "")
}

// urlsetAfter writes the m.max() dataset pages after dataset id after.
func (m *Sitemap) urlsetAfter(ctx context.Context, bw *bufio.Writer, base, after string) error {
	bw.WriteString(`<urlset xmlns="` + sitemapNS + `">` + "\n")
	n := 0
	err := m.walk(ctx, after, func(d *store.LiveDataset) (bool, error) {
		bw.WriteString("<url><loc>")
		xmlText(bw, base+"/dataset/"+url.PathEscape(d.Slug))
		bw.WriteString("</loc>")
		if !d.LastHarvestedDate.IsZero() {
			bw.WriteString("<lastmod>" + d.LastHarvestedDate.UTC().Format(time.RFC3339) + "</lastmod>")
		}
		_, err := bw.WriteString("</url>\n")
		n++
		return n < m.max(), err
	})
	if err != nil {
		return err
	}
	_, err = bw.WriteString("</urlset>\n")
	return err
}

// index writes a sitemapindex: one SitemapDatasetsPath sitemap per m.max() datasets, lastmod
// the latest change among them.
func (m *Sitemap) index(ctx context.Context, bw *bufio.Writer, base string) error {
	bw.WriteString(`<sitemapindex xmlns="` + sitemapNS + `">` + "\n")
	n, start := 0, ""
	var last string
	var lastmod time.Time
	entry := func() error {
		bw.WriteString("<sitemap><loc>")
		loc := base + SitemapDatasetsPath
		if start != "" {
			loc += "?after=" + url.QueryEscape(start)
		}
		xmlText(bw, loc)
		bw.WriteString("</loc><lastmod>" + lastmod.UTC().Format(time.RFC3339) + "</lastmod></sitemap>\n")
		return nil
	}
	err := m.walk(ctx, "", func(d *store.LiveDataset) (bool, error) {
		n++
		last = d.ID
		if d.LastHarvestedDate.After(lastmod) {
			lastmod = d.LastHarvestedDate
		}
		if n == m.max() {
			if err := entry(); err != nil {
				return false, err
			}
			n, start, lastmod = 0, last, time.Time{}
		}
		return true, nil
	})
	if err != nil {
		return err
	}
	if n > 0 {
		entry()
	}
	_, err = bw.WriteString("</sitemapindex>\n")
	return err
}

// walk calls fn with each live dataset after dataset id after, by keyset, until fn says stop.
func (m *Sitemap) walk(ctx context.Context, after string, fn func(d *store.LiveDataset) (bool, error)) error {
	return keyset(ctx, m.Store, store.DatasetPageParams{After: after, Limit: m.pageSize}, func(page []*store.LiveDataset) (bool, error) {
		for _, d := range page {
			if more, err := fn(d); err != nil || !more {
				return false, err
			}
		}
		return true, nil
	})
}

// xmlText writes s escaped as XML character data.
func xmlText(w io.Writer, s string) {
	if !strings.ContainsAny(s, `&<>"'`) {
		io.WriteString(w, s)
		return
	}
	_ = xml.EscapeText(w, []byte(s))
}
