package catalogsync_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// sharing is n records with identifiers prefix-0000.. that all have the landingPage landing.
func sharing(n int, prefix, landing string) []dupRecord {
	recs := make([]dupRecord, n)
	for i := range recs {
		recs[i] = dupRecord{id: fmt.Sprintf("%s-%04d", prefix, i), title: fmt.Sprintf("%s %d", prefix, i), landing: landing}
	}
	return recs
}

// counts requires the source's live datasets, held datasets and search documents.
func (h *dupHarness) counts(t *testing.T, sourceID string, live, held int) {
	t.Helper()
	n, err := h.st.DatasetCount(t.Context(), sourceID)
	require.NoError(t, err)
	require.Equal(t, live, n, "live datasets")
	n, err = h.st.DatasetCountHeld(t.Context(), sourceID)
	require.NoError(t, err)
	require.Equal(t, held, n, "held datasets")
	require.Equal(t, live, h.indexed(t, sourceID), "search documents")
}

// releasedNotes returns the job's CrossSourceDuplicateReleased rows.
func releasedNotes(rep []string) []string {
	var out []string
	for _, e := range rep {
		if strings.HasPrefix(e, harvest.TypeCrossSourceDuplicateReleased+": ") {
			out = append(out, e)
		}
	}
	return out
}

// TestCrossSourceDuplicateSharedLandingPage: a landingPage that many datasets of one source
// share (an agency's home page) is no key across sources, in either order of the harvests,
// even though a job's records reach SYNC at once (the job's end releases any held early); a
// landingPage unique within both sources still pairs; a pair ends (its held dataset live again,
// with a job notice) on the job in which either source adds a second dataset with its key.
func TestCrossSourceDuplicateSharedLandingPage(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(t *testing.T) *dupHarness{"postgres": newDupHarness,
		"sqlite": newDupHarnessSQLite} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testSharedLandingPage(t, open(t))
		})
	}
}

func testSharedLandingPage(t *testing.T, h *dupHarness) {
	const home = "https://agency.gov/"
	// The higher source first, then the 1,000 records sharing its dataset's landingPage.
	high := h.source(t, "high", 10)
	highRecs := []dupRecord{{id: "home", title: "Home", landing: home},
		{id: "one", title: "One", landing: "https://high.gov/one"}, {id: "two", title: "Two", landing: "https://high.gov/two"}}
	h.harvest(t, high, highRecs...)
	many := h.source(t, "many", -1)
	manyRecs := append(sharing(1000, "m", home), dupRecord{id: "m-one", title: "M one", landing: "https://high.gov/one"},
		dupRecord{id: "m-two", title: "M two", landing: "https://high.gov/two"})
	rep := h.harvest(t, many, manyRecs...)
	require.Equal(t, 1002, rep.Added)
	h.counts(t, many.ID, 1000, 2)
	h.counts(t, high.ID, 3, 0)
	pairs := h.pairs(t, store.CrossSourceDuplicateListParams{SourceID: many.ID})
	require.Len(t, pairs, 2, "only the landingPages unique within both sources pair")
	for _, p := range pairs {
		require.Equal(t, store.MatchLandingPage, p.Match)
		require.Equal(t, high.ID, p.Kept.SourceID)
		require.NotEqual(t, home, p.Key)
	}
	if n := h.duplicateWarnings(t, rep.JobID); n > 2 { // records held for a moment, released at the job's end
		require.NotEmpty(t, releasedNotes(rep.JobErrors), "the job says which pairs it ended")
	}

	// The lower source adds a second dataset with m-one's landingPage: that job ends the pair.
	rep = h.harvest(t, many, append(manyRecs, dupRecord{id: "m-one-b", title: "M one b", landing: "https://high.gov/one"})...)
	require.Equal(t, 1, rep.Added)
	require.Equal(t, string(harvest.JobComplete), rep.Status, "a notice does not fail the job")
	notes := releasedNotes(rep.JobErrors)
	require.Len(t, notes, 1)
	require.Contains(t, notes[0], "1 cross-source duplicate pair(s) ended")
	require.Contains(t, notes[0], `"https://high.gov/one"`)
	require.True(t, h.live(t, many.ID, "m-one"))
	h.counts(t, many.ID, 1002, 1)
	pairs = h.pairs(t, store.CrossSourceDuplicateListParams{SourceID: many.ID})
	require.Len(t, pairs, 1)
	require.Equal(t, "m-two", pairs[0].Held.Identifier)

	// The higher source adds a second dataset with two's landingPage: its job ends that pair.
	rep = h.harvest(t, high, append(highRecs, dupRecord{id: "two-b", title: "Two b", landing: "https://high.gov/two"})...)
	require.Len(t, releasedNotes(rep.JobErrors), 1)
	h.counts(t, many.ID, 1003, 0)
	h.counts(t, high.ID, 4, 0)
	require.Empty(t, h.pairs(t, store.CrossSourceDuplicateListParams{}))

	// The other order: 1,000 datasets sharing a landingPage, then a higher source's one.
	first := h.source(t, "first", -1)
	rep = h.harvest(t, first, sharing(1000, "f", "https://other.gov/")...)
	require.Equal(t, 1000, rep.Added)
	top := h.source(t, "top", 20)
	rep = h.harvest(t, top, dupRecord{id: "top-home", title: "Top home", landing: "https://other.gov/"})
	require.Zero(t, h.duplicateWarnings(t, rep.JobID))
	require.Empty(t, releasedNotes(rep.JobErrors))
	h.counts(t, first.ID, 1000, 0)
	h.counts(t, top.ID, 1, 0)
	require.Empty(t, h.pairs(t, store.CrossSourceDuplicateListParams{}))
}
