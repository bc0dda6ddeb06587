package transform_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/transform"
)

// TestSocrataArcGISOpenDataSoftRecordsAreMapped: TRANSFORM maps socrata, arcgis and
// opendatasoft records by their platform, and a Socrata derived view settles as
// error_transform (it is not a dataset of its own).
func TestSocrataArcGISOpenDataSoftRecordsAreMapped(t *testing.T) {
	t.Parallel()
	h := transform.New()
	for _, tc := range []struct {
		typ              harvest.SourceType
		identifier, body string
		wantTitle        string
	}{
		{harvest.SourceSocrata, "https://data.example.gov/d/abcd-1234",
			`{"resource": {"id": "abcd-1234", "name": "Permits", "type": "dataset"}, "permalink": "https://data.example.gov/d/abcd-1234"}`, "Permits"},
		{harvest.SourceArcGIS, "https://www.arcgis.com/home/item.html?id=abc",
			`{"id": "abc", "title": "Parcels", "created": 1600000000000, "extent": [[-1, -2], [3, 4]]}`, "Parcels"},
		{harvest.SourceOpenDataSoft, "https://ods.example.com/datasets/da_1",
			`{"dataset_id": "trees", "dataset_uid": "da_1", "metas": {"default": {"title": "Trees"}}}`, "Trees"},
	} {
		m, err := harvest.RecordMessage(harvest.SubjectTransform, &harvest.Record{JobID: "00000000-0000-0000-0000-000000000001",
			SourceType: tc.typ, SchemaType: harvest.SchemaDCATUS11NonFederal, Identifier: tc.identifier, Body: harvest.RawText(tc.body)})
		require.NoError(t, err)
		out, err := h.Handle(m)
		require.NoError(t, err)
		require.Len(t, out, 1)
		require.Equal(t, harvest.SubjectValidate, out[0].Metadata.Get(harvest.MetaSubject), tc.typ)
		var got harvest.Record
		require.NoError(t, harvest.Decode(out[0], &got))
		var d map[string]any
		require.NoError(t, json.Unmarshal(got.Transformed, &d))
		require.Equal(t, tc.wantTitle, d["title"])
		require.Equal(t, tc.identifier, d["identifier"])
		require.Equal(t, tc.body, string(got.Body), "source_raw stays the item as served")
	}

	m, err := harvest.RecordMessage(harvest.SubjectTransform, &harvest.Record{JobID: "00000000-0000-0000-0000-000000000001",
		SourceType: harvest.SourceSocrata, SchemaType: harvest.SchemaDCATUS11NonFederal, Identifier: "https://d.example.gov/d/abcd-1234",
		Body: harvest.RawText(`{"id": "abcd-1234", "name": "A filter", "modifyingViewUid": "wxyz-9876"}`)})
	require.NoError(t, err)
	out, err := h.Handle(m)
	require.NoError(t, err)
	require.Equal(t, harvest.SubjectSettled, out[0].Metadata.Get(harvest.MetaSubject))
	var s harvest.Settled
	require.NoError(t, harvest.Decode(out[0], &s))
	require.Equal(t, harvest.RecordErrorTransform, s.Status)
	require.Contains(t, s.Errors[0].Message, "derived from wxyz-9876")
}
