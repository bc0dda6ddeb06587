package catalogsync_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// bothBackends runs test on Postgres and on the embedded SQLite, in parallel.
func bothBackends(t *testing.T, test func(t *testing.T, h *dupHarness)) {
	t.Helper()
	for name, open := range map[string]func(t *testing.T) *dupHarness{"postgres": newDupHarness,
		"sqlite": newDupHarnessSQLite} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, open(t))
		})
	}
}

// run harvests src as a job of type jobType (its catalog as the site serves it now).
func (h *dupHarness) run(t *testing.T, src *store.Source, jobType harvest.JobType) pipelinetest.Report {
	t.Helper()
	rep := h.Harvest(t, pipelinetest.Source{URL: src.URL, SchemaType: pipelinetest.Federal, JobType: jobType})
	pipelinetest.MustComplete(t, rep)
	return rep
}

// requireLive checks which of the five ds/N datasets each source has live, and that exactly the
// live ones are searchable.
func (h *dupHarness) requireLive(t *testing.T, src *store.Source, want []string, msg string) {
	t.Helper()
	require.Equal(t, want, h.liveIdentifiers(t, src.ID), msg)
	require.Equal(t, len(want), h.indexed(t, src.ID), msg+": searchable")
}

// warnings are the messages of the job's warning rows, its own and carried ones.
func (h *dupHarness) warnings(t *testing.T, jobID string) []string {
	t.Helper()
	var out []string
	require.NoError(t, h.st.RecordErrorStream(t.Context(), jobID, func(e *store.RecordError) error {
		if e.Severity == harvest.SeverityWarning {
			out = append(out, e.Message)
		}
		return nil
	}))
	return out
}

// fiveRecords are the trusted catalog's five datasets ds/0 .. ds/4, titled with word.
func fiveRecords(word string) []dupRecord {
	recs := make([]dupRecord, 5)
	for i := range recs {
		recs[i] = dupRecord{id: "ds/" + string(rune('0'+i)), title: word + " dataset " + string(rune('0'+i))}
	}
	return recs
}

// TestCrossSourceDuplicateTiedTakeover is issue 34's hostile publisher: two sources at the
// default precedence 0; the trusted one (T) publishes ds/0..ds/4 first, the hostile one (H) the
// same identifiers after it, held. When T's catalog omits ds/0 for one harvest, H's copy is
// live; when T publishes it again, T's copy is live again on that harvest (it was held before,
// through T's force_harvest and updates). After a clear of T, H's copies are live; T's next
// harvest takes all five back (4 of 5 stayed held before). H's next harvests change nothing.
func TestCrossSourceDuplicateTiedTakeover(t *testing.T) {
	t.Parallel()
	bothBackends(t, testTiedTakeover)
}

func testTiedTakeover(t *testing.T, h *dupHarness) {
	trusted, hostile := h.source(t, "trusted", 0), h.source(t, "hostile", 0)
	all := []string{"ds/0", "ds/1", "ds/2", "ds/3", "ds/4"}
	recs := fiveRecords("Trusted")
	h.harvest(t, trusted, recs...)
	first := h.harvest(t, hostile, fiveRecords("Copied")...)
	require.Equal(t, 5, h.duplicateWarnings(t, first.JobID))
	h.requireLive(t, hostile, []string{}, "the copies are held")

	// A gap of one harvest: the copy of ds/0 is live meanwhile.
	gap := h.harvest(t, trusted, recs[1:]...)
	require.Equal(t, 1, gap.Deleted)
	h.requireLive(t, hostile, []string{"ds/0"}, "the copy is live while the trusted one is gone")

	// ds/0 comes back: the trusted copy is live on that harvest, the copy held.
	back := h.harvest(t, trusted, recs...)
	require.Equal(t, 1, back.Added)
	h.requireLive(t, trusted, all, "the returning dataset is live")
	h.requireLive(t, hostile, []string{}, "the copy is held again")
	msgs := h.warnings(t, back.JobID)
	require.Len(t, msgs, 1)
	require.Contains(t, msgs[0], "both sources have precedence 0 and this source published it first")

	// Updates and a force_harvest of the trusted source keep it live.
	recs[0].title = "Trusted dataset 0, revised"
	h.site.Serve(trusted.URL, "application/json", dupCatalog(t, recs...))
	require.Equal(t, 1, h.run(t, trusted, harvest.JobHarvest).Updated)
	require.Equal(t, 5, h.run(t, trusted, harvest.JobForceHarvest).Updated)
	h.requireLive(t, trusted, all, "after an update and a force_harvest")
	h.requireLive(t, hostile, []string{}, "after an update and a force_harvest")

	// The hostile source's harvests (unchanged, forced, changed) take nothing.
	h.harvest(t, hostile, fiveRecords("Copied")...)
	h.run(t, hostile, harvest.JobForceHarvest)
	h.harvest(t, hostile, fiveRecords("Copied again")...)
	h.requireLive(t, trusted, all, "after the hostile source's harvests")

	// A clear of the trusted source: the copies are live; its next harvest takes them back.
	clear := h.run(t, trusted, harvest.JobClear)
	require.Equal(t, 5, clear.Deleted)
	h.requireLive(t, hostile, all, "the copies are live after the clear")
	again := h.harvest(t, trusted, recs...)
	require.Equal(t, 5, again.Added)
	h.requireLive(t, trusted, all, "all five back after the clear")
	h.requireLive(t, hostile, []string{}, "the copies held again")
	for _, p := range h.pairs(t, store.CrossSourceDuplicateListParams{}) {
		require.Equal(t, trusted.ID, p.Kept.SourceID)
	}
}

