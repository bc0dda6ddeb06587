package validate_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/validate"
)

// TestRejectCarriesTransformed: a transformed record that is invalid settles as
// error_validation with the DCAT-US TRANSFORM made, for the aggregator to store as its
// source_transform.
func TestRejectCarriesTransformed(t *testing.T) {
	t.Parallel()
	dcat := `{"identifier": "https://example.gov/waf/a.xml", "title": "A"}`
	rec := &harvest.Record{JobID: "00000000-0000-0000-0000-000000000001", RecordID: "r", JobType: harvest.JobHarvest,
		SchemaType: harvest.SchemaISO19115_2, Identifier: "https://example.gov/waf/a.xml", Action: harvest.ActionCreate,
		XML: []byte("<x/>"), Transformed: harvest.RawText(dcat)}
	msg, err := harvest.RecordMessage(harvest.SubjectValidate, rec)
	require.NoError(t, err)
	msg.SetContext(t.Context())
	out, err := validate.New().Handle(msg)
	require.NoError(t, err)
	require.Len(t, out, 1)
	require.Equal(t, harvest.SubjectSettled, out[0].Metadata.Get(harvest.MetaSubject))
	var s harvest.Settled
	require.NoError(t, harvest.Decode(out[0], &s))
	require.Equal(t, harvest.RecordErrorValidation, s.Status)
	require.Equal(t, "r", s.RecordID)
	require.Equal(t, dcat, string(s.Transformed))
}
