// Package searchtest is the conformance suite every search.Index implementation passes: run it
// from the implementation's tests with a function that opens a fresh, empty index.
package searchtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/store"
)

// OpenSearchURL returns the test OpenSearch node: HARVESTER_TEST_OPENSEARCH_URL, else
// OPENSEARCH_URL. With neither set the test is skipped, unless HARVESTER_TEST_REQUIRE_OPENSEARCH=1
// (scripts/test.sh sets it after starting a node with scripts/opensearch.sh): then it fails.
func OpenSearchURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("HARVESTER_TEST_OPENSEARCH_URL")
	if u == "" {
		u = os.Getenv("OPENSEARCH_URL")
	}
	if u == "" {
		if os.Getenv("HARVESTER_TEST_REQUIRE_OPENSEARCH") == "1" {
			t.Fatal("HARVESTER_TEST_REQUIRE_OPENSEARCH=1 but no HARVESTER_TEST_OPENSEARCH_URL / OPENSEARCH_URL")
		}
		t.Skip("no OpenSearch node: run scripts/opensearch.sh and set OPENSEARCH_URL")
	}
	return u
}

// DocumentFields returns the JSON names of search.Document's fields (from their json tags),
// sorted: the properties an index mapping must have, no more and no less.
func DocumentFields() []string {
	var out []string
	typ := reflect.TypeFor[search.Document]()
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "-" && f.IsExported() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// RequireMapsDocument fails t unless properties (the top-level property names of an index's
// mapping) are exactly search.Document's JSON fields: a Document field without a mapping
// makes OpenSearch's strict mapping refuse every document that has it (and bleve drop it), and
// a mapped property without a Document field is dead weight or a renamed field.
func RequireMapsDocument(t *testing.T, properties []string) {
	t.Helper()
	fields := DocumentFields()
	var unmapped, extra []string
	for _, f := range fields {
		if !slices.Contains(properties, f) {
			unmapped = append(unmapped, f)
		}
	}
	for _, p := range properties {
		if !slices.Contains(fields, p) {
			extra = append(extra, p)
		}
	}
	require.Empty(t, unmapped, "search.Document fields the mapping does not map")
	require.Empty(t, extra, "mapped properties search.Document does not have")
}

// Run runs the suite; open returns a new empty index that the test may Close.
func Run(t *testing.T, open func(t *testing.T) search.Index) {
	for _, tc := range append([]struct {
		name string
		fn   func(*testing.T, search.Index)
	}{
		{"SearchFindsTitleWord", testSearchFindsTitleWord},
		{"FiltersAndFacets", testFiltersAndFacets},
		{"FiltersFoldCaseAndAccents", testFiltersFoldCaseAndAccents},
		{"OrderWithoutText", testOrderWithoutText},
		{"OrderWithoutTextAtSortKeyMax", testOrderWithoutTextAtSortKeyMax},
		{"TextFoldsAccents", testTextFoldsAccents},
		{"Paging", testPaging},
		{"UpdateAndDelete", testUpdateAndDelete},
		{"Scan", testScan},
		{"DeleteSource", testDeleteSource},
		{"Rebuild", testRebuild},
		{"RebuildFailureKeepsLive", testRebuildFailureKeepsLive},
		{"RebuildDuringRebuild", testRebuildDuringRebuild},
		{"RebuildsAtOnce", testRebuildsAtOnce},
		{"Shapes", testShapes},
		{"EveryFieldIndexes", testEveryFieldIndexes},
	}, queryCases...) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, open(t))
		})
	}
}

// doc builds a document the way SYNC does, from a DCAT record.
func doc(id, source, org, dcat string) search.Document {
	return search.FromDataset(&store.Dataset{ID: id, SourceID: source, Identifier: "ident-" + id,
		Slug: "slug-" + id, RecordID: "rec-" + id, DCAT: json.RawMessage(dcat)}, org)
}

func put(t *testing.T, idx search.Index, docs ...search.Document) {
	t.Helper()
	ops := make([]search.Op, len(docs))
	for i := range docs {
		ops[i] = search.Op{ID: docs[i].ID, Doc: &docs[i]}
	}
	errs, err := idx.Apply(t.Context(), ops)
	require.NoError(t, err)
	require.NoError(t, errors.Join(errs...))
	require.NoError(t, idx.Refresh(t.Context()))
}

