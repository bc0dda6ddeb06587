package web

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// aggregator is a second source (no organization, precedence -10) and the job that found its
// datasets held against the fixture source's copies (seedDuplicates).
type aggregator struct {
	src *store.Source
	job *store.HarvestJob
}

// seedDuplicates adds to f's source n-1 more live datasets ("a" is there) and an aggregator
// source whose n copies are held against them, found by the aggregator's job.
func seedDuplicates(t *testing.T, st store.Store, f *fixture, n int) aggregator {
	t.Helper()
	ctx := t.Context()
	var agg aggregator
	var err error
	agg.src, err = st.SourceInsert(ctx, &store.SourceInsertParams{Name: "Aggregator catalog", Precedence: -10,
		URL: "https://aggregator.example.org/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11NonFederal})
	require.NoError(t, err)
	agg.job, err = st.JobInsert(ctx, &store.JobInsertParams{SourceID: agg.src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	dataset := func(src *store.Source, job *store.HarvestJob, ident string) *store.Dataset {
		// f.job2 has finished: its history is written after the fact, as a replay's record is
		rec, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
			Identifier: ident, Action: harvest.ActionCreate, SourceHash: "h-" + ident, SourceRaw: "{}",
			SchemaType: src.SchemaType, Replay: true})
		require.NoError(t, err)
		ds, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: ident,
			Slug: ident + "-" + uuid.NewString()[:8], DCAT: json.RawMessage(`{"identifier":"` + ident + `"}`), RecordID: rec.ID})
		require.NoError(t, err)
		return ds
	}
	for i := range n {
		ident := "a"
		kept, err := st.DatasetGet(ctx, &store.DatasetGetParams{SourceID: f.src.ID, Identifier: ident})
		if i > 0 {
			ident = "shared-" + itoa(i)
			kept, err = dataset(f.src, f.job2, ident), nil
		}
		require.NoError(t, err)
		held := dataset(agg.src, agg.job, ident)
		ok, err := st.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: kept.ID, HeldID: held.ID,
			Match: store.MatchIdentifier, Key: ident, JobID: agg.job.ID})
		require.NoError(t, err)
		require.True(t, ok, "held")
	}
	return agg
}

// duplicateRows returns the rows of the page's duplicates table, each as its cells' text with
// the links' targets.
func duplicateRows(t *testing.T, page string) []string {
	t.Helper()
	table := regexp.MustCompile(`(?s)<table id="duplicates-table".*?</table>`).FindString(page)
	require.NotEmpty(t, table, "the page has the duplicates table")
	return regexp.MustCompile(`(?s)<tr class="duplicate".*?</tr>`).FindAllString(table, -1)
}

