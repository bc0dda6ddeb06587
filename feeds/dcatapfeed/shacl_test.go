package dcatapfeed_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/feeds"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl"
	"github.com/harvester-dev/harvester/shacl/profiles"
	"github.com/harvester-dev/harvester/store"
)

// shaclJob and shaclSpec are shacl/profiles/testdata/pyshacl_run.py's input.
type shaclJob struct {
	ID      string `json:"id"`
	Profile string `json:"profile"`
	Data    string `json:"data"`
}

type shaclResult struct {
	Focus      string `json:"focus"`
	Path       string `json:"path"`
	Severity   string `json:"severity"`
	Constraint string `json:"constraint"`
}

type shaclReport struct {
	Conforms bool          `json:"conforms"`
	Results  []shaclResult `json:"results"`
}

// validateBoth validates each graph (by id) against profile with our engine and with pySHACL
// and returns both verdicts; a test then compares them.
func validateBoth(t *testing.T, py, profile string, graphs map[string][]rdf.Triple) (ours map[string]*shacl.Report, theirs map[string]shaclReport) {
	t.Helper()
	shapes, err := profiles.Load(profile)
	require.NoError(t, err)
	dir := t.TempDir()
	spec := struct {
		Shapes map[string][]string `json:"shapes"`
		Jobs   []shaclJob          `json:"jobs"`
	}{Shapes: map[string][]string{}}
	abs, err := filepath.Abs("../../shacl/profiles")
	require.NoError(t, err)
	for _, f := range profiles.Files[profile] {
		spec.Shapes[profile] = append(spec.Shapes[profile], filepath.Join(abs, f))
	}
	ours = map[string]*shacl.Report{}
	i := 0
	for id, ts := range graphs {
		var b strings.Builder
		g := rdf.NewMemGraph()
		for _, tr := range ts {
			b.WriteString(tr.NTriples())
			b.WriteByte('\n')
			require.NoError(t, g.Add(tr))
		}
		i++
		spec.Jobs = append(spec.Jobs, shaclJob{ID: id, Profile: profile, Data: writeTemp(t, dir, "g"+strings.Repeat("x", i)+".nt", []byte(b.String()))})
		ours[id] = shapes.Validate(g)
	}
	in, err := json.Marshal(spec)
	require.NoError(t, err)
	cmd := exec.Command(py, filepath.Join(abs, "testdata", "pyshacl_run.py"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "pyshacl: %s", stderr.String())
	require.NoError(t, json.Unmarshal(out, &theirs))
	return ours, theirs
}

// resultLines are a report's results as "focus | path | severity | constraint", sorted.
func resultLines(r *shacl.Report) []string {
	var out []string
	for _, x := range r.Results {
		out = append(out, strings.Join([]string{x.Focus.NTriples(), x.Path, x.Severity.String(), x.Constraint, x.Message}, " | "))
	}
	sort.Strings(out)
	return out
}

// TestMappedGraphsConformToDCATAP3: the graphs the feed maps from DCAT-US (every corpus
// data.json that is valid DCAT-US 1.1, whole pages with the catalog, its records and the
// datasets, and each dataset's own document) conform to the DCAT-AP 3.0.0 SHACL shapes, by
// our engine and by pySHACL, which agree. Both stores.
func TestMappedGraphsConformToDCATAP3(t *testing.T) {
	py := python(t)
	backends(t, func(t *testing.T, st store.Store) {
		files := []string{"datagov-cftc.data.json", "agency-cfpb-2025-07.data.json", "datajson-collection-2-parents-4-children.data.json",
			"dcatus3-catalog.json"}
		var slugs []string
		for _, f := range files {
			seedCorpus(t, st, f)
		}
		srv := feedServer(t, st, feeds.Catalog{Title: "SHACL catalog", Publisher: "Tester", License: "https://creativecommons.org/publicdomain/zero/1.0/"})
		graphs := map[string][]rdf.Triple{}
		for i, p := range walk(t, srv.URL+"/catalog.ttl?page_size=100", 1000) {
			graphs["page "+string(rune('1'+i))] = p.triples
		}
		require.NotEmpty(t, graphs)
		page, err := st.DatasetPage(t.Context(), &store.DatasetPageParams{Limit: 20})
		require.NoError(t, err)
		for _, ds := range page {
			slugs = append(slugs, ds.Slug)
		}
		for _, slug := range slugs {
			resp, body := get(t, srv.URL+"/dataset/"+slug+".ttl", "")
			require.Equal(t, 200, resp.StatusCode, slug)
			graphs["dataset "+slug] = parse(t, body, rdf.Turtle, srv.URL)
		}
		ours, theirs := validateBoth(t, py, profiles.DCATAP300, graphs)
		for id, r := range ours {
			require.True(t, r.Conforms, "%s does not conform (ours):\n%s", id, strings.Join(firstN(resultLines(r), 20), "\n"))
			require.True(t, theirs[id].Conforms, "%s does not conform (pySHACL): %+v", id, firstN(theirs[id].Results, 20))
			require.Empty(t, theirs[id].Results, id)
		}
	})
}

func firstN[T any](s []T, n int) []T {
	if len(s) > n {
		return s[:n]
	}
	return s
}
