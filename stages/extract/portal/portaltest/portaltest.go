// Package portaltest emulates portal APIs for tests: an httptest CKAN Action API serving
// package_search over a list of packages (real ones from the corpus, or synthetic ones made
// from them), with paging and faults under the test's control, a DKAN 2 metastore, and the
// paged listings of Socrata, ArcGIS and OpenDataSoft over generated items (Listing), with the
// faults of hostile portals: counts that lie, offsets or page sizes ignored, capped pages.
package portaltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/harvester-dev/harvester/corpustest"
)

// Fault is how the emulator answers one package_search request instead of serving its page:
// Status 0 serves the page.
type Fault struct {
	Status     int
	RetryAfter string // the Retry-After header, when set
	Body       string
}

// CKAN is an emulated CKAN Action API at Server.URL (the portal base URL).
type CKAN struct {
	Server *httptest.Server

	mu       sync.Mutex
	packages []json.RawMessage // sorted by id
	tries    map[int]int       // package_search requests per start
	requests []string
	// FaultFor, when set, is asked before each package_search with the page's start and the
	// number of the request for that start (1 for the first): a Fault with a Status answers it.
	FaultFor func(start, try int) Fault
	// CountFor, when set, is the count reported for a page by its start (a total changing
	// mid-listing); default: the number of packages.
	CountFor func(start int) int
	// StartFor, when set, is the start actually served for a requested start (the same page
	// served twice); default: the start asked for.
	StartFor func(start int) int
	// Envelope, when set, wraps the package_search result: DKAN 7's list of one, say.
	Envelope func(result json.RawMessage) json.RawMessage
	// MaxRows, when set, caps the packages of a page whatever rows asks for, as CKAN's
	// ckan.search.rows_max does.
	MaxRows int
	// IgnoreRows serves every package from the start served on, whatever rows asks for.
	IgnoreRows bool
}

// NewCKAN starts an emulated CKAN serving packages (each a package JSON with an "id"),
// sorted by id as package_search's "sort=id asc" asks, until the test ends.
func NewCKAN(t testing.TB, packages []json.RawMessage) *CKAN {
	t.Helper()
	c := &CKAN{tries: map[int]int{}}
	c.SetPackages(t, packages)
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Server.Close)
	return c
}

// URL is the portal's base URL.
func (c *CKAN) URL() string { return c.Server.URL }

// SetPackages replaces the portal's packages.
func (c *CKAN) SetPackages(t testing.TB, packages []json.RawMessage) {
	t.Helper()
	sorted := append([]json.RawMessage(nil), packages...)
	ids := make([]string, len(sorted))
	for i, p := range sorted {
		ids[i] = PackageID(t, p)
	}
	sort.Sort(byID{sorted, ids})
	c.mu.Lock()
	c.packages = sorted
	c.tries = map[int]int{}
	c.mu.Unlock()
}

type byID struct {
	p   []json.RawMessage
	ids []string
}

func (b byID) Len() int           { return len(b.p) }
func (b byID) Less(i, j int) bool { return b.ids[i] < b.ids[j] }
func (b byID) Swap(i, j int) {
	b.p[i], b.p[j] = b.p[j], b.p[i]
	b.ids[i], b.ids[j] = b.ids[j], b.ids[i]
}

// Requests returns the request URIs served so far (path and query).
func (c *CKAN) Requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.requests...)
}

