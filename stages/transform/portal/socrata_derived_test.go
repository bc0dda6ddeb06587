package portal

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSocrataDerivedViewWithoutParentIsNotADataset: a view over another dataset that names no
// parent (no modifyingViewUid, no parent_fxf) is told by Socrata's own catalog semantics: a
// tabular view drawn as a map or chart, a filter, a view that is not its dataset's default, an
// assetType or resource.type of a derived view. Each is ErrNotDataset, never a dataset with the
// parent's exports as distributions; the dataset the views are made from still maps.
func TestSocrataDerivedViewWithoutParentIsNotADataset(t *testing.T) {
	t.Parallel()
	seattle := corpusJSON(t, "portals/socrata/views-seattle-3k2p-39jp-911-incident-response.json")
	const id = "https://data.seattle.gov/d/3k2p-39jp"
	_, _, err := Socrata(seattle, id, "")
	require.NoError(t, err, "the dataset's own view (sorted, flag default) is a dataset")
	with := func(change map[string]any) []byte {
		var v map[string]any
		require.NoError(t, json.Unmarshal(seattle, &v))
		for k, x := range change {
			v[k] = x
		}
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	filter := map[string]any{"type": "operator", "value": "AND", "children": []any{map[string]any{"type": "operator", "value": "EQUALS"}}}
	for name, tc := range map[string]struct {
		item []byte
		want string
	}{
		"issue item 27": {with(map[string]any{"viewType": "tabular", "displayType": "map", "flags": []string{"restorable"},
			"viewFilters": filter, "query": map[string]any{"filterCondition": filter}}), "Socrata view 3k2p-39jp"},
		"map of a tabular dataset": {with(map[string]any{"displayType": "map"}), "is a map drawn from a tabular dataset"},
		"chart":                    {with(map[string]any{"displayType": "chart"}), "is a chart drawn from a tabular dataset"},
		"filtered table":           {with(map[string]any{"query": map[string]any{"filterCondition": filter}}), "is a filtered view"},
		"viewFilters":              {with(map[string]any{"viewFilters": filter}), "is a filtered view"},
		"not the default view":     {with(map[string]any{"flags": []string{"restorable"}}), `no "default" flag`},
		"assetType filter":         {with(map[string]any{"assetType": "filter"}), "is a filter over another dataset"},
		"discovery chart": {[]byte(`{"resource": {"id": "abcd-1234", "name": "c", "type": "chart", "parent_fxf": []}}`),
			"is a chart over another dataset"},
	} {
		dcat, _, err := Socrata(tc.item, id, "")
		require.ErrorIs(t, err, ErrNotDataset, name)
		require.ErrorContains(t, err, tc.want, name)
		require.Nil(t, dcat, name)
	}
	// A geospatial dataset is a map of its own (viewType geo), not derived.
	_, _, err = Socrata(corpusJSON(t, "portals/socrata/views-wa-ecology-3rgj-95q8-geo-blob-no-columns.json"),
		"https://data.wa.gov/d/3rgj-95q8", "")
	require.NoError(t, err)
}
