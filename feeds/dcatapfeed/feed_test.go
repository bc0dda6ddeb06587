package dcatapfeed_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/feeds/dcatapfeed"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/store"
)

const (
	dcat = "http://www.w3.org/ns/dcat#"
	dct  = "http://purl.org/dc/terms/"
)

// datasetsOf returns the dct:identifier of each dcat:dataset of the catalog in ts.
func datasetsOf(t *testing.T, ts []rdf.Triple) []string {
	t.Helper()
	var out []string
	for _, d := range objects(ts, rdf.Term{}, dcat+"dataset") {
		ids := objects(ts, d, dct+"identifier")
		require.Len(t, ids, 1, "dataset %s has one dct:identifier", d)
		out = append(out, ids[0].Value)
	}
	return out
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestCatalogPaging: a walk of the catalog by hydra:next gets every live dataset exactly once,
// with the counts and links ckanext-dcat's pages carry; the page links, a page beyond the end,
// the page_size cap, modified_since (also in the year 9999), the organization and source
// filters, conditional GET and content negotiation behave as docs/catalog.md says. Both stores.
func TestCatalogPaging(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		a := seedCorpus(t, st, "datagov-cftc.data.json")
		b := seedCorpus(t, st, "agency-cfpb-2025-07.data.json")
		srv := feedServer(t, st, feeds.Catalog{Title: "Test catalog"})
		all := append(keys(a.bodies), keys(b.bodies)...)
		sort.Strings(all)

		const size = 7
		pages := walk(t, srv.URL+"/catalog.ttl?page_size="+strconv.Itoa(size), 1000)
		require.Len(t, pages, int(math.Ceil(float64(len(all))/size)))
		var got []string
		for i, p := range pages {
			ids := datasetsOf(t, p.triples)
			if i < len(pages)-1 {
				require.Len(t, ids, size, "page %d", i+1)
			}
			got = append(got, ids...)
			totals := objects(p.triples, rdf.Term{}, hydra+"totalItems")
			require.NotEmpty(t, totals)
			for _, n := range totals {
				require.Equal(t, strconv.Itoa(len(all)), n.Value)
			}
			require.Len(t, objects(p.triples, rdf.Term{}, hydra+"member"), len(ids))
			last := objects(p.triples, rdf.Term{}, hydra+"last")
			require.Len(t, last, 1)
			require.Contains(t, last[0].Value, "page="+strconv.Itoa(len(pages)))
			if i > 0 {
				require.Len(t, objects(p.triples, rdf.Term{}, hydra+"previous"), 1)
			}
		}
		sort.Strings(got)
		require.Equal(t, all, got, "every live dataset exactly once")

		checkPageEdges(t, srv.URL, pages, len(all), size)
		checkPageFilters(t, srv.URL, a, b, len(all))
		checkConditionalAndNegotiation(t, srv.URL)
	})
}

