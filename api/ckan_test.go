package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/feeds/ckan"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/search/opensearch"
	"github.com/harvester-dev/harvester/search/searchtest"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// ckanBackends runs f on SQLite with bleve and on Postgres with OpenSearch.
func ckanBackends(t *testing.T, f func(t *testing.T, b *testBundle)) {
	t.Run("sqlite+bleve", func(t *testing.T) {
		t.Parallel()
		f(t, setup(t))
	})
	t.Run("postgres+opensearch", func(t *testing.T) {
		t.Parallel()
		osURL := searchtest.OpenSearchURL(t)
		f(t, setup(t, func(_ *Config, d *Deps) {
			d.Store = dbtest.Store(t)
			idx, err := opensearch.Open(t.Context(), osURL, "ckan-"+strings.ReplaceAll(uuid.NewString(), "-", ""))
			require.NoError(t, err)
			t.Cleanup(func() { _ = idx.Drop(context.Background()) })
			d.Search = idx
		}))
	})
}

// ckanCatalog is what ckanSeed made.
type ckanCatalog struct {
	orgA, orgB *store.Organization
	live       []*store.Dataset // every live dataset, in id order
	held       *store.Dataset
	bigTitle   *store.Dataset
}

// ckanSeed makes organization A with 13 datasets (keywords "all" and "even"/"odd"; formats
// CSV or JSON), organization B with 9 (one titled with 1 MB), a source without organization
// with 2, and a dataset of B's source held as a duplicate of one of A's; all indexed.
func ckanSeed(t *testing.T, b *testBundle) *ckanCatalog {
	t.Helper()
	ctx := t.Context()
	st := b.store
	c := &ckanCatalog{}
	var err error
	c.orgA, err = st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Agency A", Slug: "agency-a"})
	require.NoError(t, err)
	c.orgB, err = st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Agency B", Slug: "agency-b"})
	require.NoError(t, err)
	var ops []search.Op
	add := func(org *store.Organization, n int, title func(i int) string) (*store.Source, *store.HarvestJob) {
		orgID, orgName := "", ""
		if org != nil {
			orgID, orgName = org.ID, org.Name
		}
		src, err := st.SourceInsert(ctx, &store.SourceInsertParams{OrganizationID: orgID, Name: "Source " + orgName,
			URL: "https://example.gov/" + uuid.NewString() + "/data.json", SourceType: harvest.SourceDocument,
			SchemaType: harvest.SchemaDCATUS11Federal})
		require.NoError(t, err)
		job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
		require.NoError(t, err)
		for i := range n {
			parity, format := "even", "CSV"
			if i%2 == 1 {
				parity, format = "odd", "JSON"
			}
			id := fmt.Sprintf("%s-%d", orgName, i)
			rec, err := json.Marshal(map[string]any{"identifier": id, "title": title(i), "description": "About " + id,
				"keyword": []string{"all", parity}, "modified": fmt.Sprintf("2024-01-%02d", i+1), "theme": []string{"Theme " + parity},
				"distribution": []map[string]any{{"downloadURL": "https://example.gov/" + id + "." + strings.ToLower(format),
					"mediaType": "text/" + strings.ToLower(format), "format": format}}})
			require.NoError(t, err)
			r, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: src.ID,
				Identifier: id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}", SchemaType: harvest.SchemaDCATUS11Federal})
			require.NoError(t, err)
			ds, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id,
				Slug: "ds-" + uuid.NewString()[:12], DCAT: rec, RecordID: r.ID})
			require.NoError(t, err)
			c.live = append(c.live, ds)
			doc := search.FromDataset(ds, orgName)
			ops = append(ops, search.Op{ID: ds.ID, Doc: &doc})
		}
		return src, job
	}
	add(c.orgA, 13, func(i int) string { return fmt.Sprintf("Survey A %d", i) })
	srcB, job := add(c.orgB, 9, func(i int) string {
		if i == 0 {
			return "Huge " + strings.Repeat("x", 1<<20)
		}
		return fmt.Sprintf("Survey B %d", i)
	})
	add(nil, 2, func(i int) string { return fmt.Sprintf("Orphan %d", i) })
	for _, d := range c.live {
		if d.Identifier == "Agency B-0" {
			c.bigTitle = d
		}
	}
	// B's source also publishes A's first identifier: that dataset is held against A's.
	kept := c.live[0]
	r, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID, SourceID: srcB.ID,
		Identifier: kept.Identifier, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: "{}", SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	c.held, err = st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: srcB.ID, Identifier: kept.Identifier,
		Slug: "held-" + uuid.NewString()[:8], DCAT: kept.DCAT, RecordID: r.ID})
	require.NoError(t, err)
	ok, err := st.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: kept.ID, HeldID: c.held.ID, Match: store.MatchIdentifier,
		Key: kept.Identifier, JobID: job.ID})
	require.NoError(t, err)
	require.True(t, ok)
	errs, err := b.api.search.Apply(ctx, ops)
	require.NoError(t, err)
	require.NoError(t, errors.Join(errs...))
	require.NoError(t, b.api.search.Refresh(ctx))
	slices.SortFunc(c.live, func(a, b *store.Dataset) int { return strings.Compare(a.ID, b.ID) })
	require.NotNil(t, c.bigTitle)
	return c
}