// TestCrossSourceDuplicateTiedThree: three sources at precedence 0 publish ds/0..ds/4 in turn.
// When the first one's ds/0 goes, the second's copy is live (it published before the third);
// when it returns, the first one's is live again; neither the second's nor the third's harvests
// change that.
func TestCrossSourceDuplicateTiedThree(t *testing.T) {
	t.Parallel()
	bothBackends(t, testTiedThree)
}

func testTiedThree(t *testing.T, h *dupHarness) {
	first, second, third := h.source(t, "first", 0), h.source(t, "second", 0), h.source(t, "third", 0)
	all := []string{"ds/0", "ds/1", "ds/2", "ds/3", "ds/4"}
	recs := fiveRecords("First")
	h.harvest(t, first, recs...)
	h.harvest(t, second, fiveRecords("Second")...)
	h.harvest(t, third, fiveRecords("Third")...)
	h.requireLive(t, first, all, "the first publisher")

	h.harvest(t, first, recs[1:]...)
	h.requireLive(t, second, []string{"ds/0"}, "the second publisher of ds/0 while the first is gone")
	h.requireLive(t, third, []string{}, "the third publisher")
	h.harvest(t, third, fiveRecords("Third")...)
	h.requireLive(t, third, []string{}, "the third source's harvest takes nothing")

	h.harvest(t, first, recs...)
	h.requireLive(t, first, all, "the first one back")
	h.harvest(t, second, fiveRecords("Second")...)
	h.harvest(t, third, fiveRecords("Third")...)
	h.requireLive(t, first, all, "after the others' harvests")
	h.requireLive(t, second, []string{}, "second")
	h.requireLive(t, third, []string{}, "third")
	for _, p := range h.pairs(t, store.CrossSourceDuplicateListParams{}) {
		require.True(t, h.live(t, p.Kept.SourceID, p.Kept.Identifier), "%s of %s", p.Kept.Identifier, p.Kept.SourceName)
		require.False(t, strings.Contains(p.Held.SourceName, "first"))
	}
}

// TestCrossSourceDuplicateHeldSide (issue 34, seen from the held side): a source whose datasets
// another source's job held counts them (held) in its next job, and that job's warnings, its
// records unchanged, say what is true now (none was carried from before: it had none); when
// the pair swaps in the other source's job, its next warnings say its datasets are the live
// ones; when the other source's dataset goes, its copy's warning goes too. Its records count
// as unchanged throughout.
func TestCrossSourceDuplicateHeldSide(t *testing.T) {
	t.Parallel()
	bothBackends(t, testHeldSide)
}

func testHeldSide(t *testing.T, h *dupHarness) {
	agg, own := h.source(t, "aggregator", 0), h.source(t, "agency", 10)
	recs := fiveRecords("Aggregated")
	h.harvest(t, agg, recs...)
	require.Zero(t, h.harvest(t, own, fiveRecords("Agency")...).Held)

	rep := h.harvest(t, agg, recs...)
	require.Equal(t, [4]int{5, 0, 5, 5}, [4]int{rep.Unchanged, rep.Updated, rep.Warned, rep.Held})
	require.Equal(t, 5, h.duplicateWarnings(t, rep.JobID), "written by this job, not carried")
	for _, w := range h.warnings(t, rep.JobID) {
		require.Contains(t, w, `harvest source "agency"`)
		require.Contains(t, w, "its dataset is held, not live")
	}
	again := h.harvest(t, agg, recs...)
	require.Equal(t, [3]int{5, 5, 5}, [3]int{again.Unchanged, again.Warned, again.Held})
	require.Zero(t, h.duplicateWarnings(t, again.JobID), "carried: nothing moved since")

	// The pair swaps in the agency's job.
	h.setPrecedence(t, agg, 20)
	require.Equal(t, 5, h.harvest(t, own, fiveRecords("Agency")...).Held)
	rep = h.harvest(t, agg, recs...)
	require.Equal(t, [4]int{5, 0, 5, 0}, [4]int{rep.Unchanged, rep.Updated, rep.Warned, rep.Held})
	for _, w := range h.warnings(t, rep.JobID) {
		require.Contains(t, w, "this dataset is the live one and that one is held", "true now")
	}

	// The agency's ds/0 goes: the aggregator's copy is live, and its next warnings say so.
	h.setPrecedence(t, agg, 0)
	h.harvest(t, own, fiveRecords("Agency")...)
	require.Equal(t, 5, h.harvest(t, agg, recs...).Held)
	h.harvest(t, own, fiveRecords("Agency")[1:]...)
	rep = h.harvest(t, agg, recs...)
	require.Equal(t, [4]int{5, 0, 4, 4}, [4]int{rep.Unchanged, rep.Updated, rep.Warned, rep.Held})
	for _, w := range h.warnings(t, rep.JobID) {
		require.NotContains(t, w, `same identifier "ds/0"`, "ds/0 has no duplicate any more")
	}
}