// checkPageEdges: a page named by number, beyond the end, a bad cursor, lying parameters.
func checkPageEdges(t *testing.T, base string, pages []page, total, size int) {
	t.Helper()
	// A page named by number alone is the page the walk reached.
	resp, body := get(t, base+"/catalog.ttl?page=2&page_size="+strconv.Itoa(size), "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, datasetsOf(t, pages[1].triples), datasetsOf(t, parse(t, body, rdf.Turtle, base)))

	// Beyond the end: an empty page with its links, no next.
	resp, body = get(t, base+"/catalog.ttl?page=99999999&page_size=1000", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	ts := parse(t, body, rdf.Turtle, base)
	require.Empty(t, datasetsOf(t, ts))
	require.Empty(t, objects(ts, rdf.Term{}, hydra+"next"))
	require.Equal(t, strconv.Itoa(total), objects(ts, rdf.Term{}, hydra+"totalItems")[0].Value)

	// A cursor that names no dataset id (of the wrong shape) selects nothing; one past
	// every id too.
	for _, after := range []string{"not-an-id", "ffffffff-ffff-ffff-ffff-ffffffffffff"} {
		resp, body = get(t, base+"/catalog.ttl?page=2&after="+after+"&total=3", "")
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", after, body)
		require.Empty(t, datasetsOf(t, parse(t, body, rdf.Turtle, base)), after)
	}

	// A lying page size is refused, saying why; so are other bad parameters.
	for q, want := range map[string]string{
		"page_size=1000000000":     "over the maximum of 1000",
		"page_size=-3":             "not a positive number",
		"page=0":                   "not a page number",
		"page=abc":                 "not a page number",
		"modified_since=yesterday": "is not a date",
		"after=x&total=-1":         "is not a count",
	} {
		resp, body := get(t, base+"/catalog.ttl?"+q, "")
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, q)
		require.Contains(t, string(body), want, q)
	}
	resp, body = get(t, base+"/catalog.ttl?page_size=1000", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Len(t, datasetsOf(t, parse(t, body, rdf.Turtle, base)), total, "page_size 1000 is allowed")

}

// checkPageFilters: modified_since, per organization and per source, kept by the next links.
func checkPageFilters(t *testing.T, base string, a, b *seeded, total int) {
	t.Helper()
	var got []string
	// modified_since in the year 9999: nothing; in the past: everything.
	resp, body := get(t, base+"/catalog.ttl?modified_since=9999-12-31T00:00:00Z", "")
	require.Equal(t, http.StatusOK, resp.StatusCode)
	ts := parse(t, body, rdf.Turtle, base)
	require.Empty(t, datasetsOf(t, ts))
	require.Equal(t, "0", objects(ts, rdf.Term{}, hydra+"totalItems")[0].Value)
	_, body = get(t, base+"/catalog.ttl?page_size=1000&modified_since=2000-01-01", "")
	require.Len(t, datasetsOf(t, parse(t, body, rdf.Turtle, base)), total)

	// Per organization (by slug) and per source.
	_, body = get(t, base+"/catalog.ttl?page_size=1000&organization="+a.org.Slug, "")
	got = datasetsOf(t, parse(t, body, rdf.Turtle, base))
	sort.Strings(got)
	require.Equal(t, keys(a.bodies), got)
	_, body = get(t, base+"/catalog.ttl?page_size=1000&source_id="+b.src.ID, "")
	got = datasetsOf(t, parse(t, body, rdf.Turtle, base))
	sort.Strings(got)
	require.Equal(t, keys(b.bodies), got)
	resp, _ = get(t, base+"/catalog.ttl?organization=no-such-org", "")
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	walked := walk(t, base+"/catalog.ttl?page_size=2&organization="+a.org.Slug, 1000)
	got = nil
	for _, p := range walked {
		got = append(got, datasetsOf(t, p.triples)...)
	}
	sort.Strings(got)
	require.Equal(t, keys(a.bodies), got, "the next links keep the filter")

}

// checkConditionalAndNegotiation: ETag and 304; /catalog's content negotiation.
func checkConditionalAndNegotiation(t *testing.T, base string) {
	t.Helper()
	// Conditional GET.
	resp, _ := get(t, base+"/catalog.ttl", "")
	etag := resp.Header.Get("ETag")
	require.NotEmpty(t, etag)
	require.NotEmpty(t, resp.Header.Get("Last-Modified"))
	req, err := http.NewRequest(http.MethodGet, base+"/catalog.ttl", nil)
	require.NoError(t, err)
	req.Header.Set("If-None-Match", etag)
	r304, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	r304.Body.Close()
	require.Equal(t, http.StatusNotModified, r304.StatusCode)

	// Content negotiation on /catalog.
	for accept, want := range map[string]string{
		"":                      "text/turtle",
		"text/turtle":           "text/turtle",
		"application/rdf+xml":   "application/rdf+xml",
		"application/ld+json":   "application/ld+json",
		"application/n-triples": "application/n-triples",
		"text/html, application/rdf+xml;q=0.9, text/turtle;q=0.5": "application/rdf+xml",
		"text/html": "text/turtle",
	} {
		resp, body := get(t, base+"/catalog?page_size=3", accept)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), want), "Accept %q: %s", accept, resp.Header.Get("Content-Type"))
		require.Contains(t, resp.Header.Values("Vary"), "Accept")
		f, err := rdf.FormatFor(resp.Header.Get("Content-Type"), "", "")
		require.NoError(t, err)
		require.Len(t, datasetsOf(t, parse(t, body, f, base)), 3, accept)
	}
}

