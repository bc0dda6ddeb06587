package harvest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSettleConstructors: each constructor writes the wire message the aggregator reads, field
// for field; a record of a validate job settles under no harvest_record row.
func TestSettleConstructors(t *testing.T) {
	t.Parallel()
	wire := func(s *Settled) string {
		t.Helper()
		m, err := SettledMessage(s)
		require.NoError(t, err)
		return string(m.Payload)
	}
	require.JSONEq(t, `{"v":1,"kind":"failed","job_id":"j"}`, wire(SettleFailed("j")))
	require.JSONEq(t, `{"v":1,"kind":"expected","job_id":"j","expected":3}`, wire(SettleExpected("j", 3)))
	require.JSONEq(t, `{"v":1,"kind":"outcome","job_id":"j","key":"id:x","identifier":"x","outcome":"unchanged"}`,
		wire(SettleIdentifier("j", "x", OutcomeUnchanged)))

	bad := RecordError{Type: TypeTransformError, Message: "no title", Severity: SeverityError}
	rec := &Record{JobID: "j", RecordID: "r", JobType: JobHarvest, Identifier: "x"}
	require.JSONEq(t, `{"v":1,"kind":"outcome","job_id":"j","key":"id:x","identifier":"x","record_id":"r",
		"outcome":"errored","errors":[{"type":"TransformError","message":"no title","severity":"error"}]}`,
		wire(SettleRecord(rec, OutcomeErrored, bad)))
	rec.JobType = JobValidate
	require.Empty(t, SettleRecord(rec, OutcomeErrored, bad).RecordID)
}
