package compare_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// Issue 25 item 26: a source's shacl_profile is part of what makes a record unchanged. A
// dataset without dct:description passes with no profile, fails DCAT-AP 3.0.0 once the source
// moves to it (stricter: the error appears, the live dataset is kept), and passes again when
// the source moves back (looser: the error goes away). A dataset valid under every profile is
// validated again at each change and stays unchanged: its dataset row is not rewritten. Before
// the fix the graph's fingerprint made each job after the first "not modified", whatever the
// profile.
func TestRDFProfileChangeRevalidates(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	site := pipelinetest.NewSite(t)
	const url = "http://profile.test/catalog.ttl"
	profile := func(name string) pipelinetest.Source {
		return pipelinetest.Source{URL: url, Options: map[string]string{"shacl_profile": name}}
	}
	const lacking, valid = "http://profile.test/dataset/1", "http://profile.test/dataset/2"
	site.Serve(url, "text/turtle", []byte(`@prefix dcat: <http://www.w3.org/ns/dcat#> .
@prefix dct: <http://purl.org/dc/terms/> .
<http://profile.test/catalog> a dcat:Catalog ; dct:title "C"@en ; dct:description "Catalog"@en ;
	dct:publisher <http://profile.test/org> ; dcat:dataset <`+lacking+`>, <`+valid+`> .
<`+lacking+`> a dcat:Dataset ; dct:title "No description"@en .
<`+valid+`> a dcat:Dataset ; dct:title "Described"@en ; dct:description "A dataset"@en .
`))
	validationErrors := func(jobID string) []string {
		t.Helper()
		return h.ErrorMessages(t, jobID, harvest.SeverityError)
	}
	counts := func(r pipelinetest.Report) [4]int { return [4]int{r.Added, r.Updated, r.Unchanged, r.Errored} }

	loose := h.HarvestRDF(t, site, profile("none"))
	pipelinetest.MustComplete(t, loose)
	require.Equal(t, [4]int{2, 0, 0, 0}, counts(loose))

	strict := h.HarvestRDF(t, site, profile("dcat-ap-3.0.0"))
	pipelinetest.MustComplete(t, strict)
	require.Equal(t, [4]int{0, 0, 1, 1}, counts(strict), "both are validated again; one fails")
	require.Equal(t, 1, strict.Validated)
	require.Contains(t, strings.Join(validationErrors(strict.JobID), "\n"), lacking+" dct:description")
	require.Equal(t, []string{lacking, valid}, h.LiveIdentifiers(t, strict.SourceID), "an invalid record deletes nothing")

	again := h.HarvestRDF(t, site, profile("dcat-ap-3.0.0"))
	pipelinetest.MustComplete(t, again)
	require.Equal(t, [4]int{0, 0, 1, 1}, counts(again), "same profile: errored still, not checked again")
	require.Contains(t, strings.Join(validationErrors(again.JobID), "\n"), "dct:description", "its rows are carried")

	back := h.HarvestRDF(t, site, profile("none"))
	pipelinetest.MustComplete(t, back)
	require.Equal(t, [4]int{0, 1, 1, 0}, counts(back), "the dataset without a description passes again")
	require.Empty(t, validationErrors(back.JobID))

	same := h.HarvestRDF(t, site, profile("none"))
	pipelinetest.MustComplete(t, same)
	require.Equal(t, [4]int{0, 0, 2, 0}, counts(same))

	other := h.HarvestRDF(t, site, profile("dcat-ap-2.1.1"))
	pipelinetest.MustComplete(t, other)
	require.Equal(t, [4]int{0, 0, 1, 1}, counts(other), "DCAT-AP 2.1.1 wants a description too")
	require.Contains(t, strings.Join(validationErrors(other.JobID), "\n"), lacking+" dct:description")

	ds, err := h.Store.DatasetGet(t.Context(), &store.DatasetGetParams{SourceID: loose.SourceID, Identifier: valid})
	require.NoError(t, err)
	require.Equal(t, harvest.RecordID(loose.JobID, valid), ds.RecordID, "the valid dataset was never rewritten")
}
