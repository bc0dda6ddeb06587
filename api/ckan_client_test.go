package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/internal/testenv"
)

// ckanapiPython is the interpreter of the venv with ckanapi (PyPI): HARVESTER_TEST_PYTHON,
// which scripts/services.sh sets. In CI its absence fails the test; elsewhere it skips.
func ckanapiPython(t *testing.T) string {
	t.Helper()
	p := os.Getenv("HARVESTER_TEST_PYTHON")
	if p == "" {
		testenv.Missing(t, "HARVESTER_TEST_PYTHON is not set: eval \"$(scripts/services.sh)\" makes a venv with ckanapi; the CKAN client test does not run")
	}
	if err := exec.Command(p, "-c", "import ckanapi").Run(); err != nil {
		testenv.Missing(t, fmt.Sprintf("%s cannot import ckanapi (%v): the CKAN client test does not run", p, err))
	}
	return p
}

// ckanapiScript drives ckanapi's RemoteCKAN (its own calls: POST JSON to /api/action/<name>)
// against the catalog at argv[1] and prints what it got as JSON.
const ckanapiScript = `
import json, sys
import ckanapi
ck = ckanapi.RemoteCKAN(sys.argv[1], user_agent="harvester-test")
out = {}
out["search"] = ck.action.package_search(q="survey", fq='tags:"odd"', rows=100, **{"facet.field": ["organization"]})
names, start = [], 0
while True:
    page = ck.action.package_search(rows=7, start=start)
    names += [p["name"] for p in page["results"]]
    start += 7
    if start >= page["count"]:
        break
out["paged"], out["count"] = names, page["count"]
out["show"] = ck.action.package_show(id=names[0])
out["orgs"] = ck.action.organization_list(all_fields=True)
out["org_names"] = ck.action.organization_list()
out["status"] = ck.action.status_show()
try:
    ck.action.package_show(id="no-such-dataset")
except ckanapi.NotFound as e:
    out["not_found"] = str(e)
try:
    ck.action.package_search(fq='tags:"odd')
except ckanapi.SearchQueryError as e:
    out["search_query_error"] = str(e)
try:
    ck.action.package_search(rows="many")
except ckanapi.ValidationError as e:
    out["validation_error"] = e.args[0]
print(json.dumps(out))
`

// TestCKANAPIClient: ckanapi (from PyPI) runs package_search (with q and fq, and paged by
// start and rows), package_show, organization_list and status_show against Harvester and gets
// the catalog's datasets; its errors come back as ckanapi's own exceptions (NotFound,
// SearchQueryError, ValidationError); and "ckanapi dump datasets --all" (package_list, then
// package_show for each name) dumps every live dataset, package_list streaming several store
// pages.
func TestCKANAPIClient(t *testing.T) {
	t.Parallel()
	python := ckanapiPython(t)
	ckanBackends(t, func(t *testing.T, b *testBundle) {
		c := ckanSeed(t, b)
		b.api.ckanCursors.pageSize = 5 // package_list streams 5 store pages
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(t.Context(), python, "-c", ckanapiScript, b.url)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "stderr: %s", stderr.String())
		var got struct {
			Search struct {
				Count        int
				Results      []struct{ Name, Title string }
				SearchFacets map[string]struct{ Items []struct{ Name string } } `json:"search_facets"`
			}
			Paged []string
			Count int
			Show  map[string]any
			Orgs  []struct {
				Name, Title  string
				PackageCount int `json:"package_count"`
			}
			OrgNames         []string `json:"org_names"`
			Status           map[string]any
			NotFound         string         `json:"not_found"`
			SearchQueryError string         `json:"search_query_error"`
			ValidationError  map[string]any `json:"validation_error"`
		}
		require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), "%s", stdout.String())

		var slugs []string
		for _, d := range c.live {
			slugs = append(slugs, d.Slug)
		}
		require.Equal(t, 10, got.Search.Count)
		require.Len(t, got.Search.Results, 10)
		require.Len(t, got.Search.SearchFacets["organization"].Items, 2)
		require.Equal(t, len(c.live), got.Count)
		require.Equal(t, slugs, got.Paged, "start/rows pages give every live dataset once")
		require.Equal(t, slugs[0], got.Show["name"])
		require.Equal(t, c.live[0].ID, got.Show["id"])
		require.Equal(t, []string{"agency-a", "agency-b"}, got.OrgNames)
		require.Len(t, got.Orgs, 2)
		require.Equal(t, 13, got.Orgs[0].PackageCount)
		require.Equal(t, "2.10.5", got.Status["ckan_version"])
		require.NotEmpty(t, got.NotFound)
		require.Contains(t, got.SearchQueryError, `'tags:"odd'`)
		require.Equal(t, []any{"Invalid integer"}, got.ValidationError["rows"])

		// ckanapi's own bulk dump: package_list, then package_show for each name, in worker
		// processes (which it starts from its own command).
		out := filepath.Join(t.TempDir(), "datasets.jsonl")
		dump := exec.CommandContext(t.Context(), filepath.Join(filepath.Dir(python), "ckanapi"), "dump", "datasets", "--all",
			"-q", "-O", out, "-r", b.url)
		dump.Env = append(os.Environ(), "PATH="+filepath.Dir(python)+string(os.PathListSeparator)+os.Getenv("PATH"))
		msg, err := dump.CombinedOutput()
		require.NoError(t, err, "%s", msg)
		data, err := os.ReadFile(out)
		require.NoError(t, err)
		var dumped []string
		for line := range strings.Lines(string(data)) {
			var p struct{ ID, Name string }
			require.NoError(t, json.Unmarshal([]byte(line), &p))
			dumped = append(dumped, p.Name)
		}
		slices.Sort(dumped)
		want := slices.Clone(slugs)
		slices.Sort(want)
		require.Equal(t, want, dumped, "the dump holds every live dataset, the held one left out")
	})
}
