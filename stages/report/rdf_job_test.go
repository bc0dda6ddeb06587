package report_test

import (
	"bytes"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
)

// event is the report event of a finished job; the test fails without one.
func event(t *testing.T, rep pipelinetest.Report) *harvest.Report {
	t.Helper()
	require.NotNil(t, rep.Event, "a report event for job %s", rep.JobID)
	return rep.Event
}

// uris are the sorted URIs of rs.
func uris(rs []harvest.Resource) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.URI)
	}
	sort.Strings(out)
	return out
}

// Acceptance 5: FDK's own fixtures, in FDK's order.
func TestRDFFDKFixtures(t *testing.T) {
	t.Parallel()
	h, site := pipelinetest.New(t), pipelinetest.NewSite(t)
	h.ReportWait = 5 * time.Minute // a failsafe: every job here has its report event
	const url = "http://fdk.test/harvest"
	const dataset0, datasetNew = "https://testdirektoratet.no/model/dataset/0", "https://testdirektoratet.no/model/dataset/new"
	const catalog0 = "https://testdirektoratet.no/model/dataset-catalog/0"
	// FDK's fixtures are not valid DCAT-AP (their datasets have no dct:description), and FDK's
	// harvester does not validate: harvest them as FDK does.
	fdk := map[string]string{"shacl_profile": "none"}

	site.ServeCorpus(t, url, "text/turtle", "dcatap/fdk-harvest-response-0.ttl")
	first := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, Options: fdk})
	pipelinetest.MustComplete(t, first)
	require.Equal(t, 1, first.Added, "dataset/0")
	require.Equal(t, 1, first.Errored, "the blank-node dataset is an error row")
	require.Equal(t, []string{dataset0}, h.LiveIdentifiers(t, first.SourceID))
	rows := h.ErrorMessages(t, first.JobID, harvest.SeverityError)
	require.Len(t, rows, 1, "one error row (and dataset/0's transform warnings)")
	require.Contains(t, rows[0], "blank node")
	ev := event(t, first)
	require.Equal(t, first.SourceID, ev.ID, "id names the source, as in FDK's report")
	require.Equal(t, []string{dataset0}, uris(ev.ChangedResources))

	// The catalog alone changes (its title): dataset/0 is unchanged, catalog/0 changed.
	baseline, err := os.ReadFile(corpustest.Path(t, "dcatap/fdk-harvest-response-0.ttl"))
	require.NoError(t, err)
	retitled := bytes.Replace(baseline, []byte(`"Datasettkatalog for Testdirektoratet"@nb`), []byte(`"Datasettkatalog"@nb`), 1)
	require.NotEqual(t, baseline, retitled)
	site.Serve(url, "text/turtle", retitled)
	diff := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
	pipelinetest.MustComplete(t, diff)
	require.Equal(t, 1, diff.Unchanged, "dataset/0 is unchanged")
	require.Zero(t, diff.Added+diff.Updated+diff.Deleted)
	ev = event(t, diff)
	require.Equal(t, []string{catalog0}, uris(ev.ChangedCatalogs))
	require.Empty(t, ev.ChangedResources)

	// FDK's catalog-diff fixture changes the catalog too, and also turns dataset/0's
	// distribution's access service from a blank node into a (relative) IRI: that is in
	// dataset/0's graph, so dataset/0 is updated (FDK's own closure rule says the same).
	site.ServeCorpus(t, url, "text/turtle", "dcatap/fdk-harvest-response-0-catalog-diff.ttl")
	diff = h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
	pipelinetest.MustComplete(t, diff)
	require.Equal(t, 1, diff.Updated, "dataset/0's access service is another node")
	ev = event(t, diff)
	require.Equal(t, []string{catalog0}, uris(ev.ChangedCatalogs), "a dataset inside it changed (FDK's catalog graph has it)")
	require.Equal(t, []string{dataset0}, uris(ev.ChangedResources))

	site.ServeCorpus(t, url, "text/turtle", "dcatap/fdk-harvest-response-0-old-dataset-removed.ttl")
	// The source has one live dataset: deleting it is the whole source, over the default share.
	h.Config.MaxDeleteShare = 1
	removed := h.HarvestRDF(t, site, pipelinetest.Source{URL: url})
	pipelinetest.MustComplete(t, removed)
	require.Equal(t, 1, removed.Deleted)
	require.Equal(t, 1, removed.Added)
	require.Equal(t, []string{datasetNew}, h.LiveIdentifiers(t, first.SourceID))
	ev = event(t, removed)
	require.Equal(t, []string{dataset0}, uris(ev.RemovedResources))
	require.Equal(t, []string{datasetNew}, uris(ev.ChangedResources))
	for _, r := range append(ev.RemovedResources, ev.ChangedResources...) {
		require.Equal(t, harvest.FdkID(r.URI), r.FdkID, "fdkId is FDK's name-based UUID of the IRI")
	}
}
