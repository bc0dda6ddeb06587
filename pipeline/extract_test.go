package pipeline_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
)

// TestEveryFamilyHasALister: the family the rule table names for each source type has a lister
// in EXTRACT (a type without one would fail every job as not supported), and no lister is
// registered for a family the table does not name.
func TestEveryFamilyHasALister(t *testing.T) {
	listers := pipeline.ExtractListers()
	for _, spec := range harvest.SourceSpecs {
		require.NotNil(t, listers[spec.Family], "%s (family %q)", spec.Type, spec.Family)
	}
	require.Len(t, listers, len(harvest.Families()))
}