// TestDuplicatesOnPages: the source pages of both sides, the organization's page and the
// finding job's page show the pair: the key and match kind, which source's dataset is live
// (with a link to it), which is held, links to both sources and records; the fixture's first
// job found none.
func TestDuplicatesOnPages(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		agg := seedDuplicates(t, st, f, 1)
		b := newSite(t, st).browser(t)
		for path, heading := range map[string]string{
			"/harvest_sources/" + f.src.ID:   "Cross-source duplicates: ",
			"/harvest_sources/" + agg.src.ID: "Cross-source duplicates: ",
			"/organizations/" + f.org.ID:     "Cross-source duplicates: ",
			"/harvest_jobs/" + agg.job.ID:    "New cross-source duplicates: ",
		} {
			code, page := b.get(path)
			require.Equal(t, http.StatusOK, code, "%s: %s", path, page)
			require.Contains(t, page, heading+`<span id="duplicates-count">1</span>`, path)
			rows := duplicateRows(t, page)
			require.Len(t, rows, 1, path)
			row := html.UnescapeString(rows[0])
			kept, held, ok := strings.Cut(row, `class="duplicate-held"`)
			require.True(t, ok, row)
			require.Contains(t, kept, `<span class="duplicate-match">identifier</span>`)
			require.Contains(t, kept, `<code class="duplicate-key">a</code>`)
			require.Contains(t, kept, `<a href="/harvest_sources/`+f.src.ID+`" class="duplicate-source">Agency catalog</a>`, "live: the agency")
			require.Contains(t, kept, `<a href="/organizations/`+f.org.ID+`">`+f.org.Name+`</a>`)
			require.Contains(t, kept, "precedence 0")
			require.Regexp(t, `<a href="/dataset/a-[0-9a-f-]+" class="duplicate-dataset">dataset a-`, kept, "the live dataset's public page")
			require.Regexp(t, `<a href="/harvest_records/[^"]+" class="duplicate-record">record</a>`, kept)
			require.Contains(t, held, `<a href="/harvest_sources/`+agg.src.ID+`" class="duplicate-source">Aggregator catalog</a>`, "held: the aggregator")
			require.Contains(t, held, "precedence -10")
			require.Contains(t, held, `<span class="duplicate-identifier">a</span> (not published)`)
			require.Regexp(t, `<a href="/harvest_records/[^"]+" class="duplicate-record">record</a>`, held)
			require.Contains(t, held, `<a href="/harvest_jobs/`+agg.job.ID+`" class="duplicate-job">job</a>`, "the finding job")
			switch path {
			case "/harvest_sources/" + f.src.ID:
				require.Contains(t, kept, "(this source)")
				require.NotContains(t, held, "(this source)")
			case "/harvest_sources/" + agg.src.ID:
				require.Contains(t, held, "(this source)")
				require.NotContains(t, kept, "(this source)")
			}
			require.NotContains(t, page, `id="duplicates-all"`, "all of them are listed")
		}
		code, page := b.get("/harvest_jobs/" + f.job1.ID)
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, page, `New cross-source duplicates: <span id="duplicates-count">0</span>`)
		require.Contains(t, page, `<td colspan="4" id="duplicates-none">None.</td>`)
		require.Empty(t, duplicateRows(t, page))
		code, page = b.get("/harvest_sources/" + f.src.ID)
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, page, `<dd id="source-precedence">0 `)
		code, page = b.get("/harvest_sources/" + agg.src.ID)
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, page, `<dd id="source-precedence">-10 `)
	})
}

// TestDuplicatesPages: a page lists the first 10 pairs and links the page of all of them, which
// pages through them 20 at a time; each of the three such pages renders.
func TestDuplicatesPages(t *testing.T) {
	backends(t, func(t *testing.T, st store.Store) {
		f := seed(t, st)
		agg := seedDuplicates(t, st, f, 23)
		b := newSite(t, st).browser(t)
		for page, all := range map[string]string{
			"/harvest_sources/" + f.src.ID:   "/harvest_sources/" + f.src.ID + "/duplicates",
			"/harvest_sources/" + agg.src.ID: "/harvest_sources/" + agg.src.ID + "/duplicates",
			"/organizations/" + f.org.ID:     "/organizations/" + f.org.ID + "/duplicates",
			"/harvest_jobs/" + agg.job.ID:    "/harvest_jobs/" + agg.job.ID + "/duplicates",
		} {
			code, body := b.get(page)
			require.Equal(t, http.StatusOK, code, "%s: %s", page, body)
			require.Len(t, duplicateRows(t, body), duplicateRowsShown, page)
			require.Contains(t, body, `<span id="duplicates-count">23</span>`, page)
			require.Contains(t, body, `The first 10 of 23 pairs`, page)
			require.Contains(t, body, `<a href="`+all+`" id="duplicates-all">All 23 cross-source duplicates</a>`, page)

			code, body = b.get(all)
			require.Equal(t, http.StatusOK, code, "%s: %s", all, body)
			require.Contains(t, body, `<h1 id="page-title">Cross-source duplicates: `, all)
			require.Contains(t, body, `<p id="duplicates-count">Cross-source duplicates: 23</p>`, all)
			require.Contains(t, body, `<a href="`+page+`" id="duplicates-back">`, all)
			require.Len(t, duplicateRows(t, body), listPerPage, all)
			require.Contains(t, body, `id="pager-next"`, all)
			code, body = b.get(all + "?page=2")
			require.Equal(t, http.StatusOK, code, all)
			require.Len(t, duplicateRows(t, body), 3, all+"?page=2")
			require.NotContains(t, body, `id="duplicates-all"`, "no link to itself")
			require.Contains(t, body, `<caption class="hint">23 pairs.</caption>`, "not \"the first 3\"")
			if page != "/organizations/"+f.org.ID {
				require.Equal(t, 3, strings.Count(body, "(this source)"), "%s: the page's own source's side is marked", all)
			}
		}
		code, body := b.get("/harvest_sources/" + uuid.NewString() + "/duplicates")
		require.Equal(t, http.StatusNotFound, code, body)
	})
}
