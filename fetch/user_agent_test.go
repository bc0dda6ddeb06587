package fetch

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUserAgent(t *testing.T) {
	t.Parallel()
	require.Regexp(t, `^Harvester/[!#-'*+.0-9A-Z^-z|~-]+ \(open-data metadata harvester\)$`, UserAgent(""))
	require.Regexp(t, `^Harvester/\S+ \(\+https://ops\.example\.org/contact; open-data metadata harvester\)$`,
		UserAgent("https://ops.example.org/contact"))
	require.Equal(t, UserAgent(""), Config{}.WithDefaults().UserAgent, "the default of every fetch")
	require.Equal(t, "custom", Config{UserAgent: "custom"}.WithDefaults().UserAgent)

	for want, bi := range map[string]*debug.BuildInfo{
		"v1.2.0":             {Main: debug.Module{Version: "v1.2.0"}},
		"devel":              {Main: debug.Module{Version: "(devel)"}},
		"devel+0123456789ab": {Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}}},
		"v0.0.0-2026-abc":    {Main: debug.Module{Version: "v0.0.0-2026-abc"}},
		"v1-weird-":          {Main: debug.Module{Version: "v1 weird)"}},
	} {
		require.Equal(t, want, versionOf(bi))
	}
}
