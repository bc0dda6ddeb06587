package setupstest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/stages/catalogsync"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// setup is one way of running Harvester: the harness whose jobs run on it (each job a new
// pipeline, as each `harvester harvest` is a new process) and the store those jobs write.
type setup struct {
	name string
	h    *pipelinetest.Harness
	st   store.Store
}

// embeddedSetup is the embedded default: SQLite, the in-process NATS server and bleve, all in
// the data directory, as `harvester harvest` runs with no flags.
func embeddedSetup(t *testing.T) *setup {
	t.Helper()
	h := pipelinetest.New(t)
	h.Config.DatabaseURL, h.Config.NATSURL = "", ""
	st, err := sqlite.Open(t.Context(), filepath.Join(h.Config.DataDir, "harvester.db"))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	require.NoError(t, st.Migrate(t.Context()))
	return &setup{name: "embedded (SQLite, in-process NATS, bleve)", h: h, st: st}
}

// productionSetup is the production setup: Postgres (a fresh schema), a nats-server process and
// the OpenSearch node under an alias of its own (created here, dropped at cleanup).
func productionSetup(t *testing.T) *setup {
	t.Helper()
	url := searchtest.OpenSearchURL(t)
	h := pipelinetest.New(t)
	alias := "setups-" + strings.ReplaceAll(uuid.NewString(), "-", "")
	idx, err := opensearch.Open(t.Context(), url, alias)
	require.NoError(t, err)
	t.Cleanup(func() { _ = idx.Drop(context.Background()) })
	h.Config.NATSURL = natsServerURL(t)
	h.Config.OpenSearchURL, h.Config.SearchIndex = url, alias
	return &setup{name: "production (Postgres, nats-server, OpenSearch)", h: h, st: h.Store}
}

// view is what one harvest left behind on a setup, in the terms both setups share:
// identifiers, not the ids each database draws. Rows are sorted lines, so that two views
// compare line by line.
type view struct {
	Status    string
	Counts    harvest.Counts
	JobErrors []string
	// Errors are the job's record error rows: severity, type, identifier, message, and
	// whether the row was carried from an earlier job.
	Errors []string
	// Datasets are the source's live datasets: identifier, slug, title, record type and the
	// DCAT body (compacted, keys sorted: Postgres's jsonb does not keep the key order).
	Datasets []string
	// Indexed are the identifiers of the source's documents in the search index (Scan).
	Indexed []string
	// Hits are the hits of each query (every page), as identifier, slug, title, organization.
	Hits map[string][]string
}

// namedQuery is a search to compare, by a name for messages; SourceID is set to the harvest's.
type namedQuery struct {
	name string
	q    search.Query
}

// look reads the view of the job rep on s. Each index document must be a live dataset's, at the
// dataset's record.
func (s *setup) look(t *testing.T, rep pipelinetest.Report, queries []namedQuery) view {
	t.Helper()
	ctx := context.Background()
	v := view{Status: rep.Status, Counts: rep.Counts, JobErrors: slices.Sorted(slices.Values(rep.JobErrors)),
		Errors: []string{}, Datasets: []string{}, Indexed: []string{}, Hits: map[string][]string{}}
	require.NoError(t, s.st.RecordErrorStream(ctx, rep.JobID, func(e *store.RecordError) error {
		v.Errors = append(v.Errors, fmt.Sprintf("%s %s %q: %s (carried %t)", e.Severity, e.Type, e.Identifier,
			s.sourceIDsNamed(t, e.Message), e.CarriedFromJobID != ""))
		return nil
	}))
	slices.Sort(v.Errors)
	ds, err := s.st.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	byID := map[string]*store.Dataset{}
	for _, d := range ds {
		byID[d.ID] = d
		v.Datasets = append(v.Datasets, datasetLine(t, d))
	}
	slices.Sort(v.Datasets)

	idx, err := pipeline.OpenSearch(ctx, s.h.Config)
	require.NoError(t, err)
	require.NotNil(t, idx, "%s keeps a search index", s.name)
	defer idx.Close()
	require.NoError(t, idx.Refresh(ctx))
	require.NoError(t, idx.Scan(ctx, rep.SourceID, func(e search.Entry) error {
		d := byID[e.ID]
		require.NotNil(t, d, "%s: index document %s is a live dataset of the source", s.name, e.ID)
		require.Equal(t, d.RecordID, e.RecordID, "%s: index document of %q is at the dataset's record", s.name, d.Identifier)
		v.Indexed = append(v.Indexed, d.Identifier)
		return nil
	}))
	slices.Sort(v.Indexed)
	for _, nq := range queries {
		v.Hits[nq.name] = allHits(t, idx, nq.q, rep.SourceID)
	}
	return v
}

// uuids matches the ids a store draws.
var uuids = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// sourceIDsNamed is msg with each id of one of s's sources (which the database drew) replaced by
// "source <URL>" (which every setup shares).
func (s *setup) sourceIDsNamed(t *testing.T, msg string) string {
	t.Helper()
	return uuids.ReplaceAllStringFunc(msg, func(id string) string {
		src, err := s.st.SourceGet(context.Background(), id)
		if errors.Is(err, store.ErrNotFound) {
			return id
		}
		require.NoError(t, err)
		return "source " + src.URL
	})
}