// ckanAnswer is an Action API answer.
type ckanAnswer[T any] struct {
	Help    string         `json:"help"`
	Success bool           `json:"success"`
	Result  T              `json:"result"`
	Error   map[string]any `json:"error"`
}

// action calls a CKAN action by GET with params.
func ckanGet[T any](t *testing.T, b *testBundle, action string, params url.Values) (int, ckanAnswer[T]) {
	t.Helper()
	r := b.get(t, "/api/3/action/"+action+"?"+params.Encode())
	return r.status, decode[ckanAnswer[T]](t, r)
}

// ckanPost calls a CKAN action by POST to /api/action/ with a JSON body, as ckanapi does.
func ckanPost[T any](t *testing.T, b *testBundle, action string, body any) (int, ckanAnswer[T]) {
	t.Helper()
	r := b.request(t, http.MethodPost, "/api/action/"+action, body, "Content-Type: application/json")
	return r.status, decode[ckanAnswer[T]](t, r)
}

func requireCKANError[T any](t *testing.T, status int, a ckanAnswer[T], wantStatus int, wantType string, wantIn ...string) {
	t.Helper()
	require.Equal(t, wantStatus, status, "%v", a.Error)
	require.False(t, a.Success)
	require.Equal(t, wantType, a.Error["__type"])
	text, _ := json.Marshal(a.Error)
	for _, w := range wantIn {
		require.Contains(t, string(text), w)
	}
}

func ids(ps []*ckan.Package) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

func liveIDs(ds []*store.Dataset) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.ID)
	}
	return out
}

