package profiles_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/shacl/profiles"
)

// The source rule table offers exactly the profiles this package has, and "none".
func TestRuleTableNamesTheProfiles(t *testing.T) {
	offered := harvest.SpecOf(harvest.SourceRDF).Setting("shacl_profile").Values
	require.ElementsMatch(t, append(profiles.Names(), harvest.ProfileNone), offered)
	require.Equal(t, profiles.Default, offered[0], "the default is offered first")
}