func find(t *testing.T, idx search.Index, q search.Query) *search.Result {
	t.Helper()
	res, err := idx.Search(t.Context(), q)
	require.NoError(t, err)
	return res
}

func ids(res *search.Result) []string {
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	return out
}

func testSearchFindsTitleWord(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("d1", "s1", "Org A", `{"title": "Groundwater wells of Ohio", "description": "Wells.", "keyword": ["water"]}`),
		doc("d2", "s1", "Org A", `{"title": "Bridge inspections", "description": "Annual bridge condition.", "keyword": ["transport"]}`),
	)
	res := find(t, idx, search.Query{Text: "groundwater"})
	require.Equal(t, 1, res.Total)
	require.Equal(t, []string{"d1"}, ids(res))
	h := res.Hits[0]
	require.Equal(t, "Groundwater wells of Ohio", h.Title)
	require.Equal(t, "slug-d1", h.Slug)
	require.Equal(t, "ident-d1", h.Identifier)
	require.Equal(t, "Org A", h.Organization)
	require.Equal(t, "s1", h.SourceID)

	// English stemming: "inspection" finds "inspections"; the description is searched too.
	require.Equal(t, []string{"d2"}, ids(find(t, idx, search.Query{Text: "inspection"})))
	require.Equal(t, []string{"d2"}, ids(find(t, idx, search.Query{Text: "condition"})))
	require.Equal(t, 2, find(t, idx, search.Query{}).Total, "no text matches everything")
	require.Equal(t, 0, find(t, idx, search.Query{Text: "volcano"}).Total)
}

func testFiltersAndFacets(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("d1", "s1", "Org A", `{"title": "Rivers one", "keyword": ["water", "rivers"]}`),
		doc("d2", "s1", "Org A", `{"title": "Rivers two", "keyword": ["water"]}`),
		doc("d3", "s2", "Org B", `{"title": "Rivers three", "keyword": "water"}`),
		doc("d4", "s2", "Org B", `{"title": "Roads", "keyword": ["roads"]}`),
	)
	res := find(t, idx, search.Query{Text: "rivers"})
	require.Equal(t, 3, res.Total)
	require.Equal(t, []search.Facet{{Value: "Org A", Count: 2}, {Value: "Org B", Count: 1}}, res.Facets["organization"])
	require.Equal(t, []search.Facet{{Value: "water", Count: 3}, {Value: "rivers", Count: 1}}, res.Facets["keyword"])

	require.ElementsMatch(t, []string{"d3"}, ids(find(t, idx, search.Query{Text: "rivers", Organization: "Org B"})))
	require.ElementsMatch(t, []string{"d1"}, ids(find(t, idx, search.Query{Keyword: "rivers"})))
	require.ElementsMatch(t, []string{"d3", "d4"}, ids(find(t, idx, search.Query{SourceID: "s2"})))
	require.Equal(t, 0, find(t, idx, search.Query{Organization: "Org"}).Total, "organization is an exact filter")
	// The keyword filter ignores keywords of other datasets; facets follow the filters.
	res = find(t, idx, search.Query{Organization: "Org A"})
	require.Equal(t, []search.Facet{{Value: "Org A", Count: 2}}, res.Facets["organization"])
}

