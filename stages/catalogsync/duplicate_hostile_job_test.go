package catalogsync_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// live reports whether the dataset (source, identifier) exists and is live.
func (h *dupHarness) live(t *testing.T, sourceID, identifier string) bool {
	t.Helper()
	d, err := h.st.DatasetGet(t.Context(), &store.DatasetGetParams{SourceID: sourceID, Identifier: identifier})
	require.NoError(t, err, "the dataset exists, live or held")
	return d.DuplicateOf == ""
}

// TestCrossSourceDuplicateDeleteReleases: when the live one of a pair goes (its source stops
// publishing it), the held one becomes live in that job at once, searchable, without a harvest
// of its own source; a tie keeps the dataset live first and does not flap.
func TestCrossSourceDuplicateDeleteReleases(t *testing.T) {
	t.Parallel()
	h := newDupHarness(t)
	a, b := h.source(t, "first", 0), h.source(t, "second", 0)
	recs := shared(3, "Same")
	h.harvest(t, a, recs...)
	found := h.harvest(t, b, recs...)
	require.Equal(t, 3, h.duplicateWarnings(t, found.JobID))
	require.Len(t, h.liveIdentifiers(t, a.ID), 3, "a tie keeps the dataset live first")
	require.Empty(t, h.liveIdentifiers(t, b.ID))

	again := h.harvest(t, a, recs...)
	require.Equal(t, 3, again.Unchanged, "a tie is not judged again")
	again = h.harvest(t, b, recs...)
	require.Equal(t, 3, again.Unchanged)
	require.Len(t, h.liveIdentifiers(t, a.ID), 3, "no flapping")

	gone := h.harvest(t, a, recs[1:]...)
	require.Equal(t, 1, gone.Deleted)
	require.Equal(t, []string{"shared-00"}, h.liveIdentifiers(t, b.ID), "the held one is live at once")
	require.Equal(t, 1, h.indexed(t, b.ID))
	require.Len(t, h.pairs(t, store.CrossSourceDuplicateListParams{}), 2)

	// A clear job of the live side releases every held one.
	clear := h.Harvest(t, pipelinetest.Source{URL: a.URL, SchemaType: pipelinetest.Federal, JobType: harvest.JobClear})
	pipelinetest.MustComplete(t, clear)
	require.Equal(t, 2, clear.Deleted)
	require.Len(t, h.liveIdentifiers(t, b.ID), 3)
	require.Equal(t, 3, h.indexed(t, b.ID))
	require.Empty(t, h.pairs(t, store.CrossSourceDuplicateListParams{}))
}

// TestCrossSourceDuplicateHostile: a chain (A dup of B by identifier, B dup of C by
// landingPage) keeps one live dataset; a cycle (two datasets that are each other's duplicate by
// identifier and by landingPage) is one pair, and swapping it never holds both.
func TestCrossSourceDuplicateHostile(t *testing.T) {
	t.Parallel()
	h := newDupHarness(t)
	low, mid, high := h.source(t, "low", 0), h.source(t, "mid", 5), h.source(t, "high", 10)

	// The chain and the cycle.
	h.harvest(t, low, dupRecord{id: "a", title: "Chain A"}, dupRecord{id: "cyc", title: "Cycle low", landing: "https://x.gov/cyc"})
	h.harvest(t, mid, dupRecord{id: "a", title: "Chain B", landing: "https://x.gov/b"},
		dupRecord{id: "cyc", title: "Cycle mid", landing: "https://x.gov/cyc"})
	require.False(t, h.live(t, low.ID, "a"))
	require.True(t, h.live(t, mid.ID, "a"))
	rep := h.harvest(t, high, dupRecord{id: "c", title: "Chain C", landing: "https://x.gov/b"})
	require.Equal(t, 1, h.duplicateWarnings(t, rep.JobID))
	require.False(t, h.live(t, low.ID, "a"))
	require.False(t, h.live(t, mid.ID, "a"))
	require.True(t, h.live(t, high.ID, "c"), "one live dataset in the chain")
	for _, p := range h.pairs(t, store.CrossSourceDuplicateListParams{}) {
		require.True(t, h.live(t, p.Kept.SourceID, p.Kept.Identifier), "a pair's kept side is the live end of its chain")
	}
	cyc := h.pairs(t, store.CrossSourceDuplicateListParams{SourceID: low.ID})
	require.Len(t, cyc, 2, "the chain's first pair and the cycle's one pair")
	for _, p := range cyc {
		require.Equal(t, store.MatchIdentifier, p.Match, "identifier is the first key")
	}
	require.False(t, h.live(t, low.ID, "cyc"))
	require.True(t, h.live(t, mid.ID, "cyc"))
	h.setPrecedence(t, low, 20) // the cycle's pair swaps; the chain's low A now outranks mid B
	h.harvest(t, low, dupRecord{id: "a", title: "Chain A"}, dupRecord{id: "cyc", title: "Cycle low", landing: "https://x.gov/cyc"})
	require.True(t, h.live(t, low.ID, "cyc"))
	require.False(t, h.live(t, mid.ID, "cyc"), "never both held: no cycle")
	require.True(t, h.live(t, low.ID, "a"))
	require.False(t, h.live(t, mid.ID, "a"))
}

