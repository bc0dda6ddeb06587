package catalog

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// stepwise is the guard's Read one step a byte, as it was before string runs were skipped by
// search: the reference for TestShapeGuardRunsAsSteps.
type stepwise struct{ g *shapeGuard }

func (s stepwise) Read(p []byte) (int, error) {
	g := s.g
	for {
		n, err := g.r.Read(p)
		w := 0
		for i := 0; i < n; i++ {
			if c, keep := g.step(p[i]); keep {
				p[w] = c
				w++
				g.out++
			}
		}
		if w > 0 || err != nil || n == 0 {
			return w, err
		}
	}
}

// guarded reads doc through a fresh guard (v3 or not) by read, with reads cut by cut, and
// returns what came out and the guard's problems.
func guarded(doc []byte, v3 bool, cut func(io.Reader) io.Reader, read func(*shapeGuard) io.Reader) ([]byte, []shapeProblem) {
	g := newShapeGuard(cut(bytes.NewReader(doc)), true)
	if v3 {
		g.v3, g.level = true, 0
	}
	out, _ := io.ReadAll(read(g))
	return out, g.problems
}

// The guard gives the same bytes and finds the same problems with string runs skipped by search
// as one step a byte: on the corpus and on documents of escapes, repeated keys and values too
// deep to keep, read whole and one byte at a time.
func TestShapeGuardRunsAsSteps(t *testing.T) {
	t.Parallel()
	docs := corpusDocuments(t)
	deep := nested(MaxRecordDepth + 2)
	for name, doc := range map[string]string{
		"escapes":   `{"dataset":[{"identifier":"a\"b\\","title":"x\\\"y\u00e9\\\\","d":"\\"}]}`,
		"duplicate": `{"dataset":[{"identifier":"a","ti\"tle":"1","identifier":"b"},{"k\\":"v","k\\":"w"}]}`,
		"deep":      `{"dataset":[{"identifier":"a","d":` + deep + `,"s":"x\"]]}"},{"d":[[["` + strings.Repeat(`\"`, 10) + `"]]]}]}`,
		"deepstr":   `{"dataset":[{"identifier":"a","d":` + strings.Replace(deep, "0", `"]}\"{["`, 1) + `,"identifier":"b"}]}`,
		"unclosed":  `{"dataset":[{"identifier":"a\`,
	} {
		docs[name] = []byte(doc)
	}
	cuts := map[string]func(io.Reader) io.Reader{"whole": func(r io.Reader) io.Reader { return r },
		"bytes": iotest.OneByteReader, "halves": iotest.HalfReader}
	for name, doc := range docs {
		for cutName, cut := range cuts {
			for _, v3 := range []bool{false, true} {
				want, wantProblems := guarded(doc, v3, cut, func(g *shapeGuard) io.Reader { return stepwise{g} })
				got, gotProblems := guarded(doc, v3, cut, func(g *shapeGuard) io.Reader { return g })
				require.True(t, bytes.Equal(want, got), "%s, %s, v3 %v", name, cutName, v3)
				require.Equal(t, wantProblems, gotProblems, "%s, %s, v3 %v", name, cutName, v3)
			}
		}
	}
}
