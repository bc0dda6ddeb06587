package dcatap

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEUTables: the EU tables TRANSFORM reads and the DCAT-AP feed writes the other way round
// are one to one, but for the one duration two frequency codes share (the feed writes the first).
func TestEUTables(t *testing.T) {
	for name, table := range map[string]map[string]string{"access rights": EUAccessRights, "languages": EULanguages} {
		seen := map[string]string{}
		for code, v := range table {
			require.NotContains(t, seen, v, "%s: %s and %s", name, code, seen[v])
			seen[v] = code
		}
	}
	codes, periods := map[string]bool{}, map[string]string{}
	for _, f := range EUFrequencies {
		require.False(t, codes[f.Code], f.Code)
		codes[f.Code] = true
		if first, ok := periods[f.Period]; ok {
			require.Equal(t, []string{"12HRS", "DAILY_2"}, []string{first, f.Code}, f.Period)
			continue
		}
		periods[f.Period] = f.Code
	}
	require.Len(t, EULanguages, 49)
	require.Len(t, EUFrequencies, 32)
}
