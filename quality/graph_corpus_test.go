package quality

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatap"
	"github.com/harvester-dev/harvester/rdf"
	aptransform "github.com/harvester-dev/harvester/stages/transform/dcatap"
	"github.com/harvester-dev/harvester/stages/validate"
)

// docsMu keeps the corpus tests' rewrites of docs/quality.md (-update) one at a time.
var docsMu sync.Mutex

const (
	graphCorpusBegin = "<!-- dcatap-corpus-scores:begin (TestGraphCorpusScores writes this table; -update) -->\n"
	graphCorpusEnd   = "<!-- dcatap-corpus-scores:end -->\n"
)

// graphRecord is one dataset of a DCAT-AP corpus file as the pipeline holds it: its record
// graph (EXTRACT), the DCAT-US record TRANSFORM made of it, and its validation rows' verdicts.
type graphRecord struct {
	iri   string
	graph []byte
	dcat  []byte
	shacl bool // SHACL (the default profile) found something: an error or a warning
	other bool // TRANSFORM warned (a row too, but no SHACL finding)
}

// graphCorpus returns the datasets of the corpus's DCAT-AP file name; ok is false when this
// branch has no parser for its syntax.
func graphCorpus(t *testing.T, name string) (recs []graphRecord, ok bool) {
	t.Helper()
	path := corpustest.Path(t, filepath.Join("dcatap", name))
	f, err := rdf.FormatFor("", "", path)
	require.NoError(t, err)
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	g := rdf.NewMemGraph()
	if err := rdf.Parse(fh, f, "", g.Add); errors.Is(err, rdf.ErrUnsupportedFormat) {
		return nil, false
	} else {
		require.NoError(t, err, name)
	}
	require.NoError(t, dcatap.Split(g, func(r *dcatap.Resource) error {
		if r.Kind == dcatap.KindCatalog || r.Problem != "" {
			return nil
		}
		nq, _, err := dcatap.Canonical(r.Triples)
		require.NoError(t, err, r.IRI)
		dcat, warnings, err := aptransform.Transform(nq, r.IRI, nil)
		require.NoError(t, err, r.IRI)
		errs, warns := validate.ValidateDCATAP(r.IRI, nq, "")
		recs = append(recs, graphRecord{iri: r.IRI, graph: nq, dcat: dcat, shacl: len(errs)+len(warns) > 0,
			other: len(warnings) > 0})
		return nil
	}))
	slices.SortFunc(recs, func(a, b graphRecord) int { return strings.Compare(a.iri, b.iri) })
	return recs, true
}

// TestGraphCorpusScores scores every dataset of the corpus's DCAT-AP files on its graph
// (compliance from the SHACL findings of VALIDATE's default profile; links not checked, then as
// if every link answered 200) and, for comparison, on the DCAT-US record TRANSFORM made of it
// as before (any row, TRANSFORM's warnings included, against compliance), and holds the table
// in docs/quality.md to the result (-update rewrites it). It also holds that a graph's links are
// its DCAT-US record's (LinkURLs), the URLs CHECK is fed.
func TestGraphCorpusScores(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(filepath.Join(corpustest.Dir(t), "dcatap"))
	require.NoError(t, err)
	var b strings.Builder
	b.WriteString("| file | datasets | mean on the graph (links not checked) | rating | mean if every link answered 200 | rating | mean on the DCAT-US record (links not checked) | the indicators that cost the most on the graph, links aside (mean points lost) |\n")
	b.WriteString("| --- | ---: | ---: | --- | ---: | --- | ---: | --- |\n")
	files := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasPrefix(name, "INVALID-") {
			continue
		}
		recs, ok := graphCorpus(t, name)
		if !ok || len(recs) == 0 {
			continue
		}
		files++
		var unchecked, checked, asDCATUS []Score
		for _, r := range recs {
			in := Input{DCAT: r.dcat, Graph: r.graph, Identifier: r.iri, Findings: r.shacl}
			g, ok := readGraph(in)
			require.True(t, ok, r.iri)
			require.ElementsMatch(t, LinkURLs(r.dcat), g.linkURLs(), "%s %s: the graph's links are its DCAT-US record's", name, r.iri)
			unchecked = append(unchecked, Assess(in))
			in.Links = map[string]LinkResult{}
			for _, u := range g.linkURLs() {
				in.Links[u] = LinkResultOf(200)
			}
			checked = append(checked, Assess(in))
			asDCATUS = append(asDCATUS, Assess(Input{DCAT: r.dcat, Findings: r.shacl || r.other}))
		}
		u, k, d := Aggregate(unchecked), Aggregate(checked), Aggregate(asDCATUS)
		var costly []string
		for _, is := range k.Costliest(len(Indicators)) {
			if is.Metric != AccessURLStatusCode && is.Metric != DownloadURLStatusCode && len(costly) < 3 && is.Lost > 0 {
				costly = append(costly, fmt.Sprintf("%s %.1f", strings.TrimPrefix(string(is.Metric), "pv:"), is.Lost))
			}
		}
		fmt.Fprintf(&b, "| `%s` | %d | %.1f | %s | %.1f | %s | %.1f | %s |\n", name, u.Datasets, u.Mean, u.Rating,
			k.Mean, k.Rating, d.Mean, strings.Join(costly, ", "))
	}
	require.Positive(t, files)
	table := b.String()
	t.Log("\n" + table)

	docsMu.Lock()
	defer docsMu.Unlock()
	path := filepath.Join("..", "docs", "quality.md")
	doc, err := os.ReadFile(path)
	require.NoError(t, err)
	before, rest, ok := strings.Cut(string(doc), graphCorpusBegin)
	require.True(t, ok, "docs/quality.md has no dcatap-corpus-scores block")
	_, after, ok := strings.Cut(rest, graphCorpusEnd)
	require.True(t, ok, "docs/quality.md: dcatap-corpus-scores block not closed")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(before+graphCorpusBegin+table+graphCorpusEnd+after), 0o644))
		return
	}
	require.Equal(t, table, rest[:len(rest)-len(after)-len(graphCorpusEnd)],
		"the DCAT-AP corpus scores changed: go test ./quality -run TestGraphCorpusScores -update, and say why in the commit")
}
