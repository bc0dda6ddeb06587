package feeds

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// TestMapDCATUS3To11: Data.gov's complete DCAT-US 3.0 Dataset example maps to a 1.1 dataset
// with its fields carried as docs/catalog.md's table says; a record lacking what 1.1 requires
// is ErrNotMappable naming what it lacks.
func TestMapDCATUS3To11(t *testing.T) {
	example, err := os.ReadFile(corpustest.Path(t, "schemas/dcat-us-3.0/examples/Dataset-good-complete_example.json"))
	require.NoError(t, err)
	b, err := MapDCATUS3To11(example)
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(b, &got))
	require.Equal(t, "dcat:Dataset", got["@type"])
	require.Equal(t, "NCDC-CLIMATE-OBS-2024", got["identifier"])
	require.Equal(t, "public", got["accessLevel"])
	require.Equal(t, "R/P1D", got["accrualPeriodicity"], "3.0's daily")
	require.Equal(t, "2024-01-01/2024-12-31", got["temporal"])
	require.Equal(t, map[string]any{"@type": "vcard:Contact", "fn": "Climate Data Support Team", "hasEmail": "mailto:climate-support@example.gov"}, got["contactPoint"])
	require.Equal(t, "National Climate Data Center", got["publisher"].(map[string]any)["name"])
	require.Equal(t, []any{"Climate Science", "Environmental Monitoring"}, got["theme"], "concepts' prefLabels")
	require.Len(t, got["distribution"], 2)
	require.Equal(t, "https://example.gov/series/annual-climate-observations", got["isPartOf"])

	var d map[string]any
	require.NoError(t, json.Unmarshal(example, &d))
	delete(d, "keyword")
	delete(d, "theme")
	d["accessRights"] = "Not public: internal use"
	nokw, _ := json.Marshal(d)
	_, err = MapDCATUS3To11(nokw)
	require.ErrorIs(t, err, ErrNotMappable)
	require.ErrorContains(t, err, "no keyword")
	d["keyword"] = []string{"k", "k"}
	b, err = MapDCATUS3To11(mustJSON(t, d))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	require.Equal(t, []any{"k"}, got["keyword"], "1.1's keywords are unique")
	require.Equal(t, "non-public", got["accessLevel"])
	for _, bad := range []string{`[]`, `"x"`, `null`, `{`} {
		_, err = MapDCATUS3To11([]byte(bad))
		require.ErrorIs(t, err, ErrNotMappable, bad)
	}
	require.Equal(t, "R/P3M", periodicity11("http://purl.org/cld/freq/quarterly"))
	require.Equal(t, "", periodicity11("every so often"))
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