// TestCKANPackageSearchPages: without q, package_search pages the store by keyset (every live
// dataset once, in id order, held ones left out), whatever rows says (capped at 1000, as CKAN
// caps it), GET or POST; a start past the end is an empty page with the true count; bad
// numbers are CKAN's Validation Error; a deep start that continues no page is a Search Error.
func TestCKANPackageSearchPages(t *testing.T) {
	t.Parallel()
	ckanBackends(t, func(t *testing.T, b *testBundle) {
		c := ckanSeed(t, b)
		var got []string
		for start := 0; start < 40; start += 5 {
			status, a := ckanPost[ckan.SearchResult](t, b, "package_search", map[string]any{"rows": 5, "start": start, "sort": "id asc"})
			require.Equal(t, http.StatusOK, status)
			require.True(t, a.Success)
			require.Equal(t, len(c.live), a.Result.Count)
			got = append(got, ids(a.Result.Results)...)
		}
		require.Equal(t, liveIDs(c.live), got, "every live dataset once, in id order")

		status, a := ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"rows": {"1000000000"}})
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, liveIDs(c.live), ids(a.Result.Results), "rows is capped, not refused")
		require.Equal(t, "id asc", a.Result.Sort)
		require.Contains(t, a.Help, "/api/3/action/help_show?name=package_search")

		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"start": {"7"}, "rows": {"3"}})
		require.Equal(t, liveIDs(c.live)[7:10], ids(a.Result.Results), "an offset no page ended at is walked to")

		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"start": {"99999999999999999999"}})
		require.Equal(t, len(c.live), a.Result.Count)
		require.Empty(t, a.Result.Results)

		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"organization:agency-b"}, "rows": {"100"}})
		require.Equal(t, 9, a.Result.Count)
		require.Len(t, a.Result.Results, 9)
		for _, p := range a.Result.Results {
			require.Equal(t, "agency-b", p.Organization.Name)
		}
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"organization:agency-a owner_org:" + c.orgB.ID}})
		require.Equal(t, 0, a.Result.Count, "two organizations ANDed")
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"organization:nobody"}})
		require.Equal(t, 0, a.Result.Count)

		// metadata_modified:[<time> TO *], as ckanext-harvest's CKAN harvester asks for changes
		changed := c.live[5]
		again, err := b.store.DatasetUpsert(t.Context(), &store.DatasetUpsertParams{SourceID: changed.SourceID, Identifier: changed.Identifier,
			Slug: changed.Slug, DCAT: changed.DCAT, RecordID: changed.RecordID})
		require.NoError(t, err)
		since := again.LastHarvestedDate.UTC().Format(time.RFC3339Nano)
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"metadata_modified:[" + since + " TO *]"},
			"sort": {"id asc"}, "rows": {"100"}})
		require.Contains(t, ids(a.Result.Results), changed.ID)
		require.Less(t, a.Result.Count, len(c.live), "the datasets not changed since are left out")
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"metadata_modified:[2000-01-01 TO *]"}, "rows": {"100"}})
		require.Equal(t, len(c.live), a.Result.Count)
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"metadata_modified:[9999-12-31T00:00:00Z TO *]"}})
		require.Equal(t, 0, a.Result.Count, "a time in the year 9999")
		status, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"metadata_modified:[NOW-1DAY TO *]"}})
		requireCKANError(t, status, a, http.StatusBadRequest, "Search Query Error", "NOW-1DAY")
		status, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"q": {"survey"}, "fq": {"metadata_modified:[2000-01-01 TO *]"}})
		requireCKANError(t, status, a, http.StatusBadRequest, "Search Query Error", "without q")

		status, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"rows": {"ten"}, "start": {"-1"}})
		requireCKANError(t, status, a, http.StatusConflict, "Validation Error", `"rows":["Invalid integer"]`, `"start":["Must be a natural number"]`)

		b.api.ckanCursors.maxWalk = 10
		status, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"start": {"11"}, "rows": {"2"}})
		requireCKANError(t, status, a, http.StatusConflict, "Search Error", "deeper than 10")
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"start": {"10"}, "rows": {"2"}})
		require.Equal(t, liveIDs(c.live)[10:12], ids(a.Result.Results), "10 is reached")
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"start": {"12"}, "rows": {"2"}})
		require.Equal(t, liveIDs(c.live)[12:14], ids(a.Result.Results), "12 continues the page before")
	})
}