// suffix is the random suffix SYNC gives a slug that another dataset has (catalogsync.suffixed).
var suffix = regexp.MustCompile(`-[0-9a-f]{5}$`)

// datasetLine is one dataset as a line of a view. A slug made from the title is written as
// "<title's slug>", suffixed or not: which of two datasets whose titles make one slug gets the
// bare slug is the order SYNC handles them in, and the other's suffix is random, on any setup.
func datasetLine(t *testing.T, d *store.Dataset) string {
	t.Helper()
	var body any
	require.NoError(t, json.Unmarshal(d.DCAT, &body), "dataset %q's DCAT", d.Identifier)
	compact, err := json.Marshal(body) // map keys sorted
	require.NoError(t, err)
	var title struct {
		Title any `json:"title"`
	}
	_ = json.Unmarshal(d.DCAT, &title)
	t2, _ := title.Title.(string)
	return fmt.Sprintf("%q slug %s title %v type %s dcat %s", d.Identifier, slugOf(d.Slug, t2), title.Title, d.RecordType, compact)
}

// slugOf is slug as a view writes it: "<title's slug>" when it is made from title (suffixed
// or not), else slug quoted.
func slugOf(slug, title string) string {
	stem := suffix.ReplaceAllString(slug, "")
	if want := catalogsync.Slug(title); slug == want || (stem != slug && strings.HasPrefix(want, stem)) {
		return "<title's slug>"
	}
	return fmt.Sprintf("%q", slug)
}

// allHits pages through every hit of q on the source's documents and returns them as sorted
// lines: a set, not an order (a filter-only query's order is the engine's own today).
func allHits(t *testing.T, idx search.Index, q search.Query, sourceID string) []string {
	t.Helper()
	q.SourceID, q.PerPage = sourceID, search.MaxPerPage
	out := []string{}
	for q.Page = 1; ; q.Page++ {
		res, err := idx.Search(context.Background(), q)
		require.NoError(t, err)
		for _, h := range res.Hits {
			out = append(out, fmt.Sprintf("%q slug %s title %q organization %q", h.Identifier, slugOf(h.Slug, h.Title), h.Title, h.Organization))
		}
		if len(res.Hits) == 0 || len(out) >= res.Total {
			require.Len(t, out, res.Total, "every hit of %+v paged", q)
			break
		}
	}
	slices.Sort(out)
	require.Equal(t, len(out), len(slices.Compact(slices.Clone(out))), "no hit twice across pages of %+v", q)
	return out
}

// requireSameViews checks the views of one harvest, in a subtest named name: every setup's
// must equal the first's, and on each setup every live dataset must be in the index. It names
// the first differences.
func requireSameViews(t *testing.T, name string, setups []*setup, views []view) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		want, a := views[0], setups[0].name
		for i := 1; i < len(views); i++ {
			got, b := views[i], setups[i].name
			require.Equal(t, want.Status, got.Status, "job status: %s vs %s", a, b)
			require.Equal(t, want.Counts, got.Counts, "job counts: %s vs %s", a, b)
			require.Equal(t, want.JobErrors, got.JobErrors, "job errors: %s vs %s", a, b)
			requireSameLines(t, "error rows", a, want.Errors, b, got.Errors)
			requireSameLines(t, "datasets", a, want.Datasets, b, got.Datasets)
			requireSameLines(t, "index documents", a, want.Indexed, b, got.Indexed)
			for q := range want.Hits {
				requireSameLines(t, "hits of "+q, a, want.Hits[q], b, got.Hits[q])
			}
		}
		for i, v := range views {
			var live []string
			for _, d := range v.Datasets {
				live = append(live, d[:strings.Index(d, " slug ")])
			}
			requireSameLines(t, "live datasets and index documents", setups[i].name+"'s datasets", live,
				setups[i].name+"'s index", quoted(v.Indexed))
		}
	})
}

// quoted is ids, each as %q.
func quoted(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("%q", id)
	}
	return out
}

// requireSameLines fails with the first few lines that only one side has.
func requireSameLines(t *testing.T, what, nameA string, a []string, nameB string, b []string) {
	t.Helper()
	if slices.Equal(a, b) {
		return
	}
	onlyA, onlyB := minus(a, b), minus(b, a)
	t.Fatalf("%s differ (%d on %s, %d on %s):\nonly on %s (%d): %s\nonly on %s (%d): %s", what, len(a), nameA, len(b), nameB,
		nameA, len(onlyA), first(onlyA, 5), nameB, len(onlyB), first(onlyB, 5))
}

// minus is the lines of a that b lacks (as multisets).
func minus(a, b []string) []string {
	left := map[string]int{}
	for _, s := range b {
		left[s]++
	}
	var out []string
	for _, s := range a {
		if left[s] > 0 {
			left[s]--
			continue
		}
		out = append(out, s)
	}
	return out
}

func first(lines []string, n int) string {
	var b strings.Builder
	for i, l := range lines[:min(n, len(lines))] {
		if len(l) > 600 {
			l = l[:600] + "…"
		}
		fmt.Fprintf(&b, "\n  %d. %s", i+1, l)
	}
	return b.String()
}