// testFiltersFoldCaseAndAccents: the organization and keyword filters ignore case and accents
// (Unicode letters folded to ASCII), but stay whole-value filters; facets show the values as
// the publishers wrote them, one per spelling.
func testFiltersFoldCaseAndAccents(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("d1", "s1", "Department of Homeland Security", `{"title": "Threat feeds", "keyword": ["Cybersecurity", "Water"]}`),
		doc("d2", "s1", "Department of Homeland Security", `{"title": "Advisories", "keyword": ["cybersecurity"]}`),
		doc("d3", "s2", "Servicio Forestal Agrícola", `{"title": "Sky islands", "keyword": ["Pinaleño Mountains"]}`),
		doc("d4", "s2", "Other", `{"title": "Roads", "keyword": ["roads"]}`),
	)
	for _, k := range []string{"cybersecurity", "Cybersecurity", "CYBERSECURITY", "cYbErSeCuRiTy"} {
		require.ElementsMatch(t, []string{"d1", "d2"}, ids(find(t, idx, search.Query{Keyword: k})), k)
	}
	for _, k := range []string{"Pinaleño Mountains", "pinaleno mountains", "PINALEÑO MOUNTAINS"} {
		require.Equal(t, []string{"d3"}, ids(find(t, idx, search.Query{Keyword: k})), k)
	}
	require.Equal(t, 0, find(t, idx, search.Query{Keyword: "pinaleno"}).Total, "a keyword filter matches the whole keyword")
	for _, o := range []string{"Department of Homeland Security", "department of homeland security"} {
		require.ElementsMatch(t, []string{"d1", "d2"}, ids(find(t, idx, search.Query{Organization: o})), o)
	}
	require.Equal(t, []string{"d3"}, ids(find(t, idx, search.Query{Organization: "servicio forestal agricola"})))
	require.Equal(t, 0, find(t, idx, search.Query{Organization: "department"}).Total, "organization is a whole-value filter")
	require.Equal(t, []string{"d1"}, ids(find(t, idx, search.Query{Organization: "DEPARTMENT OF HOMELAND SECURITY",
		Keyword: "water"})))

	res := find(t, idx, search.Query{Keyword: "CYBERSECURITY"})
	require.ElementsMatch(t, []search.Facet{{Value: "Cybersecurity", Count: 1}, {Value: "cybersecurity", Count: 1},
		{Value: "Water", Count: 1}}, res.Facets["keyword"], "facets keep each keyword as published")
	require.Equal(t, []search.Facet{{Value: "Department of Homeland Security", Count: 2}}, res.Facets["organization"])
	res = find(t, idx, search.Query{Organization: "servicio forestal agricola"})
	require.Equal(t, []search.Facet{{Value: "Servicio Forestal Agrícola", Count: 1}}, res.Facets["organization"])
	require.Equal(t, []search.Facet{{Value: "Pinaleño Mountains", Count: 1}}, res.Facets["keyword"])
}

// testOrderWithoutText: a query without text (filters only, or none) has no relevance to
// rank by, so hits come by the title's sort key (search.SortKey: case and accents ignored),
// then by id; datasets without a title come last, and scores are 0. Both backends give the
// same pages.
func testOrderWithoutText(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("d1", "s1", "Org", `{"title": "zebra counts", "keyword": ["k"]}`),
		doc("d2", "s1", "Org", `{"title": "Apple orchards", "keyword": ["k"]}`),
		doc("d3", "s1", "Org", `{"title": "Ábaco survey", "keyword": ["k"]}`),
		doc("d4", "s1", "Org", `{"title": "Beaver dams", "keyword": ["k"]}`),
		doc("d5", "s1", "Org", `{"title": "apple orchards", "keyword": ["k"]}`),
		doc("d6", "s1", "Org", `{"description": "No title", "keyword": ["k"]}`),
		doc("d7", "s1", "Org", `{"title": "Éclair bakeries", "keyword": ["k"]}`),
		doc("d0", "s1", "Org", `{"title": "Apple Orchards", "keyword": ["k"]}`),
		doc("d8", "s1", "Org", `{"title": "`+strings.Repeat("a", search.SortKeyMax+1)+`", "keyword": ["k"]}`),
	)
	want := []string{"d8", "d3", "d0", "d2", "d5", "d4", "d7", "d1", "d6"} // d8's key is its first SortKeyMax "a"; d6 has no title
	for _, q := range []search.Query{{}, {Keyword: "k"}, {Organization: "org"}, {SourceID: "s1"}, {Keyword: "K", Organization: "Org"}} {
		res := find(t, idx, q)
		require.Equal(t, want, ids(res), "%+v", q)
		for _, h := range res.Hits {
			require.Zero(t, h.Score, "no text, no score: %+v", q)
		}
		var paged []string
		for page := 1; page <= 3; page++ {
			q.Page, q.PerPage = page, 4
			paged = append(paged, ids(find(t, idx, q))...)
		}
		require.Equal(t, want, paged, "pages of %+v", q)
	}
}