func (c *CKAN) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.requests = append(c.requests, r.URL.RequestURI())
	c.mu.Unlock()
	if r.URL.Path != "/api/3/action/package_search" {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	start, _ := strconv.Atoi(q.Get("start"))
	rows, err := strconv.Atoi(q.Get("rows"))
	if err != nil {
		rows = 10
	}
	if q.Get("sort") != "id asc" {
		http.Error(w, `{"success": false, "error": {"message": "this emulator pages by sort=id asc only"}}`, http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.tries[start]++
	try := c.tries[start]
	pkgs := c.packages
	c.mu.Unlock()
	if c.FaultFor != nil {
		if f := c.FaultFor(start, try); f.Status != 0 {
			if f.RetryAfter != "" {
				w.Header().Set("Retry-After", f.RetryAfter)
			}
			w.WriteHeader(f.Status)
			fmt.Fprint(w, f.Body)
			return
		}
	}
	count := len(pkgs)
	if c.CountFor != nil {
		count = c.CountFor(start)
	}
	served := start
	if c.StartFor != nil {
		served = c.StartFor(start)
	}
	switch {
	case c.IgnoreRows:
		rows = len(pkgs)
	case c.MaxRows > 0:
		rows = min(rows, c.MaxRows)
	}
	page := []json.RawMessage{}
	if served < len(pkgs) {
		page = pkgs[served:min(served+rows, len(pkgs))]
	}
	result, _ := json.Marshal(map[string]any{"count": count, "sort": "id asc", "results": page})
	if c.Envelope != nil {
		result = c.Envelope(result)
	}
	env, _ := json.Marshal(map[string]any{"help": c.Server.URL + "/api/3/action/help_show?name=package_search",
		"success": true, "result": json.RawMessage(result)})
	w.Header().Set("Content-Type", "application/json")
	w.Write(env)
}

// PackageID returns a package's id (a string or a number).
func PackageID(t testing.TB, p json.RawMessage) string {
	t.Helper()
	var k struct {
		ID json.Number `json:"id"`
	}
	if err := json.Unmarshal(p, &k); err == nil && k.ID != "" {
		return k.ID.String()
	}
	var s struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(p, &s); err != nil || s.ID == "" {
		t.Fatalf("package without an id: %.200s", p)
	}
	return s.ID
}

// CorpusPackages returns the real CKAN packages of the corpus: DataSud's 7 package_search
// results (a CKAN-compatible API: string organization ids, date-only metadata_modified), the
// 3 of demo.ckan.org's package_search (null organization), EnviDat's package_show (JSON inside
// string fields), the 2015 CKAN package_show (docstring help, no resources) and
// catalog.data.gov's USDA package_show (harvested from a data.json: harvest_source_id and
// identifier extras).
func CorpusPackages(t testing.TB) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	var session struct {
		RequestsHistory []struct {
			Request  struct{ URL string }
			Response struct {
				Body string `json:"body"`
			}
		} `json:"requests_history"`
	}
	readJSON(t, "portals/ckan/datasud-ckan-api-recorded-session-search-and-show.json", &session)
	var search ckanEnvelope
	if err := json.Unmarshal([]byte(session.RequestsHistory[0].Response.Body), &search); err != nil { // decode twice
		t.Fatalf("datasud package_search body: %v", err)
	}
	out = append(out, search.Result.Results...)
	var demo ckanEnvelope
	readJSON(t, "ckan/demo-ckan-package-search.json", &demo)
	out = append(out, demo.Result.Results...)
	for _, f := range []string{"portals/ckan/envidat-package-show-json-string-fields.json",
		"portals/ckan/ckan-2015-package-show-docstring-help-no-resources.json", "ckan/catalog-data-gov-package-show-usda.json"} {
		var show struct {
			Result json.RawMessage `json:"result"`
		}
		readJSON(t, f, &show)
		out = append(out, show.Result)
	}
	return out
}

type ckanEnvelope struct {
	Result struct {
		Results []json.RawMessage `json:"results"`
	} `json:"result"`
}

func readJSON(t testing.TB, name string, v any) {
	t.Helper()
	raw, err := os.ReadFile(corpustest.Path(t, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// SyntheticPackages returns n packages made from template (a real package): each a copy with
// id "pkg-00001"…, name and title numbered, so a portal of any size can be emulated.
func SyntheticPackages(t testing.TB, template json.RawMessage, n int) []json.RawMessage {
	t.Helper()
	var p map[string]any
	if err := json.Unmarshal(template, &p); err != nil {
		t.Fatal(err)
	}
	title, _ := p["title"].(string)
	out := make([]json.RawMessage, n)
	for i := range n {
		p["id"] = fmt.Sprintf("pkg-%05d", i+1)
		p["name"] = fmt.Sprintf("package-%05d", i+1)
		p["title"] = fmt.Sprintf("%s #%d", title, i+1)
		raw, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = raw
	}
	return out
}

// DKAN is an emulated DKAN 2 metastore at Server.URL.
type DKAN struct {
	Server *httptest.Server
	mu     sync.Mutex
	items  []json.RawMessage
	// Status, when set, answers the metastore with this status (and no datasets).
	Status int
}

// NewDKAN starts an emulated DKAN 2 serving items at
// /api/1/metastore/schemas/dataset/items (a bare JSON array, as DKAN does), and /api/1/search
// with total 0 (as the recorded DKAN answered), until the test ends.
func NewDKAN(t testing.TB, items []json.RawMessage) *DKAN {
	t.Helper()
	d := &DKAN{items: items}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/1/metastore/schemas/dataset/items":
			d.mu.Lock()
			items, status := d.items, d.Status
			d.mu.Unlock()
			if status != 0 {
				w.WriteHeader(status)
				fmt.Fprint(w, `{"message": "emulated failure"}`)
				return
			}
			raw, _ := json.Marshal(items)
			w.Write(raw)
		case "/api/1/search":
			fmt.Fprint(w, `{"total": 0, "results": [], "facets": []}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(d.Server.Close)
	return d
}

// SetItems replaces the metastore's datasets.
func (d *DKAN) SetItems(items []json.RawMessage) {
	d.mu.Lock()
	d.items = items
	d.mu.Unlock()
}

// CorpusDKANItems returns the recorded DKAN 2 datasets: the 10 of the metastore listing, the
// first replaced by its show-reference-ids form ({identifier, data} wrappers), as a listing
// with show-reference-ids serves them.
func CorpusDKANItems(t testing.TB) []json.RawMessage {
	t.Helper()
	var calls []struct {
		Method   string          `json:"method"`
		Response json.RawMessage `json:"response"`
	}
	readJSON(t, "portals/dkan/dkan2-recorded-metastore-and-search.json", &calls)
	var items []json.RawMessage
	var withRefs json.RawMessage
	for _, c := range calls {
		switch c.Method {
		case "listAllDatasets":
			if err := json.Unmarshal(c.Response, &items); err != nil {
				t.Fatal(err)
			}
		case "getDataset":
			withRefs = c.Response
		}
	}
	if len(items) == 0 || withRefs == nil {
		t.Fatal("the DKAN recording has no listing or no show-reference-ids dataset")
	}
	var b struct{ Identifier string }
	json.Unmarshal(withRefs, &b)
	for i, it := range items {
		var k struct{ Identifier string }
		json.Unmarshal(it, &k)
		if k.Identifier == b.Identifier {
			items[i] = withRefs
		}
	}
	return items
}
