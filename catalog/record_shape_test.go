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
	paths, err := filepath.Glob(filepath.Join(corpustest.Dir(t), "dcatus", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, p := range paths {
		doc, err := os.ReadFile(p)
		require.NoError(t, err)
		g := newShapeGuard(bytes.NewReader(doc), true)
		out, err := io.ReadAll(g)
		require.NoError(t, err)
		require.True(t, bytes.Equal(doc, out), filepath.Base(p))
	}
}

// nested returns a JSON value n arrays deep around 0.
func nested(n int) string { return strings.Repeat("[", n) + "0" + strings.Repeat("]", n) }