// TestCrossSourceDuplicateHugeAndSelf: a record with 20,000 downloadURLs matches another
// source's record with the same set in another order, with a repeat; a source that repeats an
// identifier and shares a landingPage within itself has no cross-source duplicate.
func TestCrossSourceDuplicateHugeAndSelf(t *testing.T) {
	t.Parallel()
	h := newDupHarness(t)
	low, mid := h.source(t, "low", 20), h.source(t, "mid", 5)
	urls := make([]string, 20000)
	for i := range urls {
		urls[i] = fmt.Sprintf("https://files.agency.gov/data/part-%05d.csv", i)
	}
	rev := slices.Clone(urls)
	slices.Reverse(rev)
	// and a 40 kB landingPage that does not compress (over Postgres's index entry limit)
	var page strings.Builder
	page.WriteString("https://agency.gov/?q=")
	for i := range 640 {
		sum := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		page.WriteString(hex.EncodeToString(sum[:]))
	}
	h.harvest(t, mid, dupRecord{id: "big-mid", title: "Big", urls: append(rev, rev[0])},
		dupRecord{id: "page-mid", title: "Page", landing: page.String()})
	rep := h.harvest(t, low, dupRecord{id: "big-low", title: "Big", urls: urls},
		dupRecord{id: "page-low", title: "Page", landing: page.String()})
	require.Equal(t, 2, rep.Added)
	require.True(t, h.live(t, low.ID, "big-low"))
	require.False(t, h.live(t, mid.ID, "big-mid"))
	require.False(t, h.live(t, mid.ID, "page-mid"))
	big := h.pairs(t, store.CrossSourceDuplicateListParams{JobID: rep.JobID})
	require.Len(t, big, 2)
	slices.SortFunc(big, func(a, b store.CrossSourceDuplicate) int { return strings.Compare(a.Match, b.Match) })
	require.Equal(t, store.MatchDownloadURL, big[0].Match)
	require.Len(t, big[0].Key, 64, "the key is the set's SHA-256")
	require.Equal(t, store.MatchLandingPage, big[1].Match)
	require.True(t, strings.HasPrefix(big[1].Key, "sha256:"), "a huge landingPage is keyed by its hash")

	// A source duplicating itself is not a cross-source duplicate.
	self := h.source(t, "self", 50)
	rep = h.harvest(t, self, dupRecord{id: "s1", title: "Self 1", landing: "https://self.gov/"},
		dupRecord{id: "s1", title: "Self 1 again", landing: "https://self.gov/"},
		dupRecord{id: "s2", title: "Self 2", landing: "https://self.gov/"})
	require.Zero(t, h.duplicateWarnings(t, rep.JobID))
	require.Len(t, h.liveIdentifiers(t, self.ID), 2)
	require.Contains(t, h.ErrorMessages(t, rep.JobID, harvest.SeverityError)[0], "s1")
}

// TestCrossSourceDuplicateDeleteGuard: the delete guard counts a source's held datasets with
// its live ones, as its listing's deletes include them: an aggregator whose datasets are
// mostly held may drop one of them.
func TestCrossSourceDuplicateDeleteGuard(t *testing.T) {
	t.Parallel()
	h := newDupHarness(t)
	own, agg := h.source(t, "own", 10), h.source(t, "agg", 0)
	h.harvest(t, own, shared(4, "Own")...)
	recs := append(shared(4, "Agg"), dupRecord{id: "agg-only", title: "Agg only"})
	h.harvest(t, agg, recs...)
	require.Equal(t, []string{"agg-only"}, h.liveIdentifiers(t, agg.ID))
	rep := h.harvest(t, agg, recs[1:]...)
	require.Equal(t, 1, rep.Deleted, "1 of 5 datasets, not 1 of 1 live one")
	require.Equal(t, 4, rep.Unchanged)
}