// testOrderWithoutTextAtSortKeyMax: long titles keep a key on both backends, whatever their
// characters: search.SortKey cuts the folded title at search.SortKeyMax bytes, at a character
// boundary, so a letter that folds to two ("ß" is "ss") or a character outside the Basic
// Multilingual Plane (four bytes, two UTF-16 units, which OpenSearch's ignore_above counts) at
// the cut neither drops the key nor orders the title apart on one backend. Titles equal on
// their first SortKeyMax bytes once folded order by id.
func testOrderWithoutTextAtSortKeyMax(t *testing.T, idx search.Index) {
	long := strings.Repeat("a", search.SortKeyMax-1)
	put(t, idx,
		doc("e1", "s1", "Org", `{"title": "`+long+`ß"}`), // key: long + "s"
		doc("e2", "s1", "Org", `{"title": "`+long+`😀"}`), // key: long (the emoji does not fit)
		doc("e3", "s1", "Org", `{"title": "Beaver dams"}`),
		doc("e4", "s1", "Org", `{"description": "No title"}`),
		doc("e5", "s1", "Org", `{"title": "`+long+`Sz, the end"}`),                   // key: long + "s", as e1's
		doc("e0", "s1", "Org", `{"title": "`+long+`ß`+strings.Repeat("😀", 300)+`"}`), // key: long + "s"
	)
	require.Equal(t, []string{"e2", "e0", "e1", "e5", "e3", "e4"}, ids(find(t, idx, search.Query{})))
}

// testTextFoldsAccents: full text ignores accents both ways, in every text field.
func testTextFoldsAccents(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("title", "s1", "Org", `{"title": "Pinaleño Mountains stream survey"}`),
		doc("desc", "s1", "Org", `{"title": "Canyon", "description": "Flow in the Cañón del Oro."}`),
		doc("kw", "s1", "Org", `{"title": "Lakes", "keyword": ["Réservoirs"]}`),
		doc("org", "s1", "Servicio Forestal Agrícola", `{"title": "Forests"}`),
		doc("plain", "s1", "Org", `{"title": "Pinaleno ranger district"}`),
	)
	require.ElementsMatch(t, []string{"title", "plain"}, ids(find(t, idx, search.Query{Text: "pinaleno"})))
	require.ElementsMatch(t, []string{"title", "plain"}, ids(find(t, idx, search.Query{Text: "Pinaleño"})))
	require.Equal(t, []string{"desc"}, ids(find(t, idx, search.Query{Text: "canon"})))
	require.Equal(t, []string{"kw"}, ids(find(t, idx, search.Query{Text: "reservoir"})), "folded, then stemmed")
	require.Equal(t, []string{"org"}, ids(find(t, idx, search.Query{Text: "agricola"})))
}

func testPaging(t *testing.T, idx search.Index) {
	var docs []search.Document
	for i := range 25 {
		docs = append(docs, doc(fmt.Sprintf("d%02d", i), "s1", "Org", `{"title": "Sample survey"}`))
	}
	put(t, idx, docs...)
	var all []string
	for page := 1; page <= 3; page++ {
		res := find(t, idx, search.Query{Text: "survey", Page: page, PerPage: 10})
		require.Equal(t, 25, res.Total)
		all = append(all, ids(res)...)
	}
	require.Len(t, all, 25)
	seen := map[string]bool{}
	for _, id := range all {
		require.False(t, seen[id], "hit %s on two pages", id)
		seen[id] = true
	}
	_, err := idx.Search(t.Context(), search.Query{Page: 1001, PerPage: 10})
	require.ErrorIs(t, err, search.ErrTooDeep)
	_, err = idx.Search(t.Context(), search.Query{PerPage: search.MaxPerPage + 1})
	require.Error(t, err)
}

func testUpdateAndDelete(t *testing.T, idx search.Index) {
	put(t, idx, doc("d1", "s1", "Org", `{"title": "Old title"}`))
	put(t, idx, doc("d1", "s1", "Org", `{"title": "New title"}`))
	require.Equal(t, 0, find(t, idx, search.Query{Text: "old"}).Total)
	require.Equal(t, []string{"d1"}, ids(find(t, idx, search.Query{Text: "new"})))

	errs, err := idx.Apply(t.Context(), []search.Op{{ID: "d1"}, {ID: "never-there"}})
	require.NoError(t, err)
	require.NoError(t, errors.Join(errs...), "deleting a missing document is no error")
	require.NoError(t, idx.Refresh(t.Context()))
	require.Equal(t, 0, find(t, idx, search.Query{}).Total)
}

func scan(t *testing.T, idx search.Index, source string) []search.Entry {
	t.Helper()
	var out []search.Entry
	require.NoError(t, idx.Scan(t.Context(), source, func(e search.Entry) error {
		out = append(out, e)
		return nil
	}))
	return out
}

