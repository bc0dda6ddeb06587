package pipelinetest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// SampleCatalog is the path of the repository's sample data.json (examples/), valid DCAT-US
// 1.1 federal but for its 3 invalid records and one duplicate identifier.
func SampleCatalog(t testing.TB) string {
	t.Helper()
	_, here, _, ok := runtime.Caller(0)
	require.True(t, ok)
	return filepath.Join(filepath.Dir(here), "..", "..", "examples", "agency-sample.data.json")
}

// SampleRecord returns the first record of the sample catalog (valid DCAT-US) with the given
// identifier and an extra member "notes" (the schema's description is at most 10,000
// characters), as one line of JSON with HTML characters unescaped.
func SampleRecord(t testing.TB, identifier, notes string) string {
	t.Helper()
	raw, err := os.ReadFile(SampleCatalog(t))
	require.NoError(t, err)
	var cat struct{ Dataset []map[string]any }
	require.NoError(t, json.Unmarshal(raw, &cat))
	d := cat.Dataset[0]
	d["identifier"], d["notes"] = identifier, notes
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(d))
	return strings.TrimSpace(buf.String())
}
