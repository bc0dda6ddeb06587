package transform_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/transform"
)

// TestPortalRecordsAreMappedByPlatform: a record whose source type is a portal is mapped by
// its platform although its schema type is DCAT-US (a CKAN package is not DCAT-US), and one
// that cannot be mapped settles as error_transform.
func TestPortalRecordsAreMappedByPlatform(t *testing.T) {
	t.Parallel()
	h := transform.New()
	send := func(rec *harvest.Record) []*harvest.Message {
		m, err := harvest.RecordMessage(harvest.SubjectTransform, rec)
		require.NoError(t, err)
		out, err := h.Handle(m)
		require.NoError(t, err)
		require.Len(t, out, 1)
		return out
	}
	rec := &harvest.Record{JobID: "00000000-0000-0000-0000-000000000001", SourceType: harvest.SourceCKAN,
		SchemaType: harvest.SchemaDCATUS11NonFederal, Identifier: "https://portal.example.org/dataset/p1",
		Body: harvest.RawText(`{"id": "p1", "name": "one", "title": "One", "notes": "n", "tags": [{"name": "t"}],
			"organization": {"title": "Org"}, "maintainer": "M", "maintainer_email": "m@example.org",
			"metadata_modified": "2024-01-02"}`)}
	out := send(rec)
	require.Equal(t, harvest.SubjectValidate, out[0].Metadata.Get(harvest.MetaSubject))
	var got harvest.Record
	require.NoError(t, harvest.Decode(out[0], &got))
	var d map[string]any
	require.NoError(t, json.Unmarshal(got.Transformed, &d))
	require.Equal(t, "One", d["title"])
	require.Equal(t, "https://portal.example.org/dataset/one", d["landingPage"])
	require.JSONEq(t, string(rec.Body), string(got.Body), "source_raw stays the item as served")

	rec.SourceType = harvest.SourceDKAN
	rec.Body = harvest.RawText(`{"identifier": "d1", "title": "D", "keyword": [{"identifier": "k", "data": "kw"}]}`)
	require.NoError(t, harvest.Decode(send(rec)[0], &got))
	require.NoError(t, json.Unmarshal(got.Transformed, &d))
	require.Equal(t, []any{"kw"}, d["keyword"])

	rec.SourceType = harvest.SourceCKAN
	rec.Body = harvest.RawText(`["not", "a", "package"]`)
	out = send(rec)
	require.Equal(t, harvest.SubjectSettled, out[0].Metadata.Get(harvest.MetaSubject))
	var s harvest.Settled
	require.NoError(t, harvest.Decode(out[0], &s))
	require.Equal(t, harvest.RecordErrorTransform, s.Status)
	require.Contains(t, s.Errors[0].Message, "not a JSON object")
}
