package feeds_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/feeds/feedstest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
)

// agency is an agency's web server: one document per path, swappable.
type agency struct {
	mu   sync.Mutex
	docs map[string][]byte
}

func (a *agency) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	b, ok := a.docs[r.URL.Path]
	a.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}

func (a *agency) set(path string, b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.docs[path] = b
}

// instance is one Harvester of the chain: its harness, and its /data.json served by an
// httptest server (validators stripped from requests when fresh is set, so that a harvest
// reads the whole document instead of a 304).
type instance struct {
	h     *pipelinetest.Harness
	feed  *httptest.Server
	fresh bool
}

func newInstance(t *testing.T) *instance {
	in := &instance{h: pipelinetest.New(t)}
	f := &feeds.DataJSON{Store: in.h.Store}
	in.feed = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if in.fresh {
			r.Header.Del("If-None-Match")
			r.Header.Del("If-Modified-Since")
		}
		if err := f.Serve(w, r, feeds.DataJSONParams{Version: feeds.DCATUS11, Path: "/data.json"}); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	}))
	t.Cleanup(in.feed.Close)
	return in
}

// harvestFeed harvests up's /data.json into in as a document source (non-federal: the feed
// mixes federal and non-federal records); the job must complete.
func (in *instance) harvestFeed(t *testing.T, up *instance) pipelinetest.Report {
	t.Helper()
	rep := in.h.Harvest(t, pipelinetest.Source{URL: up.feed.URL + "/data.json", SchemaType: harvest.SchemaDCATUS11NonFederal,
		Name: "upstream catalog"})
	pipelinetest.MustComplete(t, rep)
	return rep
}

// live reads in's live catalog by identifier: what the chain compares of each dataset, exactly
// as stored.
func (in *instance) live(t *testing.T) map[string]feedstest.Carried {
	t.Helper()
	out := map[string]feedstest.Carried{}
	for _, d := range feedstest.Live(t, in.h.Store) {
		_, c := feedstest.CarriedOf(t, d.DCAT, false)
		require.NotContains(t, out, d.Identifier, "one live dataset per identifier")
		out[d.Identifier] = c
	}
	return out
}

// sameCatalog fails unless got has want's datasets, equal.
func sameCatalog(t *testing.T, want, got map[string]feedstest.Carried, name string) {
	t.Helper()
	feedstest.SameCatalog(t, want, got, name)
}

// TestCatalogsChain (issue 35's acceptance): a second Harvester harvests the first's /data.json
// as a document source and finds every live dataset again by an equal identifier with equal
// title, description, keywords, distribution URLs and modified; a re-harvest is all unchanged;
// one record changed at the first is one update at the second, one deleted one delete; a third
// instance chained after the second ends the same at every step; a cycle (the first harvesting
// the third) changes no catalog. The first harvests corpus
// catalogs (two federal agencies' of an organization each, a city's non-federal one, most of whose
// records fail validation and stay out of the feed) from an agency server.
func TestCatalogsChain(t *testing.T) {
	cftc, err := os.ReadFile(corpustest.Path(t, "dcatus/datagov-cftc.data.json"))
	require.NoError(t, err)
	city, err := os.ReadFile(corpustest.Path(t, "dcatus/city-philadelphia-with-nulls.data.json"))
	require.NoError(t, err)
	gsa, err := os.ReadFile(corpustest.Path(t, "dcatus/agency-gsa-2025-07.data.json"))
	require.NoError(t, err)
	web := &agency{docs: map[string][]byte{"/cftc.json": cftc, "/city.json": city, "/gsa.json": gsa}}
	srv := httptest.NewServer(web)
	defer srv.Close()
	ch := &chain{a: newInstance(t), b: newInstance(t), c: newInstance(t), agency: srv.URL}
	a, b := ch.a, ch.b

	first := ch.harvestA(t)
	require.Positive(t, first.Added)
	rb, rc := ch.step(t, "first harvest")
	n := len(a.live(t))
	require.Greater(t, n, 200)
	require.Equal(t, n, rb.Added)
	require.Equal(t, n, rc.Added)
	require.Zero(t, rb.Errored)

	// A re-harvest: a 304, or with the validators stripped, all unchanged.
	rb, rc = ch.step(t, "re-harvest (conditional)")
	for _, r := range []pipelinetest.Report{rb, rc} {
		require.True(t, r.NotModified || r.Unchanged == n, "%+v", r)
		require.Zero(t, r.Added+r.Updated+r.Deleted+r.Errored)
	}
	a.fresh, b.fresh = true, true
	rb, rc = ch.step(t, "re-harvest (whole document)")
	for _, r := range []pipelinetest.Report{rb, rc} {
		require.False(t, r.NotModified)
		require.Equal(t, n, r.Unchanged, "%+v", r)
		require.Zero(t, r.Added+r.Updated+r.Deleted+r.Errored)
	}
	a.fresh, b.fresh = false, false
	chainChangesAndCycle(t, ch, web, cftc, n)
}

