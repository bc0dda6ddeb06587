package catalogsync_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/catalogsync"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// Hostile tests of SYNC's cross-source duplicate judging under concurrency: SYNC judges only the
// datasets DatasetDuplicatePossible names, under the locks of their keys.

func raceStores() map[string]func(t *testing.T) store.Store {
	return map[string]func(t *testing.T) store.Store{
		"sqlite": func(t *testing.T) store.Store {
			st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "h.db"))
			require.NoError(t, err)
			t.Cleanup(st.Close)
			return st
		},
		"postgres": func(t *testing.T) store.Store { return dbtest.Store(t) },
	}
}

// raceRec is one record a source publishes in a round.
type raceRec struct {
	src                *store.Source
	id, title, landing string
	urls               []string
}

func (r raceRec) body() string {
	d := map[string]any{"identifier": r.id, "title": r.title}
	if r.landing != "" {
		d["landingPage"] = r.landing
	}
	var dists []any
	for _, u := range r.urls {
		dists = append(dists, map[string]any{"downloadURL": u})
	}
	if dists != nil {
		d["distribution"] = dists
	}
	b, _ := json.Marshal(d)
	return string(b)
}

// raceSequential makes raceSync hand over one record at a time.
var raceSequential bool

// raceSync writes recs' records in jobs (one a source) and hands them all to h at once, in
// rng's order; a failed message is handled again (a redelivery), up to 10 times.
func raceSync(t *testing.T, st store.Store, h *catalogsync.Handler, jobs map[string]*store.HarvestJob,
	recs []raceRec, round int, rng *rand.Rand,
) {
	ctx := t.Context()
	msgs := make([]*harvest.Record, len(recs))
	for i, r := range recs {
		job := jobs[r.src.ID]
		action := harvest.ActionCreate
		if round > 0 {
			action = harvest.ActionUpdate
		}
		rid := harvest.RecordID(job.ID, r.id)
		body := r.body()
		_, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: rid, JobID: job.ID, SourceID: r.src.ID,
			Identifier: r.id, Action: action, SourceHash: "h", SourceRaw: body})
		require.NoError(t, err)
		msgs[i] = &harvest.Record{JobID: job.ID, SourceID: r.src.ID, RecordID: rid, JobType: harvest.JobHarvest,
			Identifier: r.id, Action: action, Body: harvest.RawText(body)}
	}
	rng.Shuffle(len(msgs), func(i, j int) { msgs[i], msgs[j] = msgs[j], msgs[i] })
	var wg sync.WaitGroup
	for _, rec := range msgs {
		if raceSequential {
			wg.Wait()
		}
		wg.Go(func() {
			var err error
			for range 10 {
				msg, merr := harvest.RecordMessage(harvest.SubjectSync, rec)
				if merr != nil {
					t.Error(merr)
					return
				}
				msg.SetContext(ctx)
				if _, err = h.Handle(msg); err == nil {
					return
				}
			}
			t.Errorf("record %s of %s: %v", rec.Identifier, rec.SourceID, err)
		})
	}
	wg.Wait()
}

// raceCheck: no two live datasets of different sources share a key Find matches by; every held
// dataset reaches a live one in at most 4 hops; a held dataset's live end does not rank lower.
func raceCheck(t *testing.T, st store.Store, recs []raceRec, prec map[string]int, what string) {
	t.Helper()
	ctx := t.Context()
	byID := map[string]*store.Dataset{}
	var all []*store.Dataset
	for _, r := range recs {
		d, err := st.DatasetGet(ctx, &store.DatasetGetParams{SourceID: r.src.ID, Identifier: r.id})
		require.NoError(t, err)
		byID[d.ID] = d
		all = append(all, d)
	}
	for _, d := range all {
		if d.DuplicateOf == "" {
			found, err := st.DatasetDuplicateFind(ctx, &store.DatasetDuplicateFindParams{DatasetID: d.ID, SourceID: d.SourceID,
				Identifier: d.Identifier, LandingPage: d.LandingPage, DownloadURLsSHA: d.DownloadURLsSHA})
			require.NoError(t, err)
			for _, c := range found {
				if c.Live {
					t.Errorf("%s: live %s/%s (prec %d) and live %s/%s (prec %d) share %s %q: a missed pair",
						what, d.SourceID[:8], d.Identifier, prec[d.SourceID], c.SourceID[:8], c.Identifier, c.Precedence, c.Match, c.Key)
					suffix := d.Identifier[len(d.Identifier)-3:]
					for _, o := range all {
						if strings.HasSuffix(o.Identifier, suffix) {
							held := "live"
							if o.DuplicateOf != "" {
								k := byID[o.DuplicateOf]
								held = fmt.Sprintf("held against %s/%s", k.SourceID[:8], k.Identifier)
							}
							t.Logf("    %s/%s prec %d: %s", o.SourceID[:8], o.Identifier, prec[o.SourceID], held)
						}
					}
				}
			}
			continue
		}
		end := d
		for range 4 {
			if end.DuplicateOf == "" {
				break
			}
			next, ok := byID[end.DuplicateOf]
			if !ok {
				t.Errorf("%s: %s held against unknown %s", what, d.Identifier, end.DuplicateOf)
				break
			}
			end = next
		}
		if end.DuplicateOf != "" {
			t.Errorf("%s: held %s/%s reaches no live dataset (a cycle?)", what, d.SourceID[:8], d.Identifier)
		} else if prec[end.SourceID] < prec[d.SourceID] {
			t.Errorf("%s: held %s/%s (prec %d) kept by %s/%s of lower prec %d", what, d.SourceID[:8], d.Identifier,
				prec[d.SourceID], end.SourceID[:8], end.Identifier, prec[end.SourceID])
		}
	}
}

