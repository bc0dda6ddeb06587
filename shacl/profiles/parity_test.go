package profiles_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/internal/testenv"
	"github.com/harvester-dev/harvester/rdf"
	"github.com/harvester-dev/harvester/shacl"
	"github.com/harvester-dev/harvester/shacl/profiles"
)

const dcatNS = "http://www.w3.org/ns/dcat#"

// corpusGraph is one data graph of the parity test: a whole corpus file, or one dataset record
// of it (the dataset and everything reachable from it).
type corpusGraph struct {
	name    string
	triples []rdf.Triple
}

// formatOf is the rdf.Format of a corpus file by its extension.
func formatOf(name string) rdf.Format {
	switch filepath.Ext(name) {
	case ".ttl":
		return rdf.Turtle
	case ".nt":
		return rdf.NTriples
	case ".nq":
		return rdf.NQuads
	case ".rdf":
		return rdf.RDFXML
	case ".jsonld":
		return rdf.JSONLD
	}
	return ""
}

// corpusGraphs parses every dcatap/ corpus file that rdf.Parse can read (INVALID- files do not
// parse by design) and returns each whole file and each of its dataset records. Files in a
// syntax rdf.Parse does not support yet are listed in skipped.
func corpusGraphs(t testing.TB) (graphs []corpusGraph, skipped []string) {
	files, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "dcatap", "*"))
	require.NoError(t, err)
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasPrefix(name, "INVALID-") {
			continue
		}
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var ts []rdf.Triple
		err = rdf.Parse(bytes.NewReader(b), formatOf(name), "http://example.org/corpus/"+name, func(tr rdf.Triple) error {
			ts = append(ts, tr)
			return nil
		})
		if err != nil {
			skipped = append(skipped, fmt.Sprintf("%s (%v)", name, err))
			continue
		}
		g := rdf.NewMemGraph()
		for _, tr := range ts {
			require.NoError(t, g.Add(tr))
		}
		graphs = append(graphs, corpusGraph{name: name, triples: ts})
		var datasets []rdf.Term
		_ = g.Match(rdf.Term{}, rdf.IRI(rdf.RDFType), rdf.IRI(dcatNS+"Dataset"), func(tr rdf.Triple) error {
			datasets = append(datasets, tr.S)
			return nil
		})
		for _, d := range datasets {
			graphs = append(graphs, corpusGraph{name: name + "#" + d.NTriples(), triples: closure(g, d)})
		}
	}
	return graphs, skipped
}

// closure is root's record graph for now (until dcatap.Split is used here): the triples of root
// and of every node reachable from it, not entering other catalogs or datasets.
func closure(g rdf.Graph, root rdf.Term) []rdf.Triple {
	stop := func(n rdf.Term) bool {
		found := false
		for _, c := range []string{"Catalog", "Dataset"} {
			_ = g.Match(n, rdf.IRI(rdf.RDFType), rdf.IRI(dcatNS+c), func(rdf.Triple) error { found = true; return nil })
		}
		return found
	}
	seen := map[rdf.Term]bool{root: true}
	todo := []rdf.Term{root}
	var out []rdf.Triple
	for len(todo) > 0 {
		n := todo[0]
		todo = todo[1:]
		_ = g.Match(n, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
			out = append(out, tr)
			if !tr.O.IsLiteral() && !seen[tr.O] && !stop(tr.O) {
				seen[tr.O] = true
				todo = append(todo, tr.O)
			}
			return nil
		})
	}
	return out
}

type pyResult struct {
	Focus      string `json:"focus"`
	Path       string `json:"path"`
	Severity   string `json:"severity"`
	Constraint string `json:"constraint"`
}

type pyReport struct {
	Conforms bool       `json:"conforms"`
	Results  []pyResult `json:"results"`
}

// componentParameter maps pySHACL's sh:sourceConstraintComponent to our Constraint name.
func componentParameter(iri string) string {
	name := strings.TrimSuffix(strings.TrimPrefix(iri, shacl.NS), "ConstraintComponent")
	switch name {
	case "QualifiedMinCount", "QualifiedMaxCount":
		return "sh:qualifiedValueShape"
	}
	if name == "" {
		return iri
	}
	return "sh:" + strings.ToLower(name[:1]) + name[1:]
}

// python is the interpreter with pyshacl: HARVESTER_TEST_PYTHON (scripts/services.sh sets it).
// In CI (CI=true) its absence fails the test; elsewhere the test skips, saying why.
func python(t *testing.T) string {
	t.Helper()
	p := os.Getenv("HARVESTER_TEST_PYTHON")
	if p == "" {
		testenv.Missing(t, "HARVESTER_TEST_PYTHON is not set: eval \"$(scripts/services.sh)\" makes a venv with pyshacl; pySHACL parity not checked")
	}
	if err := exec.Command(p, "-c", "import pyshacl").Run(); err != nil {
		testenv.Missing(t, fmt.Sprintf("%s cannot import pyshacl (%v): pySHACL parity not checked", p, err))
	}
	return p
}

