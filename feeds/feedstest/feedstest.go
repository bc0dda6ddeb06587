// Package feedstest holds what the feeds' tests and benchmarks share: seeding a store with
// many live datasets made from a corpus catalog (the 100,000-dataset benchmarks of data.json and
// the DCAT-AP feed), and the harness of the chain tests (a catalog harvested from another
// Harvester's feed, data.json, DCAT-AP or the CKAN API, compared with the first's): reading a
// store's live catalog, what a chain must carry of a dataset, and the comparison.
package feedstest

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/catalog"
	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// Seed stores n live datasets of one new federal document source in st: the records of the
// corpus data.json file (a path under the corpus, e.g. "dcatus/agency-gsa-2025-07.data.json")
// that keep accepts (nil: all), cycled, each given the identifier "bench-%07d" of its number
// (also its slug), written 500 at a time as a harvest writes them. It returns the source's id
// and the records' average size in bytes.
func Seed(tb testing.TB, st store.Store, file string, n int, keep func(raw []byte) bool) (sourceID string, avgBytes float64) {
	tb.Helper()
	ctx := tb.Context()
	fh, err := os.Open(corpustest.Path(tb, file))
	require.NoError(tb, err)
	var records []map[string]any
	require.NoError(tb, catalog.WalkEntries(fh, catalog.DefaultMaxRecordBytes, func(e catalog.Entry) error {
		if keep == nil || keep(e.Raw) {
			var m map[string]any
			if json.Unmarshal(e.Raw, &m) == nil && m != nil {
				records = append(records, m)
			}
		}
		return nil
	}))
	fh.Close()
	require.NotEmpty(tb, records, "no record of %s kept", file)
	src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "bench", URL: "https://bench.example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(tb, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(tb, err)
	var size int
	for from := 0; from < n; from += 500 {
		var recs []*store.RecordInsertParams
		var dss []*store.DatasetUpsertParams
		for i := from; i < min(n, from+500); i++ {
			m := records[i%len(records)]
			id := fmt.Sprintf("bench-%07d", i)
			m["identifier"] = id
			raw, err := json.Marshal(m)
			require.NoError(tb, err)
			size += len(raw)
			rid := uuid.NewString()
			recs = append(recs, &store.RecordInsertParams{ID: rid, JobID: job.ID, SourceID: src.ID, Identifier: id,
				Action: harvest.ActionCreate, SourceHash: id, SourceRaw: "{}", SchemaType: harvest.SchemaDCATUS11Federal})
			dss = append(dss, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id, Slug: id, DCAT: raw, RecordID: rid})
		}
		require.NoError(tb, st.RecordInsertBatch(ctx, recs))
		_, err := st.DatasetUpsertBatch(ctx, dss)
		require.NoError(tb, err)
	}
	return src.ID, float64(size) / float64(max(n, 1))
}

// Live is every live dataset of st, read by keyset in id order.
func Live(t testing.TB, st store.Store) []*store.LiveDataset {
	t.Helper()
	var out []*store.LiveDataset
	after := ""
	for {
		page, err := st.DatasetPage(t.Context(), &store.DatasetPageParams{After: after})
		require.NoError(t, err)
		if len(page) == 0 {
			return out
		}
		out = append(out, page...)
		after = page[len(page)-1].ID
	}
}

// Carried is what a chain must carry of a dataset unchanged (issue 35's acceptance): title,
// description, modified, keywords and distribution URLs.
type Carried struct {
	Title, Description, Modified string
	Keywords, URLs               []string
}

// CarriedOf reads Carried from a stored DCAT-US record, and the record's identifier: keywords
// and URLs sorted; with trim, texts and keywords trimmed, keywords without repeats and URLs
// without empty ones (as a catalog that stores them so, CKAN's, gives them back); without,
// exactly as stored.
func CarriedOf(t testing.TB, dcat []byte, trim bool) (string, Carried) {
	t.Helper()
	var r struct {
		Identifier, Title, Description, Modified string
		Keyword                                  []string
		Distribution                             []struct{ DownloadURL, AccessURL string }
	}
	require.NoError(t, json.Unmarshal(dcat, &r))
	c := Carried{Title: r.Title, Description: r.Description, Modified: r.Modified, Keywords: r.Keyword}
	for _, d := range r.Distribution {
		c.URLs = append(c.URLs, d.DownloadURL, d.AccessURL)
	}
	if trim {
		c.Title, c.Description = strings.TrimSpace(c.Title), strings.TrimSpace(c.Description)
		c.Keywords = nil
		for _, k := range r.Keyword {
			if k = strings.TrimSpace(k); k != "" && !slices.Contains(c.Keywords, k) {
				c.Keywords = append(c.Keywords, k)
			}
		}
		c.URLs = slices.DeleteFunc(c.URLs, func(u string) bool { return u == "" })
		slices.Sort(c.Keywords)
	}
	slices.Sort(c.URLs)
	return r.Identifier, c
}

// SameCatalog fails unless got has want's datasets (by key), equal, and nothing else, naming
// the first few that differ.
func SameCatalog[K comparable, V any](t testing.TB, want, got map[K]V, name string) {
	t.Helper()
	var diffs []string
	for k, w := range want {
		g, ok := got[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("missing %v", k))
		case !reflect.DeepEqual(w, g):
			diffs = append(diffs, fmt.Sprintf("%v: want %+v, got %+v", k, w, g))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("extra %v", k))
		}
	}
	slices.Sort(diffs)
	require.Empty(t, diffs[:min(len(diffs), 3)], "%s: %d datasets differ", name, len(diffs))
}