// chain is three instances: b harvests a's /data.json, c harvests b's; a harvests the agency.
type chain struct {
	a, b, c *instance
	agency  string // the agency server's URL
}

// harvestA harvests the agency's three catalogs into a and sums their counts.
func (ch *chain) harvestA(t *testing.T) pipelinetest.Report {
	t.Helper()
	ra := ch.a.h.Harvest(t, pipelinetest.Source{URL: ch.agency + "/cftc.json", SchemaType: harvest.SchemaDCATUS11Federal,
		Organization: "Commodity Futures Trading Commission"})
	pipelinetest.MustComplete(t, ra)
	for _, src := range []pipelinetest.Source{
		{URL: ch.agency + "/city.json", SchemaType: harvest.SchemaDCATUS11NonFederal},
		{URL: ch.agency + "/gsa.json", SchemaType: harvest.SchemaDCATUS11Federal, Organization: "General Services Administration"},
	} {
		r := ch.a.h.Harvest(t, src)
		pipelinetest.MustComplete(t, r)
		ra.Added += r.Added
		ra.Updated += r.Updated
		ra.Deleted += r.Deleted
	}
	return ra
}

// step harvests b from a and c from b, and checks each found a's catalog again.
func (ch *chain) step(t *testing.T, name string) (pipelinetest.Report, pipelinetest.Report) {
	t.Helper()
	rb := ch.b.harvestFeed(t, ch.a)
	rc := ch.c.harvestFeed(t, ch.b)
	want := ch.a.live(t)
	sameCatalog(t, want, ch.b.live(t), name+": the second instance")
	sameCatalog(t, want, ch.c.live(t), name+": the third instance")
	return rb, rc
}

// chainChangesAndCycle: one change at the first is one update down the chain, one delete one
// delete; a cycle (the first harvesting the third) changes nothing. n is the live count.
func chainChangesAndCycle(t *testing.T, ch *chain, web *agency, cftc []byte, n int) {
	a, b, c := ch.a, ch.b, ch.c
	// One record changed at the first: one update down the chain.
	var doc map[string]any
	require.NoError(t, json.Unmarshal(cftc, &doc))
	ds := doc["dataset"].([]any)
	ds[0].(map[string]any)["title"] = "A title changed at the agency"
	changed, err := json.Marshal(doc)
	require.NoError(t, err)
	web.set("/cftc.json", changed)
	ra := ch.harvestA(t)
	require.Equal(t, 1, ra.Updated)
	rb, rc := ch.step(t, "one change")
	for _, r := range []pipelinetest.Report{rb, rc} {
		require.Equal(t, 1, r.Updated, "%+v", r)
		require.Equal(t, n-1, r.Unchanged)
		require.Zero(t, r.Added+r.Deleted+r.Errored)
	}

	// One record deleted at the first: one delete down the chain.
	doc["dataset"] = ds[1:]
	deleted, err := json.Marshal(doc)
	require.NoError(t, err)
	web.set("/cftc.json", deleted)
	ra = ch.harvestA(t)
	require.Equal(t, 1, ra.Deleted)
	rb, rc = ch.step(t, "one delete")
	for _, r := range []pipelinetest.Report{rb, rc} {
		require.Equal(t, 1, r.Deleted, "%+v", r)
		require.Zero(t, r.Added+r.Updated+r.Errored)
	}
	require.Len(t, c.live(t), n-1)

	// A cycle: the first harvests the third's feed, which holds its own datasets again. They are
	// held as cross-source duplicates of the sources that first published them, so the first's
	// catalog and feed do not change, and the chain after it sees nothing new.
	before := a.live(t)
	rcyc := a.harvestFeed(t, c)
	require.Equal(t, n-1, rcyc.Held, "%+v", rcyc)
	sameCatalog(t, before, a.live(t), "the first after the cycle")
	a.fresh, b.fresh = true, true
	rb, rc = ch.step(t, "after the cycle")
	for _, r := range []pipelinetest.Report{rb, rc} {
		require.Equal(t, n-1, r.Unchanged, "%+v", r)
		require.Zero(t, r.Added+r.Updated+r.Deleted+r.Errored)
	}
}