// TestPySHACLParity validates every corpus record graph (each whole dcatap/ file and each of its
// dataset records) with every profile, here and with pySHACL, and requires the same verdict and
// the same set of (focus node, path, severity, constraint) results.
func TestPySHACLParity(t *testing.T) {
	py := python(t)
	graphs, skipped := corpusGraphs(t)
	for _, s := range skipped {
		t.Logf("not in the parity set (rdf.Parse cannot read it yet): %s", s)
	}
	require.NotEmpty(t, graphs)

	dir := t.TempDir()
	spec := pySpec{Shapes: map[string][]string{}}
	ours := map[string]*shacl.Report{}
	var loaded []string
	for _, name := range profiles.Names() {
		shapes, err := profiles.Load(name)
		if err != nil && name == profiles.DCATAPNO2 {
			t.Log(err)
			continue
		}
		require.NoError(t, err, "profile %s", name)
		loaded = append(loaded, name)
		for _, f := range profiles.Files[name] {
			spec.Shapes[name] = append(spec.Shapes[name], filepath.Join(mustAbs(t, "."), f))
		}
		for i, g := range graphs {
			data := filepath.Join(dir, fmt.Sprintf("g%d.nt", i))
			if name == loaded[0] {
				var b strings.Builder
				for _, tr := range g.triples {
					b.WriteString(tr.NTriples())
					b.WriteByte('\n')
				}
				require.NoError(t, os.WriteFile(data, []byte(b.String()), 0o644))
			}
			id := name + " " + g.name
			spec.Jobs = append(spec.Jobs, pyJob{ID: id, Profile: name, Data: data})
			mg := rdf.NewMemGraph()
			for _, tr := range g.triples {
				require.NoError(t, mg.Add(tr))
			}
			ours[id] = shapes.Validate(mg)
		}
	}
	failing := compareWithPySHACL(t, ours, runPySHACL(t, py, spec))
	t.Logf("%d graphs x %d profiles compared with pySHACL; %d do not conform", len(graphs), len(loaded), failing)
}

// pyJob is one validation pyshacl_run.py does: a data graph (an N-Triples file) against a
// profile's shapes; pySpec is its input, with the shape files of each profile.
type pyJob struct {
	ID      string `json:"id"`
	Profile string `json:"profile"`
	Data    string `json:"data"`
}

type pySpec struct {
	Shapes map[string][]string `json:"shapes"`
	Jobs   []pyJob             `json:"jobs"`
}

// runPySHACL runs spec's validations with pySHACL (testdata/pyshacl_run.py on interpreter py)
// and returns its reports by job id.
func runPySHACL(t *testing.T, py string, spec pySpec) map[string]pyReport {
	t.Helper()
	in, err := json.Marshal(spec)
	require.NoError(t, err)
	cmd := exec.Command(py, "testdata/pyshacl_run.py")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "pyshacl: %s", stderr.String())
	var theirs map[string]pyReport
	require.NoError(t, json.Unmarshal(out, &theirs))
	return theirs
}

// compareWithPySHACL requires each of our reports to have pySHACL's verdict and the same set of
// (focus node, path, severity, constraint) results, and returns how many do not conform.
func compareWithPySHACL(t *testing.T, ours map[string]*shacl.Report, theirs map[string]pyReport) (failing int) {
	t.Helper()
	ids := make([]string, 0, len(ours))
	for id := range ours {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		our, their := ours[id], theirs[id]
		want := map[string]bool{}
		for _, r := range their.Results {
			want[strings.Join([]string{r.Focus, r.Path, r.Severity, componentParameter(r.Constraint)}, " | ")] = true
		}
		got := map[string]bool{}
		for _, r := range our.Results {
			got[strings.Join([]string{termKey(r.Focus), r.Path, r.Severity.String(), r.Constraint}, " | ")] = true
		}
		if !our.Conforms {
			failing++
		}
		if our.Conforms != their.Conforms || !equalSets(got, want) {
			t.Errorf("%s: conforms ours %v pySHACL %v\n  only ours:\n    %s\n  only pySHACL:\n    %s", id, our.Conforms, their.Conforms,
				strings.Join(minus(got, want), "\n    "), strings.Join(minus(want, got), "\n    "))
		}
	}
	return failing
}

// termKey is the term as pyshacl_run.py keys it.
func termKey(t rdf.Term) string {
	kind := map[rdf.TermKind]string{rdf.KindIRI: "I", rdf.KindBlank: "B", rdf.KindLiteral: "L"}[t.Kind]
	return kind + "|" + t.Value + "|" + t.Datatype + "|" + t.Lang
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	require.NoError(t, err)
	return a
}

func equalSets(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

func minus(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
