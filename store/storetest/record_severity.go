package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testRecordErrorListSeverity: RecordErrorList with a Severity lists and counts only the rows of
// that severity, in the usual order and pages; "" is every row.
func testRecordErrorListSeverity(t *testing.T, s store.Store) {
	job := newJob(t, s, newSource(t, s).ID)
	for _, id := range []string{"a", "b", "c"} {
		_, _, err := s.OutcomeSettle(t.Context(), &store.OutcomeSettleParams{JobID: job.ID, Key: id, Identifier: id,
			Outcome: harvest.OutcomeAdded, Errors: []harvest.RecordError{
				{Type: harvest.TypeValidationWarning, Message: "w " + id, Severity: harvest.SeverityWarning}}})
		require.NoError(t, err)
	}
	settleErrored(t, s, job.ID, "d", "e d")
	list := func(severity harvest.Severity, limit int) ([]string, int) {
		t.Helper()
		errs, total, err := s.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: job.ID,
			Severity: severity, PageParams: store.PageParams{Limit: limit}})
		require.NoError(t, err)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Message)
		}
		return msgs, total
	}
	msgs, total := list("", 0)
	require.Equal(t, []string{"w a", "w b", "w c", "e d"}, msgs)
	require.Equal(t, 4, total)
	msgs, total = list(harvest.SeverityWarning, 2)
	require.Equal(t, []string{"w a", "w b"}, msgs)
	require.Equal(t, 3, total)
	msgs, total = list(harvest.SeverityError, 0)
	require.Equal(t, []string{"e d"}, msgs)
	require.Equal(t, 1, total)
}
