package rdf_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/rdf"
)

// jsonldGraph parses doc as JSON-LD with the direct conversion of node objects on or off, and
// returns its fingerprint (dcatap.GraphHash: blank node labels do not count), its triples in
// N-Triples with blank nodes written as "_:" (to name a difference), and the parse error.
func jsonldGraph(t *testing.T, doc []byte, base string, direct bool) (string, []string, error) {
	t.Helper()
	defer rdf.SetJSONLDDirect(direct)()
	g := rdf.NewMemGraph()
	err := rdf.ParseWith(strings.NewReader(string(doc)), rdf.JSONLD, base, rdf.Options{}, g.Add)
	if err != nil {
		return "", nil, err
	}
	sum, herr := dcatap.GraphHash(g)
	require.NoError(t, herr)
	var lines []string
	require.NoError(t, g.Match(rdf.Term{}, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
		for _, x := range []*rdf.Term{&tr.S, &tr.O} {
			if x.IsBlank() {
				*x = rdf.Blank("")
			}
		}
		lines = append(lines, tr.NTriples())
		return nil
	}))
	return sum, lines, nil
}

// requireSameAsJSONGold: doc gives the same graph (up to blank node labels) and the same
// error or none with the direct conversion as with json-gold's node map.
func requireSameAsJSONGold(t *testing.T, name string, doc []byte, base string) {
	t.Helper()
	wantSum, wantLines, wantErr := jsonldGraph(t, doc, base, false)
	gotSum, gotLines, gotErr := jsonldGraph(t, doc, base, true)
	if wantErr != nil || gotErr != nil {
		require.Equal(t, wantErr != nil, gotErr != nil, "%s: json-gold: %v; direct: %v", name, wantErr, gotErr)
		return
	}
	require.ElementsMatch(t, wantLines, gotLines, name)
	require.Equal(t, wantSum, gotSum, name)
}

// TestJSONLDDirectSameAsJSONGold: the direct conversion of node objects gives json-gold's
// triples on every toRdf input of the W3C JSON-LD 1.1 test suite that json-gold ships
// (ld/testdata/toRdf, read from the module cache) and on the corpus's JSON-LD files.
func TestJSONLDDirectSameAsJSONGold(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/piprate/json-gold").Output()
	require.NoError(t, err, "locate json-gold's module")
	suite, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "ld", "testdata", "toRdf", "*-in.jsonld"))
	require.NoError(t, err)
	require.Greater(t, len(suite), 300, "json-gold's copy of the W3C toRdf suite")
	corpus, err := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "*", "*.jsonld"))
	require.NoError(t, err)
	require.NotEmpty(t, corpus, "the corpus is beside the repository (../shared/corpus)")
	for _, f := range append(suite, corpus...) {
		doc, err := os.ReadFile(f)
		require.NoError(t, err)
		requireSameAsJSONGold(t, f, doc, "https://w3c.github.io/json-ld-api/tests/toRdf/"+filepath.Base(f))
	}
}

// TestJSONLDDirectBlankLabels: a labelled blank node is one node across node objects the direct
// conversion handles and node objects it leaves to json-gold (an @list), and stays apart from
// the nodes without @id.
func TestJSONLDDirectBlankLabels(t *testing.T) {
	const doc = `{"@context": {"ex": "http://e/"}, "@graph": [
		{"@id": "_:b0", "ex:p": {"@id": "_:b1"}, "ex:q": {"ex:r": "anon"}},
		{"@id": "_:b1", "ex:l": {"@list": [{"@id": "_:b0"}, {"@id": "_:x y"}]}},
		{"@id": "_:x y", "ex:p": "spaced"},
		{"ex:p": {"@id": "_:b0"}}]}`
	requireSameAsJSONGold(t, "labels", []byte(doc), "")
	_, lines, err := jsonldGraph(t, []byte(doc), "", true)
	require.NoError(t, err)
	require.Len(t, lines, 10)
}