// TestTwoSourcesSharingKeysAtOnce: two sources whose records share identifiers, landingPages and
// downloadURL sets (keys unique within each source) are synced all at once, shuffled, so that
// pairs land in one batch and in two concurrent batches, in both orders; then harvested again
// (held datasets updated), then with some keys changed under the pairs (stale pairs), then
// changed back. After each round no pair is missed (no two live datasets share a key), every held
// dataset reaches a live one, never one of lower precedence. Ties and both differences.
func TestTwoSourcesSharingKeysAtOnce(t *testing.T) {
	testSourcesSharingKeys(t, false, [][]int{{0, 0}, {1, 0}, {0, 1}, {-5, 5}})
}

// TestThreeSourcesSharingKeysAtOnce is the same with three sources. Without the key locks
// (catalogsync's keyLocks) it failed in most runs on both backends: concurrent judges of three
// datasets sharing a key left two of them live.
func TestThreeSourcesSharingKeysAtOnce(t *testing.T) {
	testSourcesSharingKeys(t, false, [][]int{{0, 0, 0}, {2, 1, 0}, {-1, 3, 3}})
}

// TestThreeSourcesSharingKeysEveryFind is TestThreeSourcesSharingKeysAtOnce with
// DatasetDuplicatePossible naming every dataset: one DatasetDuplicateFind a record, as SYNC did
// before DatasetDuplicatePossible (it failed as often without the key locks: the race was older).
func TestThreeSourcesSharingKeysEveryFind(t *testing.T) {
	testSourcesSharingKeys(t, true, [][]int{{0, 0, 0}, {2, 1, 0}, {-1, 3, 3}})
}

// TestThreeSourcesSharingKeysInTurn is TestThreeSourcesSharingKeysAtOnce one record at a time (no
// concurrency).
func TestThreeSourcesSharingKeysInTurn(t *testing.T) {
	raceSequential = true
	defer func() { raceSequential = false }()
	testSourcesSharingKeys(t, false, [][]int{{0, 0, 0}, {2, 1, 0}, {-1, 3, 3}})
}

// everyPossible is a real store whose DatasetDuplicatePossible names every id.
type everyPossible struct{ store.Store }