// TestCKANPackageSearchIndex: q and fq beyond organization go through the search index: the
// Solr subset of fq, facets in CKAN's two shapes, and CKAN's Search Query Error naming a
// clause it cannot read.
func TestCKANPackageSearchIndex(t *testing.T) {
	t.Parallel()
	ckanBackends(t, func(t *testing.T, b *testBundle) {
		ckanSeed(t, b)
		status, a := ckanPost[ckan.SearchResult](t, b, "package_search", map[string]any{"q": "survey", "fq": `tags:"odd"`,
			"rows": 100, "facet.field": []string{"organization", "tags"}})
		require.Equal(t, http.StatusOK, status, "%v", a.Error)
		require.Equal(t, 6+4, a.Result.Count, "A's 6 odd and B's 4 odd datasets titled Survey")
		require.Len(t, a.Result.Results, 10)
		require.Equal(t, []ckan.FacetItem{{Count: 6, DisplayName: "Agency A", Name: "agency-a"}, {Count: 4, DisplayName: "Agency B", Name: "agency-b"}},
			a.Result.SearchFacets["organization"].Items)
		require.Equal(t, map[string]int{"agency-a": 6, "agency-b": 4}, a.Result.Facets["organization"])
		require.Equal(t, 10, a.Result.Facets["tags"]["odd"])

		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"q": {"survey"}, "fq": {"organization:agency-a"}, "start": {"3"}, "rows": {"4"}})
		require.Equal(t, 13, a.Result.Count, "all of A's 13 (the held one is B's)")
		require.Len(t, a.Result.Results, 4)

		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"tags:even"}, "rows": {"0"},
			"facet.field": {`["tags"]`}})
		require.Equal(t, 13, a.Result.Count)
		require.Empty(t, a.Result.Results)
		require.Equal(t, 13, a.Result.Facets["tags"]["all"])

		// exclusion, formats, themes; several clauses ANDed
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"q": {"survey"}, "fq": {"-tags:odd"}})
		require.Equal(t, 7+4, a.Result.Count, "A's 7 even and B's 4 even datasets titled Survey")
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"q": {"survey"}, "fq": {"res_format:JSON"}})
		require.Equal(t, 10, a.Result.Count)
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {`groups:"Theme odd" AND organization:agency-a -res_format:csv`},
			"facet.field": {`["groups", "res_format"]`}})
		require.Equal(t, 6, a.Result.Count)
		require.Equal(t, map[string]int{"Theme odd": 6}, a.Result.Facets["groups"])
		require.Equal(t, map[string]int{"JSON": 6}, a.Result.Facets["res_format"])
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {"-organization:agency-a"}, "facet.field": {`["organization"]`}})
		require.Equal(t, 9+2, a.Result.Count, "B's and the orphans")

		// sorts
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"sort": {"metadata_modified desc"}, "rows": {"2"}})
		require.Equal(t, "Survey A 12", a.Result.Results[0].Title, "modified 2024-01-13 is the newest")
		require.Equal(t, "metadata_modified desc", a.Result.Sort)
		_, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"q": {"survey"}, "sort": {"title_string asc"}, "rows": {"3"}})
		require.Equal(t, []string{"Survey A 0", "Survey A 1", "Survey A 10"},
			[]string{a.Result.Results[0].Title, a.Result.Results[1].Title, a.Result.Results[2].Title})

		status, a = ckanPost[ckan.SearchResult](t, b, "package_search", map[string]any{"q": strings.Repeat("water ", 200000)})
		requireCKANError(t, status, a, http.StatusBadRequest, "Search Query Error", "too long")

		for fq, clause := range map[string]string{`tags:"odd`: `'tags:\"odd'`, "title:survey": "'title:survey'", "tags:su*": "'tags:su*'"} {
			status, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"fq": {fq}})
			requireCKANError(t, status, a, http.StatusBadRequest, "Search Query Error", "Search Query is invalid", clause)
		}
		status, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"facet.field": {`["license_id"]`}})
		requireCKANError(t, status, a, http.StatusConflict, "Validation Error", "license_id")
		status, a = ckanGet[ckan.SearchResult](t, b, "package_search", url.Values{"q": {"survey"}, "start": {"9995"}, "rows": {"10"}})
		requireCKANError(t, status, a, http.StatusConflict, "Search Error", "10000")
	})
}

