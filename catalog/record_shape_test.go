package catalog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// The guard passes every DCAT-US document of the corpus through unchanged.
func TestShapeGuardIsTransparent(t *testing.T) {
	t.Parallel()
	for name, doc := range corpusDocuments(t) {
		g := newShapeGuard(bytes.NewReader(doc), true)
		out, err := io.ReadAll(g)
		require.NoError(t, err)
		require.True(t, bytes.Equal(doc, out), name)
	}
}

// corpusDocuments reads every DCAT-US document of the corpus, by file name.
func corpusDocuments(t *testing.T) map[string][]byte {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "dcatus", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	docs := map[string][]byte{}
	for _, p := range paths {
		doc, err := os.ReadFile(p)
		require.NoError(t, err)
		docs[filepath.Base(p)] = doc
	}
	return docs
}

// nested returns a JSON value n arrays deep around 0.
func nested(n int) string { return strings.Repeat("[", n) + "0" + strings.Repeat("]", n) }