func testScan(t *testing.T, idx search.Index) {
	var docs []search.Document
	for i := range 2100 { // more than two pages
		src := "s1"
		if i%3 == 0 {
			src = "s2"
		}
		docs = append(docs, doc(fmt.Sprintf("d%04d", i), src, "Org", `{"title": "T"}`))
	}
	for i := 0; i < len(docs); i += 500 {
		put(t, idx, docs[i:min(i+500, len(docs))]...)
	}
	all := scan(t, idx, "")
	require.Len(t, all, 2100)
	for i, e := range all {
		require.Equal(t, fmt.Sprintf("d%04d", i), e.ID, "ordered by id")
		require.Equal(t, "rec-"+e.ID, e.RecordID)
	}
	require.Len(t, scan(t, idx, "s2"), 700)

	stop := errors.New("stop")
	require.ErrorIs(t, idx.Scan(t.Context(), "", func(search.Entry) error { return stop }), stop)
}

func testDeleteSource(t *testing.T, idx search.Index) {
	put(t, idx, doc("d1", "s1", "Org", `{"title": "A"}`), doc("d2", "s2", "Org", `{"title": "B"}`),
		doc("d3", "s1", "Org", `{"title": "C"}`))
	require.NoError(t, idx.DeleteSource(t.Context(), "s1"))
	require.NoError(t, idx.Refresh(t.Context()))
	require.Equal(t, []string{"d2"}, ids(find(t, idx, search.Query{})))
}

