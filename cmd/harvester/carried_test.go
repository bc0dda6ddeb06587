package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// outcomes are a report's five outcome counts: added, updated, deleted, unchanged, errored.
func outcomes(r jobReport) [5]int {
	return [5]int{r.Added, r.Updated, r.Deleted, r.Unchanged, r.Errored}
}

// TestReharvestCountsUnchangedInvalidRecords: the example catalog's 3 invalid records are not
// validated again when they did not change, but every later harvest still counts them as
// errored (with the duplicate identifier, 4), carrying the error rows of the job that found
// them, and a validate job gives the counts of the harvest it predicts. On both backends.
func TestReharvestCountsUnchangedInvalidRecords(t *testing.T) {
	t.Parallel()
	backends := map[string][]string{
		"embedded": {"--database-url", "", "--nats-url", "", "--data-dir", t.TempDir()},
		"postgres": {"--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t), "--data-dir", t.TempDir()},
	}
	for name, services := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"harvest", "--file", "../../examples/agency-sample.data.json", "--schema-type", federal},
				services...)
			validate := func() jobReport { return runJSON(t, append(args, "--job-type", "validate")...) }

			predicted := validate()
			first := runJSON(t, args...)
			require.Equal(t, [5]int{32, 0, 0, 0, 4}, outcomes(first))
			require.Equal(t, outcomes(first), outcomes(predicted), "a validate job predicts the first harvest")

			predicted = validate()
			second := runJSON(t, args...)
			require.Equal(t, [5]int{0, 0, 0, 32, 4}, outcomes(second), "3 invalid records and the duplicate are errored again")
			require.Zero(t, second.Validated, "unchanged records are not validated again")
			require.Equal(t, outcomes(second), outcomes(predicted), "a validate job predicts the re-harvest")

			// The text report of a third run names the job that found each carried problem: the
			// first, not the second (which only carried them).
			var out, errOut bytes.Buffer
			require.Equal(t, exitOK, run(context.Background(), args, &out, &errOut), errOut.String())
			text := out.String()
			require.Contains(t, text, "total 36: added 0, updated 0, deleted 0, unchanged 32, errored 4")
			require.Contains(t, text, "4 error rows for 4 records:")
			require.Contains(t, text, `ValidationError "FAES-2024-021" (carried from job `+first.JobID+`): $: 'description' is a required property`)
			require.Contains(t, text, `DuplicateIdentifier "FAES-CGS-0007": dataset #27`, "found again by this job: not carried")
			require.NotContains(t, text, second.JobID)
		})
	}
}