// withoutPaging drops the Hydra triples (which name each syntax's own page URLs) and the
// catalog's hydra:view link.
func withoutPaging(ts []rdf.Triple) []rdf.Triple {
	var out []rdf.Triple
	for _, t := range ts {
		if strings.HasPrefix(t.P.Value, hydra) && t.P.Value != hydra+"member" || strings.HasPrefix(t.O.Value, hydra) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// TestSerializationsAgree: the four syntaxes of every page carry the same graph (canonical
// N-Quads equal, but for the page links), each parses in rdflib to as many triples as in our
// parser, and a dataset with a 1 MB description and every character class a literal can hold
// goes through all of them. Both stores.
func TestSerializationsAgree(t *testing.T) {
	py := python(t)
	backends(t, func(t *testing.T, st store.Store) {
		s := seedCorpus(t, st, "agency-cfpb-2025-07.data.json")
		huge := strings.Repeat("A long description. ", 1<<20/20) + " tab\t quote\" backslash\\ <tag> & ünïcödé 🚀 \r\n end"
		body, err := json.Marshal(map[string]any{"@type": "dcat:Dataset", "identifier": "huge/1 with space", "title": "Huge <title> & \"quotes\"",
			"description": huge, "keyword": []string{"k1", "k\"2"}, "modified": "2026-12-01T10:00:00Z", "accessLevel": "public",
			"publisher":    map[string]any{"name": "P & Q"},
			"contactPoint": map[string]any{"fn": "C", "hasEmail": "mailto:c@example.gov"},
			"distribution": []any{map[string]any{"downloadURL": "https://example.gov/a file.csv", "mediaType": "text/csv"}}})
		require.NoError(t, err)
		s.add(t, st, "huge/1 with space", body)
		srv := feedServer(t, st, feeds.Catalog{Title: "Test catalog", Description: "Serializations", Publisher: "Test publisher",
			License: "https://creativecommons.org/publicdomain/zero/1.0/"})
		dir := t.TempDir()
		var graphs []rdflibGraph
		ours := map[string]int{}
		var turtle []page
		for ext, format := range dcatapfeed.Extensions {
			pages := walk(t, srv.URL+"/catalog"+ext+"?page_size=10", 1000)
			require.Greater(t, len(pages), 1)
			if format == rdf.Turtle {
				turtle = pages
			}
			for i, p := range pages {
				id := fmt.Sprintf("%s page %d", ext, i+1)
				rf := rdflibFormat[format]
				if format == rdf.NTriples && len(p.body) > 512<<10 {
					// rdflib's N-Triples parser takes time quadratic in a literal's length (36 s
					// for this 1 MB one); N-Triples is Turtle, which rdflib reads in 20 ms.
					rf = "turtle"
				}
				graphs = append(graphs, rdflibGraph{ID: id, Docs: []rdflibDoc{{Path: writeTemp(t, dir, fmt.Sprintf("p%d%s", i, ext), p.body),
					Format: rf}}})
				ours[id] = len(distinct(p.triples))
			}
		}
		for ext := range dcatapfeed.Extensions {
			pages := walk(t, srv.URL+"/catalog"+ext+"?page_size=10", 1000)
			require.Len(t, pages, len(turtle))
			for i, p := range pages {
				want, err := rdf.CanonicalNQuads(withoutPaging(turtle[i].triples))
				require.NoError(t, err)
				got, err := rdf.CanonicalNQuads(withoutPaging(p.triples))
				require.NoError(t, err)
				requireSameLines(t, string(want), string(got), "%s page %d carries the Turtle page's graph", ext, i+1)
			}
		}
		var hugeFound bool
		for _, p := range turtle {
			for _, d := range objects(p.triples, rdf.Term{}, dct+"description") {
				hugeFound = hugeFound || d.Value == huge
			}
		}
		require.True(t, hugeFound, "the 1 MB description comes back whole")
		for id, res := range rdflibRead(t, py, graphs) {
			require.Empty(t, res.Error, id)
			require.Equal(t, ours[id], res.Triples, "%s: rdflib reads as many triples as we do", id)
		}
	})
}

func distinct(ts []rdf.Triple) []rdf.Triple {
	seen := map[rdf.Triple]bool{}
	var out []rdf.Triple
	for _, t := range ts {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return slices.Clip(out)
}

// requireSameLines fails with the lines only one side has (each clipped), when a != b.
func requireSameLines(t *testing.T, a, b string, msg string, args ...any) {
	t.Helper()
	if a == b {
		return
	}
	as, bs := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		as[l] = true
	}
	for _, l := range strings.Split(b, "\n") {
		bs[l] = true
	}
	var diff []string
	for l := range as {
		if !bs[l] {
			diff = append(diff, "- "+clipLine(l))
		}
	}
	for l := range bs {
		if !as[l] {
			diff = append(diff, "+ "+clipLine(l))
		}
	}
	sort.Strings(diff)
	if len(diff) > 20 {
		diff = diff[:20]
	}
	t.Fatalf("%s:\n%s", fmt.Sprintf(msg, args...), strings.Join(diff, "\n"))
}

func clipLine(l string) string {
	if len(l) > 300 {
		return l[:150] + " … " + l[len(l)-150:]
	}
	return l
}
