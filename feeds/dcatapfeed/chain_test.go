package dcatapfeed_test

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/feeds/feedstest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/store"
)

// compared is what the chain must carry of a dataset, from its stored DCAT-US record.
type compared struct {
	Title, Description string
	Publisher          string
	Keywords           []string
	URLs               []string // the distributions' access and download URLs
	Modified           string   // "" when the original is no XML Schema date (an interval, a repeating duration)
}

var reXSDDateForm = regexp.MustCompile(`^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?)?)?)?$`)

func comparedOf(t *testing.T, dcatJSON []byte, original bool) compared {
	t.Helper()
	var r struct {
		Title, Description, Modified string
		Publisher                    struct{ Name string }
		Keyword                      []string
		Distribution                 []struct{ AccessURL, DownloadURL string }
	}
	require.NoError(t, json.Unmarshal(dcatJSON, &r))
	// TRANSFORM (stages/transform/dcatap) trims the literals it reads: the second catalog's
	// values are the first's without surrounding whitespace.
	c := compared{Title: strings.TrimSpace(r.Title), Description: strings.TrimSpace(r.Description), Modified: r.Modified,
		Publisher: strings.TrimSpace(r.Publisher.Name)}
	for _, k := range r.Keyword {
		if k = strings.TrimSpace(k); k != "" {
			c.Keywords = append(c.Keywords, k)
		}
	}
	sort.Strings(c.Keywords)
	c.Keywords = slices.Compact(c.Keywords)
	for _, d := range r.Distribution {
		for _, u := range []string{d.AccessURL, d.DownloadURL} {
			if u = strings.TrimSpace(u); u != "" {
				c.URLs = append(c.URLs, u)
			}
		}
	}
	sort.Strings(c.URLs)
	c.URLs = slices.Compact(c.URLs)
	if original && !reXSDDateForm.MatchString(c.Modified) {
		c.Modified = ""
	}
	return c
}

// liveByOriginal returns a store's live datasets and series (not data services and catalog
// records, which a DCAT-AP harvester does not take as datasets) by the original identifier: for a dataset
// harvested from a DCAT-AP feed, the dct:identifier its stored graph gives the dataset IRI;
// else its identifier.
func liveByOriginal(t *testing.T, st store.Store) map[string]*store.LiveDataset {
	t.Helper()
	out := map[string]*store.LiveDataset{}
	for _, ds := range feedstest.Live(t, st) {
		if ds.RecordType == harvest.RecordTypeDataService || ds.RecordType == harvest.RecordTypeCatalogRecord {
			continue // served (dcat:DataService, dcat:CatalogRecord), but not harvested as datasets
		}
		key := ds.Identifier
		if ds.SourceType == string(harvest.SourceRDF) {
			rec, err := st.RecordGet(t.Context(), ds.RecordID)
			require.NoError(t, err)
			var ids []string
			require.NoError(t, rdf.ParseRecord(bytes.NewReader([]byte(rec.SourceRaw)), func(tr rdf.Triple) error {
				if tr.S.Value == ds.Identifier && tr.P.Value == dct+"identifier" {
					ids = append(ids, tr.O.Value)
				}
				return nil
			}))
			if len(ids) == 1 {
				key = ids[0]
			}
		}
		require.NotContains(t, out, key, "one live dataset per original identifier")
		out[key] = ds
	}
	return out
}

// requireCarried requires every live dataset of first to be in next, found by its original
// identifier, with the same title, description, publisher, keywords, distribution URLs and (where the
// original is an XML Schema date) modified date, and next to have nothing else.
func requireCarried(t *testing.T, first, next store.Store, what string) {
	t.Helper()
	a, b := liveByOriginal(t, first), liveByOriginal(t, next)
	require.NotEmpty(t, a)
	var aKeys, bKeys []string
	for k := range a {
		aKeys = append(aKeys, k)
	}
	for k := range b {
		bKeys = append(bKeys, k)
	}
	sort.Strings(aKeys)
	sort.Strings(bKeys)
	require.Equal(t, aKeys, bKeys, "%s: the same datasets by original identifier", what)
	dates := 0
	for k, ds := range a {
		want := comparedOf(t, ds.DCAT, true)
		got := comparedOf(t, b[k].DCAT, false)
		if want.Publisher == "" {
			got.Publisher = "" // the harvester of a feed names the catalog's publisher for a dataset without one
		}
		if want.Modified == "" {
			got.Modified = ""
		} else {
			dates++
		}
		require.Equal(t, want, got, "%s: dataset %q", what, k)
	}
	require.Positive(t, dates, "some modified dates were compared")
}

// requireCounts requires a job's added, updated and deleted counts (and no error).
func requireCounts(t *testing.T, rep pipelinetest.Report, added, updated, deleted int, what string) {
	t.Helper()
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, [4]int{added, updated, deleted, 0}, [4]int{rep.Added, rep.Updated, rep.Deleted, rep.Errored},
		"%s: added, updated, deleted, errored (%+v)", what, rep.Counts)
}