func testRebuild(t *testing.T, idx search.Index) {
	put(t, idx, doc("old", "s1", "Org", `{"title": "Old"}`))
	require.NoError(t, idx.Rebuild(t.Context(), func(p func(search.Document) error) error {
		for i := range 1200 {
			if err := p(doc(fmt.Sprintf("n%04d", i), "s1", "Org", `{"title": "Rebuilt"}`)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, idx.Refresh(t.Context()))
	require.Equal(t, 1200, find(t, idx, search.Query{}).Total)
	require.Equal(t, 0, find(t, idx, search.Query{Text: "old"}).Total)
	// Writes after the swap reach the new index.
	put(t, idx, doc("later", "s1", "Org", `{"title": "Later"}`))
	require.Equal(t, []string{"later"}, ids(find(t, idx, search.Query{Text: "later"})))
}

func testRebuildFailureKeepsLive(t *testing.T, idx search.Index) {
	put(t, idx, doc("live", "s1", "Org", `{"title": "Live"}`))
	boom := errors.New("store went away")
	err := idx.Rebuild(t.Context(), func(p func(search.Document) error) error {
		if err := p(doc("half", "s1", "Org", `{"title": "Half"}`)); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	require.NoError(t, idx.Refresh(t.Context()))
	require.Equal(t, []string{"live"}, ids(find(t, idx, search.Query{})))
}

// fillN is a Rebuild fill of n documents "<prefix>NNNN", calling before first and after after
// the last (nil: nothing).
func fillN(prefix string, n int, before, after func()) func(put func(search.Document) error) error {
	return func(put func(search.Document) error) error {
		if before != nil {
			before()
		}
		for i := range n {
			if err := put(doc(fmt.Sprintf("%s%04d", prefix, i), "s1", "Org", `{"title": "Rebuilt"}`)); err != nil {
				return err
			}
		}
		if after != nil {
			after()
		}
		return nil
	}
}

// RebuildSets asserts that the index holds exactly one of the documents sets that fillN gave
// the rebuilds named by prefixes (n each), and that a write after the rebuilds lands; it
// returns the winning prefix. Backends' own tests use it for rebuilds from several handles.
func RebuildSets(t *testing.T, idx search.Index, n int, prefixes ...string) string {
	t.Helper()
	require.NoError(t, idx.Refresh(t.Context()))
	all := scan(t, idx, "")
	require.Len(t, all, n, "the documents of one rebuild")
	winner := strings.TrimRight(all[0].ID, "0123456789")
	require.Contains(t, prefixes, winner)
	for i, e := range all {
		require.Equal(t, fmt.Sprintf("%s%04d", winner, i), e.ID)
	}
	put(t, idx, doc("later", "s1", "Org", `{"title": "Later"}`))
	require.Equal(t, []string{"later"}, ids(find(t, idx, search.Query{Text: "later"})))
	return winner
}

// testRebuildDuringRebuild: a rebuild that starts before another one swaps and swaps after it
// (two processes migrating at once) succeeds; the index is the second one's alone.
func testRebuildDuringRebuild(t *testing.T, idx search.Index) {
	put(t, idx, doc("old", "s1", "Org", `{"title": "Old"}`))
	secondStarted, firstDone := make(chan struct{}), make(chan struct{})
	var first, second error
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(firstDone)
		first = idx.Rebuild(t.Context(), fillN("a", 300, func() { <-secondStarted }, nil))
	})
	wg.Go(func() {
		second = idx.Rebuild(t.Context(), fillN("b", 300, func() { close(secondStarted) }, func() { <-firstDone }))
	})
	wg.Wait()
	require.NoError(t, first)
	require.NoError(t, second, "the second rebuild swaps after the first")
	require.Equal(t, "b", RebuildSets(t, idx, 300, "a", "b"))
}

// testRebuildsAtOnce: rebuilds that swap at the same moment both succeed, and the index is
// one of them, whole.
func testRebuildsAtOnce(t *testing.T, idx search.Index) {
	put(t, idx, doc("old", "s1", "Org", `{"title": "Old"}`))
	var filled sync.WaitGroup
	filled.Add(2)
	barrier := func() { filled.Done(); filled.Wait() }
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, prefix := range []string{"a", "b"} {
		wg.Go(func() { errs[i] = idx.Rebuild(t.Context(), fillN(prefix, 300, nil, barrier)) })
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	RebuildSets(t, idx, 300, "a", "b")
}

func testShapes(t *testing.T, idx search.Index) {
	put(t, idx,
		doc("box", "s1", "Org", `{"title": "Box", "spatial": "-124.5,32.5,-114.1,42.0"}`),
		doc("pt", "s1", "Org", `{"title": "Point", "spatial": "-77.0,38.9,-77.0,38.9"}`),
		doc("geojson", "s1", "Org", `{"title": "GeoJSON", "spatial": {"type": "Polygon", "coordinates": [[[0,0],[10,0],[10,5],[0,0]]]}}`),
		doc("place", "s1", "Org", `{"title": "Place", "spatial": "Ohio", "modified": "R/P1D", "issued": "2020-01-02"}`),
		doc("odd", "s1", "Org", `{"title": 7, "keyword": [1, "ok"], "publisher": "not an object", "distribution": "x"}`),
	)
	require.Equal(t, 5, find(t, idx, search.Query{}).Total)
	require.Equal(t, []string{"odd"}, ids(find(t, idx, search.Query{Keyword: "ok"})))
}

// testEveryFieldIndexes: a document with every Document field set, as SYNC makes it from a
// DCAT-US record, indexes; display fields of any length do too (a keyword's index and doc
// values hold at most 32,766 bytes). A new Document field must be set here.
func testEveryFieldIndexes(t *testing.T, idx search.Index) {
	long := "https://example.gov/" + strings.Repeat("a", 40000)
	d := doc("full", "s1", "Org", `{"title": "Full", "description": "Every field", "keyword": ["k"], "theme": ["t"],
		"publisher": {"name": "P"}, "landingPage": "`+long+`", "modified": "2024-01-02", "issued": "2020",
		"spatial": "-10,20,30,40", "temporal": "2000-01-01/2010-12-31",
		"distribution": [{"title": "CSV file", "format": "CSV"}]}`)
	v := reflect.ValueOf(d)
	for i := range v.NumField() {
		require.False(t, v.Field(i).IsZero(), "field %s is not set: set it in this test's record", v.Type().Field(i).Name)
	}
	put(t, idx, d)
	require.Equal(t, []string{"full"}, ids(find(t, idx, search.Query{Text: "every"})))

	// DCAT-US 3.0's PeriodOfTime, and a long free-text 1.1 value.
	put(t, idx, doc("period", "s1", "Org", `{"title": "Period", "temporal": {"startDate": "2001-01-01"}}`),
		doc("text", "s1", "Org", `{"title": "Text", "temporal": "`+strings.Repeat("since the beginning ", 2000)+`"}`))
	require.Equal(t, 3, find(t, idx, search.Query{}).Total)
}
