package catalogsync_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/stages/catalogsync"
)

// TestDuplicateKeys: the landingPage is trimmed and a huge one hashed; the downloadURL set's key
// ignores order, repeats, blanks and surrounding space; no URL, a non-string or a bad document
// gives no key.
func TestDuplicateKeys(t *testing.T) {
	keys := func(doc string) (string, string) { return catalogsync.DuplicateKeys(json.RawMessage(doc)) }
	lp, sha := keys(`{"landingPage": " https://a.gov/x ", "distribution": [{"downloadURL": "https://a.gov/1.csv"},
		{"downloadURL": "https://a.gov/2.csv"}]}`)
	require.Equal(t, "https://a.gov/x", lp)
	require.Len(t, sha, 64)
	_, same := keys(`{"distribution": [{"downloadURL": "https://a.gov/2.csv "}, {"downloadURL": ""},
		{"accessURL": "https://a.gov/"}, {"downloadURL": "https://a.gov/1.csv"}, {"downloadURL": "https://a.gov/2.csv"}]}`)
	require.Equal(t, sha, same, "order, repeats, blanks and spaces do not change the set")
	_, other := keys(`{"distribution": [{"downloadURL": "https://a.gov/1.csv"}]}`)
	require.NotEqual(t, sha, other)

	huge := "https://a.gov/" + strings.Repeat("p", 100_000)
	lp, _ = keys(`{"landingPage": "` + huge + `"}`)
	require.True(t, strings.HasPrefix(lp, "sha256:"), lp)
	require.Len(t, lp, len("sha256:")+64)
	again, _ := keys(`{"landingPage": "` + huge + ` "}`)
	require.Equal(t, lp, again)

	for _, doc := range []string{`{}`, `{"landingPage": 7, "distribution": {"downloadURL": "x"}}`,
		`{"distribution": [{"downloadURL": 1}, "x", null]}`, `not json`, `{"landingPage": ""}`} {
		lp, sha := keys(doc)
		require.Empty(t, lp, doc)
		require.Empty(t, sha, doc)
	}
}
