package harvest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseLanguages(t *testing.T) {
	t.Parallel()
	for in, want := range map[string][]string{
		"": nil, "  ": nil, "en": {"en"}, "nb, nn ,EN": {"nb", "nn", "en"}, "en-GB,en,en-gb": {"en-gb", "en"}, "*": {"*"},
	} {
		got, err := ParseLanguages(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"en,,nb", "en;nb", "english language", "en_GB", "toolongtag9"} {
		_, err := ParseLanguages(bad)
		require.Error(t, err, bad)
		require.Contains(t, err.Error(), "is not a language tag", bad)
	}
}