func (e everyPossible) DatasetDuplicatePossible(_ context.Context, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

func testSourcesSharingKeys(t *testing.T, every bool, precSets [][]int) {
	long := strings.Repeat("Annual Water Quality Monitoring Station Report ", 3)
	for name, open := range raceStores() {
		for _, precs := range precSets {
			t.Run(fmt.Sprintf("%s/%v", name, precs), func(t *testing.T) {
				st := open(t)
				ctx := t.Context()
				require.NoError(t, st.Migrate(ctx))
				var hs catalogsync.Store = st
				if every {
					hs = everyPossible{st}
				}
				h := catalogsync.New(hs, nil)
				defer h.Close()
				prec := map[string]int{}
				var srcs []*store.Source
				for i, p := range precs {
					src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: fmt.Sprintf("S%d", i),
						URL: fmt.Sprintf("https://s%d.example.gov/data.json", i), SourceType: harvest.SourceDocument,
						SchemaType: harvest.SchemaDCATUS11Federal, Precedence: p})
					require.NoError(t, err)
					prec[src.ID] = p
					srcs = append(srcs, src)
				}
				const n = 48
				gen := func(round int) []raceRec {
					var recs []raceRec
					for si, src := range srcs {
						for i := range n {
							r := raceRec{src: src, id: fmt.Sprintf("s%d-%03d", si, i), title: fmt.Sprintf("%s %d", long, i%5)}
							switch i % 4 {
							case 0: // same identifier in every source
								r.id = fmt.Sprintf("shared-%03d", i)
							case 1: // same landingPage
								r.landing = fmt.Sprintf("https://data.gov/l/%d", i)
							case 2: // same downloadURL set, another order
								r.urls = []string{fmt.Sprintf("https://data.gov/%d/a.csv", i), fmt.Sprintf("https://data.gov/%d/b.csv", i)}
								if si%2 == 1 {
									r.urls[0], r.urls[1] = r.urls[1], r.urls[0]
								}
							}
							if round == 2 && si == 0 && i%8 == 1 { // the first source's key changes
								r.landing += "/v2"
							}
							if round == 2 && si == 1 && i%8 == 2 {
								r.urls = append(r.urls, "https://data.gov/extra.csv")
							}
							recs = append(recs, r)
						}
					}
					return recs
				}
				for round := range 4 {
					jobs := map[string]*store.HarvestJob{}
					for _, src := range srcs {
						job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
						require.NoError(t, err)
						jobs[src.ID] = job
					}
					g := round
					if round == 3 {
						g = 1 // back to the first keys
					}
					recs := gen(g)
					raceSync(t, st, h, jobs, recs, round, rand.New(rand.NewPCG(uint64(round), uint64(len(precs)))))
					raceCheck(t, st, recs, prec, fmt.Sprintf("round %d", round))
					for _, job := range jobs {
						_, err := st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: job.ID, Expected: 0})
						require.NoError(t, err)
						_, finished, err := st.JobFinish(ctx, job.ID)
						require.NoError(t, err)
						require.True(t, finished)
					}
				}
			})
		}
	}
}

// TestSameDatasetTwiceInBatch: every record of two sources sharing keys is delivered twice
// at once (a redelivery racing the first delivery), so batches name one dataset twice and fall
// back to one statement a dataset; no message fails and no pair is missed.
func TestSameDatasetTwiceInBatch(t *testing.T) {
	for name, open := range raceStores() {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			ctx := t.Context()
			require.NoError(t, st.Migrate(ctx))
			h := catalogsync.New(st, nil)
			defer h.Close()
			prec := map[string]int{}
			jobs := map[string]*store.HarvestJob{}
			var recs []raceRec
			for si := range 2 {
				src, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: fmt.Sprintf("S%d", si),
					URL: fmt.Sprintf("https://s%d.example.gov/data.json", si), SourceType: harvest.SourceDocument,
					SchemaType: harvest.SchemaDCATUS11Federal, Precedence: si})
				require.NoError(t, err)
				prec[src.ID] = si
				job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
				require.NoError(t, err)
				jobs[src.ID] = job
				for i := range 40 {
					recs = append(recs, raceRec{src: src, id: fmt.Sprintf("s%d-%03d", si, i), title: "Same Title",
						landing: fmt.Sprintf("https://data.gov/l/%d", i)})
				}
			}
			var msgs []*harvest.Record
			for _, r := range recs {
				job := jobs[r.src.ID]
				rid := harvest.RecordID(job.ID, r.id)
				_, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: rid, JobID: job.ID, SourceID: r.src.ID,
					Identifier: r.id, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: r.body()})
				require.NoError(t, err)
				rec := &harvest.Record{JobID: job.ID, SourceID: r.src.ID, RecordID: rid, JobType: harvest.JobHarvest,
					Identifier: r.id, Action: harvest.ActionCreate, Body: harvest.RawText(r.body())}
				msgs = append(msgs, rec, rec)
			}
			var wg sync.WaitGroup
			for _, rec := range msgs {
				wg.Go(func() {
					msg, err := harvest.RecordMessage(harvest.SubjectSync, rec)
					if err != nil {
						t.Error(err)
						return
					}
					msg.SetContext(ctx)
					if _, err := h.Handle(msg); err != nil {
						t.Errorf("record %s: %v", rec.Identifier, err)
					}
				})
			}
			wg.Wait()
			raceCheck(t, st, recs, prec, "twice")
		})
	}
}
