package dcatap

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/rdf"
)

// corpusRecords parses one corpus file and returns, per dataset IRI (subjects typed
// dcat:Dataset or dcat:DatasetSeries), the dataset's record graph as N-Triples: its triples
// and those of every node reachable from it, stopping at other datasets. (EXTRACT's
// dcatap.Split does this properly, with skolemization; this is enough to feed Transform.)
// ok is false when this branch has no parser for the file's syntax.
func corpusRecords(t *testing.T, path string) (records map[string][]byte, ok bool) {
	t.Helper()
	f, err := rdf.FormatFor("", "", path)
	require.NoError(t, err)
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	g := rdf.NewMemGraph()
	err = rdf.Parse(fh, f, "", g.Add)
	if errors.Is(err, rdf.ErrUnsupportedFormat) {
		return nil, false
	}
	require.NoError(t, err)
	datasets := map[rdf.Term]bool{}
	for _, class := range []string{dcatDataset, dcatDatasetSeries} {
		require.NoError(t, g.Match(rdf.Term{}, rdf.IRI(pType), rdf.IRI(class), func(tr rdf.Triple) error {
			if tr.S.IsIRI() {
				datasets[tr.S] = true
			}
			return nil
		}))
	}
	records = map[string][]byte{}
	for ds := range datasets {
		var lines []string
		seen := map[rdf.Term]bool{ds: true}
		queue := []rdf.Term{ds}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			require.NoError(t, g.Match(n, rdf.Term{}, rdf.Term{}, func(tr rdf.Triple) error {
				lines = append(lines, tr.NTriples()+"\n")
				if o := tr.O; !o.IsLiteral() && !seen[o] && !datasets[o] {
					seen[o] = true
					queue = append(queue, o)
				}
				return nil
			}))
		}
		sort.Strings(lines)
		records[ds.Value] = []byte(strings.Join(lines, ""))
	}
	return records, true
}

// Every dataset of every valid corpus file transforms; the DCAT-US it gives breaks the
// non-federal schema only by leaving out required fields the source does not have (never a
// malformed value), and a dataset whose source has them all is valid.
func TestCorpus(t *testing.T) {
	t.Parallel()
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	dir := filepath.Join(corpustest.Dir(t), "dcatap")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	total, valid, files := 0, 0, 0
	missing := map[string]int{}
	var unparsed []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, "INVALID-") || e.IsDir() {
			continue
		}
		records, ok := corpusRecords(t, filepath.Join(dir, name))
		if !ok {
			unparsed = append(unparsed, name)
			continue
		}
		files++
		for iri, nq := range records {
			total++
			out, warnings, err := Transform(nq, iri, nil)
			require.NoError(t, err, "%s %s", name, iri)
			var got map[string]any
			require.NoError(t, json.Unmarshal(out, &got), "%s %s", name, iri)
			require.Equal(t, iri, got["identifier"])
			problems, err := v.Validate(out)
			require.NoError(t, err)
			for _, p := range problems {
				require.Regexp(t, `^('[^']+'(, | and )?)+ (is a required property|are required properties)$`, p.Message,
					"%s %s: a written value breaks the schema at %s\n%s", name, iri, p.Path, out)
				for _, f := range regexp.MustCompile(`'([^']+)'`).FindAllStringSubmatch(p.Message, -1) {
					missing[strings.TrimPrefix(p.Path+".", "$.")+f[1]]++
				}
			}
			if len(problems) == 0 {
				valid++
			}
			hasTitle := strings.Contains(string(nq), "<"+iri+"> <"+dctTitle+"> \"")
			require.Equal(t, hasTitle, got["title"] != nil, "%s %s: title", name, iri)
			for _, w := range warnings {
				t.Logf("%s %s: warning %s: %s", name, iri, w.Field, w.Message)
			}
		}
	}
	t.Logf("%d datasets in %d files: %d valid DCAT-US 1.1 non-federal; required fields missing from the source: %v", total, files, valid, missing)
	if len(unparsed) > 0 {
		t.Logf("not read (no parser for their syntax on this branch yet): %s", strings.Join(unparsed, ", "))
	}
	require.Positive(t, total)
}
