package extract

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// TestSettingDefaultsMatchTheRuleTable: the defaults the source rule table shows (harvester
// source types, docs/source-type-reference.md) are the ones EXTRACT applies.
func TestSettingDefaultsMatchTheRuleTable(t *testing.T) {
	for _, c := range []struct {
		t       harvest.SourceType
		setting string
		want    string
	}{
		{harvest.SourceCKAN, "rows", strconv.Itoa(DefaultCKANRows)},
		{harvest.SourceSocrata, "limit", strconv.Itoa(DefaultSocrataLimit)},
		{harvest.SourceArcGIS, "num", strconv.Itoa(DefaultArcGISNum)},
		{harvest.SourceOpenDataSoft, "limit", strconv.Itoa(DefaultODSLimit)},
		{harvest.SourceCSW, "max_records", strconv.Itoa(DefaultCSWMaxRecords)},
	} {
		s := harvest.SpecOf(c.t).Setting(c.setting)
		require.NotNil(t, s, "%s %s", c.t, c.setting)
		require.Equal(t, c.want, s.Default, "%s %s", c.t, c.setting)
	}
	// A setting with a fixed list offers its default first (forms preselect it).
	for _, spec := range harvest.SourceSpecs {
		for _, s := range spec.Settings {
			if s.Default != "" && s.Values != nil {
				require.Equal(t, s.Default, s.Values[0], "%s %s", spec.Type, s.Name)
			}
		}
	}
}
