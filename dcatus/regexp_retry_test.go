package dcatus

import (
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/stretchr/testify/require"
)

// A match that runs out of its first (wall-clock) timeout, as on a starved machine, is tried
// again with the longer one and decides nothing by itself: a value that matches still matches.
// (regexp2 adds its clock period, ~100 ms, to a timeout: the 40 MB value outlasts that.)
func TestPatternTimeoutIsRetried(t *testing.T) {
	const pattern = `^mailto:[\w\_\~\!\$\&\'\(\)\*\+\,\;\=\:.-]+@[\w.-]+\.[\w.-]+?$`
	value := "mailto:" + strings.Repeat("a", 40_000_000) + "@example.gov"
	fast, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	require.NoError(t, err)
	retry, err := regexp2.Compile(pattern, regexp2.ECMAScript)
	require.NoError(t, err)
	fast.MatchTimeout, retry.MatchTimeout = time.Nanosecond, regexpRetryTimeout
	_, ferr := fast.MatchString(value)
	require.Error(t, ferr, "the first try runs out of its timeout (else this test shows nothing)")
	re := &ecmaRegexp{fast: fast, retry: retry}
	require.True(t, re.MatchString(value), "the retry decides")
	require.False(t, re.MatchString("mailto:nobody"), "and a value that does not match still does not")
}