// TestCatalogsChain: a second Harvester harvests the first's DCAT-AP feed as an rdf source,
// paged by hydra:next, and finds every live dataset of the first again by the original
// identifier the feed carries, with equal titles, descriptions, keywords, distribution URLs
// and modified dates; a third harvests the second's feed and ends the same. A re-harvest is
// all unchanged, one record changed at the first is one update down the chain, one deleted is
// one delete. The first is seeded by real harvests of corpus data.json catalogs (DCAT-US 1.1,
// and 3.0 with a data service, catalog records and a series, which the feed serves but a DCAT-AP
// harvester takes only the datasets and series of) and of a DCAT-AP catalog (served on from its
// harvested graph).
func TestCatalogsChain(t *testing.T) {
	site := pipelinetest.NewSite(t)
	h1, h2, h3 := pipelinetest.New(t), pipelinetest.New(t), pipelinetest.New(t)
	read := func(name string) []byte {
		b, err := os.ReadFile(corpustest.Path(t, name))
		require.NoError(t, err)
		return b
	}
	files := []string{"datagov-cftc.data.json", "agency-cfpb-2025-07.data.json", "datajson-collection-2-parents-4-children.data.json"}
	for _, f := range files {
		site.Serve(site.URL+"/"+f, "application/json", read("dcatus/"+f))
		pipelinetest.MustComplete(t, h1.Harvest(t, pipelinetest.Source{URL: site.URL + "/" + f, SchemaType: pipelinetest.Federal,
			Organization: "Agencies"}))
	}
	for _, f := range []string{"dcatus3-with-services.json", "dcatus3-with-records.json", "dcatus3-series-with-members.json"} {
		site.Serve(site.URL+"/"+f, "application/json", read("dcatus/"+f))
		pipelinetest.MustComplete(t, h1.Harvest(t, pipelinetest.Source{URL: site.URL + "/" + f, SchemaType: harvest.SchemaDCATUS30,
			Organization: "DCAT-US 3.0 agencies"}))
	}
	site.ServeCorpus(t, "http://hvd.test/catalogue.ttl", "text/turtle", "dcatap/semic-hvd-3.0-ms-catalogue.ttl")
	hvd := h1.HarvestRDF(t, site, pipelinetest.Source{URL: "http://hvd.test/catalogue.ttl", Organization: "Member State"})
	pipelinetest.MustComplete(t, hvd)
	require.Positive(t, hvd.Added)

	feed1 := feedServer(t, h1.Store, feeds.Catalog{Title: "First catalog"})
	feed2 := feedServer(t, h2.Store, feeds.Catalog{Title: "Second catalog"})
	// Small pages, so that both harvests follow hydra:next through many pages.
	src2 := pipelinetest.Source{URL: feed1.URL + "/catalog.ttl?page_size=7", SourceType: harvest.SourceRDF,
		SchemaType: harvest.SchemaDCATAP, Organization: "First"}
	src3 := pipelinetest.Source{URL: feed2.URL + "/catalog.rdf?page_size=9", SourceType: harvest.SourceRDF,
		SchemaType: harvest.SchemaDCATAP, Organization: "Second"}
	live1 := len(liveByOriginal(t, h1.Store))
	require.Greater(t, live1, 14, "several pages")

	rep := h2.Harvest(t, src2)
	requireCounts(t, rep, live1, 0, 0, "second, first harvest")
	requireCarried(t, h1.Store, h2.Store, "second")
	rep = h3.Harvest(t, src3)
	requireCounts(t, rep, live1, 0, 0, "third, first harvest")
	requireCarried(t, h1.Store, h3.Store, "third")

	requireCounts(t, h2.Harvest(t, src2), 0, 0, 0, "second, re-harvest")
	requireCounts(t, h3.Harvest(t, src3), 0, 0, 0, "third, re-harvest")

	// One record changed at the first.
	var doc map[string]any
	require.NoError(t, json.Unmarshal(read("dcatus/"+files[0]), &doc))
	datasets := doc["dataset"].([]any)
	datasets[0].(map[string]any)["title"] = "A changed title"
	changed, err := json.Marshal(doc)
	require.NoError(t, err)
	site.Serve(site.URL+"/"+files[0], "application/json", changed)
	requireCounts(t, h1.Harvest(t, pipelinetest.Source{URL: site.URL + "/" + files[0], SchemaType: pipelinetest.Federal,
		Organization: "Agencies"}), 0, 1, 0, "first, one change")
	requireCounts(t, h2.Harvest(t, src2), 0, 1, 0, "second, one change")
	requireCounts(t, h3.Harvest(t, src3), 0, 1, 0, "third, one change")
	requireCarried(t, h1.Store, h3.Store, "third after a change")

	// One record deleted at the first.
	doc["dataset"] = datasets[1:]
	deleted, err := json.Marshal(doc)
	require.NoError(t, err)
	site.Serve(site.URL+"/"+files[0], "application/json", deleted)
	requireCounts(t, h1.Harvest(t, pipelinetest.Source{URL: site.URL + "/" + files[0], SchemaType: pipelinetest.Federal,
		Organization: "Agencies"}), 0, 0, 1, "first, one delete")
	requireCounts(t, h2.Harvest(t, src2), 0, 0, 1, "second, one delete")
	requireCounts(t, h3.Harvest(t, src3), 0, 0, 1, "third, one delete")
	requireCarried(t, h1.Store, h2.Store, "second at the end")
	requireCarried(t, h1.Store, h3.Store, "third at the end")
}
