package validate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// Issue 26 item 7: a DCAT-AP record whose SHACL report has findings that do not fail it is
// added, and its findings are ValidationWarning rows of severity warning; the rows of severity
// error (if any) are ValidationError. semic-2.1.1-example1.nt under DCAT-AP 3.0.0 has range
// findings that only warn.
func TestRDFSHACLWarningsAreWarnings(t *testing.T) {
	t.Parallel()
	h := pipelinetest.New(t)
	site := pipelinetest.NewSite(t)
	const url = "http://warnings.test/catalog.nt"
	site.ServeCorpus(t, url, "application/n-triples", "dcatap/semic-2.1.1-example1.nt")
	rep := h.HarvestRDF(t, site, pipelinetest.Source{URL: url, Options: map[string]string{"shacl_profile": "dcat-ap-3.0.0"}})
	pipelinetest.MustComplete(t, rep)
	require.Positive(t, rep.Added)
	require.Positive(t, rep.Warned)
	warnings := 0
	require.NoError(t, h.Store.RecordErrorStream(t.Context(), rep.JobID, func(e *store.RecordError) error {
		want := harvest.TypeValidationError
		if e.Severity == harvest.SeverityWarning {
			want = harvest.TypeValidationWarning
			warnings++
		}
		require.Equal(t, want, e.Type, e.Message)
		return nil
	}))
	require.Positive(t, warnings)
}
