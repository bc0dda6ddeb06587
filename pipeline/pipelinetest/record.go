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

	"github.com/harvester-dev/harvester/corpustest"
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

// CatalogRecords returns a corpus data.json's dataset elements by identifier (the first of
// each identifier wins).
func CatalogRecords(t testing.TB, name string) map[string]json.RawMessage {
	t.Helper()
	raw, err := os.ReadFile(corpustest.Path(t, name))
	require.NoError(t, err)
	var cat struct{ Dataset []json.RawMessage }
	require.NoError(t, json.Unmarshal(raw, &cat))
	out := map[string]json.RawMessage{}
	for _, d := range cat.Dataset {
		var r struct{ Identifier string }
		require.NoError(t, json.Unmarshal(d, &r))
		if _, dup := out[r.Identifier]; !dup {
			out[r.Identifier] = d
		}
	}
	return out
}