// TestCKANShowAndLists: package_show by id and by name (the held duplicate and an unknown one
// are CKAN's 404), package_list streaming every name, organization_list and
// organization_show, status_show; an unknown action and a body that is not an object are
// CKAN's 400.
func TestCKANShowAndLists(t *testing.T) {
	t.Parallel()
	ckanBackends(t, func(t *testing.T, b *testBundle) {
		c := ckanSeed(t, b)
		d := c.bigTitle
		for _, ref := range []string{d.ID, d.Slug} {
			status, a := ckanPost[ckan.Package](t, b, "package_show", map[string]any{"id": ref})
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, d.ID, a.Result.ID)
			require.Equal(t, d.Slug, a.Result.Name)
			require.Len(t, a.Result.Title, len("Huge ")+1<<20, "a 1 MB title comes whole")
			require.Equal(t, "agency-b", a.Result.Organization.Name)
		}
		status, a := ckanGet[ckan.Package](t, b, "package_show", url.Values{"id": {c.held.Slug}})
		requireCKANError(t, status, a, http.StatusNotFound, "Not Found Error", "Not found")
		status, a = ckanGet[ckan.Package](t, b, "package_show", url.Values{"id": {"nope"}})
		requireCKANError(t, status, a, http.StatusNotFound, "Not Found Error")
		status, a = ckanGet[ckan.Package](t, b, "package_show", nil)
		requireCKANError(t, status, a, http.StatusConflict, "Validation Error", `"id":["Missing value"]`)

		_, names := ckanPost[[]string](t, b, "package_list", map[string]any{"include_private": false})
		var want []string
		for _, d := range c.live {
			want = append(want, d.Slug)
		}
		require.Equal(t, want, names.Result)
		_, names = ckanGet[[]string](t, b, "package_list", url.Values{"limit": {"3"}, "offset": {"20"}})
		require.Equal(t, want[20:23], names.Result)
		_, names = ckanGet[[]string](t, b, "package_list", url.Values{"offset": {"1000"}})
		require.Equal(t, []string{}, names.Result)

		_, orgs := ckanPost[[]string](t, b, "organization_list", map[string]any{})
		require.Equal(t, []string{"agency-a", "agency-b"}, orgs.Result)
		_, full := ckanGet[[]ckan.Organization](t, b, "organization_list", url.Values{"all_fields": {"true"}, "offset": {"1"}})
		require.Len(t, full.Result, 1)
		require.Equal(t, "Agency B", full.Result[0].Title)
		require.Equal(t, 9, *full.Result[0].PackageCount, "the held dataset is not counted")
		for _, ref := range []string{"agency-a", c.orgA.ID} {
			_, org := ckanGet[ckan.Organization](t, b, "organization_show", url.Values{"id": {ref}})
			require.Equal(t, c.orgA.ID, org.Result.ID)
			require.Equal(t, 13, *org.Result.PackageCount)
		}
		status, org := ckanGet[ckan.Organization](t, b, "organization_show", url.Values{"id": {"nobody"}})
		requireCKANError(t, status, org, http.StatusNotFound, "Not Found Error")

		_, st := ckanGet[map[string]any](t, b, "status_show", nil)
		require.Equal(t, ckan.Version, st.Result["ckan_version"])
		require.Equal(t, b.url, st.Result["site_url"])

		status, x := ckanGet[any](t, b, "package_create", nil)
		requireCKANError(t, status, x, http.StatusBadRequest, "Bad request", "Action name not known: package_create")
		r := b.request(t, http.MethodPost, "/api/action/package_search", "[1,2]", "Content-Type: application/json")
		require.Equal(t, http.StatusBadRequest, r.status)
		require.Contains(t, string(r.body), "JSON Error")
		r = b.get(t, "/api/3/action/status_show")
		require.Equal(t, "*", r.header.Get("Access-Control-Allow-Origin"))
		etag := r.header.Get("ETag")
		require.NotEmpty(t, etag)
		r = b.request(t, http.MethodGet, "/api/3/action/status_show", nil, "If-None-Match: "+etag)
		require.Equal(t, http.StatusNotModified, r.status)
	})
}

// ckanRoute says whether rt is one of CKAN's Action API routes: their contract is CKAN's
// (docs/catalog.md), not the OpenAPI document's (unknown parameters ignored, errors in CKAN's
// shape, POST for reads).
func ckanRoute(rt route) bool { return strings.Contains(rt.pattern, "/action/{action}") }

// documentedRoutes are the routes the OpenAPI document describes: all but CKAN's.
func documentedRoutes(table []route) []route {
	return slices.DeleteFunc(slices.Clone(table), ckanRoute)
}

// TestCKANPrivateCatalog: with --private-catalog the CKAN API needs the API key, as the rest of
// the public catalog does.
func TestCKANPrivateCatalog(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config, _ *Deps) { c.PrivateCatalog = true })
	for _, path := range []string{"/api/3/action/status_show", "/api/action/package_list"} {
		require.Equal(t, http.StatusUnauthorized, b.get(t, path).status, path)
		r := b.request(t, http.MethodGet, path, nil, "X-API-Key: "+testKey)
		require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
	}
}