// TestCrossSourceDuplicateKeyChange: a held dataset whose record stops sharing the key (its
// landingPage changes) is live again on that harvest, with no warning.
func TestCrossSourceDuplicateKeyChange(t *testing.T) {
	t.Parallel()
	h := newDupHarness(t)
	own, agg := h.source(t, "own", 10), h.source(t, "agg", 0)
	h.harvest(t, own, dupRecord{id: "o", title: "Own", landing: "https://own.gov/l"})
	rep := h.harvest(t, agg, dupRecord{id: "g", title: "Agg", landing: "https://own.gov/l"})
	require.Equal(t, 1, h.duplicateWarnings(t, rep.JobID))
	require.False(t, h.live(t, agg.ID, "g"))
	rep = h.harvest(t, agg, dupRecord{id: "g", title: "Agg", landing: "https://agg.org/g"})
	require.Equal(t, 1, rep.Updated)
	require.Zero(t, h.duplicateWarnings(t, rep.JobID))
	require.True(t, h.live(t, agg.ID, "g"))
	require.Equal(t, 1, h.indexed(t, agg.ID))
	require.Empty(t, h.pairs(t, store.CrossSourceDuplicateListParams{}))
}

// TestCrossSourceDuplicateLiveKeyChange: the live dataset of a pair whose record stops sharing
// the key (a downloadURL added; then a landingPage changed) ends the pair on that harvest: the
// held one is live and indexed, and the job writes no warning.
func TestCrossSourceDuplicateLiveKeyChange(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(t *testing.T) *dupHarness{"postgres": newDupHarness,
		"sqlite": newDupHarnessSQLite} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			testLiveKeyChange(t, open(t))
		})
	}
}

func testLiveKeyChange(t *testing.T, h *dupHarness) {
	agg, ag := h.source(t, "agg", 0), h.source(t, "ag", 0)
	urls := []string{"https://x.gov/1.csv", "https://x.gov/2.csv"}
	h.harvest(t, agg, dupRecord{id: "agg-dl", title: "Agg", urls: urls}, dupRecord{id: "agg-lp", title: "Agg", landing: "https://x.gov/lp"})
	h.harvest(t, ag, dupRecord{id: "ag-dl", title: "Ag", urls: urls}, dupRecord{id: "ag-lp", title: "Ag", landing: "https://x.gov/lp"})
	require.False(t, h.live(t, ag.ID, "ag-dl"))
	require.False(t, h.live(t, ag.ID, "ag-lp"))
	rep := h.harvest(t, agg, dupRecord{id: "agg-dl", title: "Agg", urls: append(urls, "https://x.gov/3.csv")},
		dupRecord{id: "agg-lp", title: "Agg", landing: "https://agg.org/lp"})
	require.Equal(t, 2, rep.Updated)
	require.Zero(t, h.duplicateWarnings(t, rep.JobID))
	require.True(t, h.live(t, ag.ID, "ag-dl"))
	require.True(t, h.live(t, ag.ID, "ag-lp"))
	require.Equal(t, 2, h.indexed(t, ag.ID))
	require.Empty(t, h.pairs(t, store.CrossSourceDuplicateListParams{}))
}

// TestCrossSourceDuplicateConcurrentJobs: two sources with the same precedence harvested at the
// same time, sharing 50 identifiers, end with exactly one live dataset per identifier: each
// SYNC looks up the other after its own write is committed, so at least one of a pair sees the
// other, and two holds each way wait for each other on the kept row.
func TestCrossSourceDuplicateConcurrentJobs(t *testing.T) {
	t.Parallel()
	h := newDupHarness(t)
	a, b := h.source(t, "a", 0), h.source(t, "b", 0)
	h.site.Serve(a.URL, "application/json", dupCatalog(t, shared(50, "A")...))
	h.site.Serve(b.URL, "application/json", dupCatalog(t, shared(50, "B")...))
	reps := make(chan error, 2)
	for _, src := range []*store.Source{a, b} {
		go func() {
			rep := h.Harvest(t, pipelinetest.Source{URL: src.URL, SchemaType: pipelinetest.Federal})
			if rep.Status != string(harvest.JobComplete) {
				reps <- fmt.Errorf("job of %s: %s %v", src.Name, rep.Status, rep.JobErrors)
				return
			}
			reps <- nil
		}()
	}
	require.NoError(t, <-reps)
	require.NoError(t, <-reps)
	live := append(h.liveIdentifiers(t, a.ID), h.liveIdentifiers(t, b.ID)...)
	slices.Sort(live)
	want := make([]string, 50)
	for i, r := range shared(50, "") {
		want[i] = r.id
	}
	require.Equal(t, want, live, "one live dataset per identifier")
	require.Len(t, h.pairs(t, store.CrossSourceDuplicateListParams{}), 50)
}
