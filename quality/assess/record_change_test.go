package assess_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/quality/assess"
	"github.com/harvester-dev/harvester/stages/check"
	"github.com/harvester-dev/harvester/store"
)

// rescoring is the store with a change always marked: RecordJob through it scores the source
// again, whatever changed (the full rescoring the fast path must equal).
type rescoring struct{ store.Store }

func (rescoring) QualityChangeList(context.Context, string) ([]int64, error) { return []int64{-1}, nil }
func (rescoring) QualityChangeDelete(context.Context, []int64) error         { return nil }

// scoringCount counts the streams of a source's datasets, which a scoring reads.
type scoringCount struct {
	store.Store
	streams int
}

func (s *scoringCount) DatasetQualityStream(ctx context.Context, p *store.DatasetQualityParams,
	fn func(*store.DatasetQuality) error) error {
	s.streams++
	return s.Store.DatasetQualityStream(ctx, p, fn)
}

// TestRecordJobUnchanged: a job's end records exactly what a full rescoring of the source
// records (its source, organization and catalog rows and its newly broken links) after each
// change to what the score reads, and scores the source only when one happened: nothing
// changed (not scored), a dataset updated, deleted or added, a dataset of the source held by
// another source's job and released again, a link check's result (a check again with the same
// result is no change), a validation row on a dataset's record (a carried copy of it is no
// change), and a clear.
func TestRecordJobUnchanged(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		org, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "O", Slug: "o-" + uuid.NewString()[:8]})
		require.NoError(t, err)
		base := "https://links.example.gov/" + uuid.NewString()[:8]
		a, jobA := seedSource(t, st, org.ID, base+"/a1", base+"/a2", base+"/a3")
		b, jobB := seedSource(t, st, org.ID, base+"/b1")
		jobs := map[string]*store.HarvestJob{a.ID: jobA, b.ID: jobB}
		// nextJob finishes the source's job and starts another, whose records it writes.
		nextJob := func(src *store.Source) *store.HarvestJob {
			j := jobs[src.ID]
			cur, err := st.JobGet(ctx, j.ID)
			require.NoError(t, err)
			_, err = st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: j.ID, Expected: cur.Settled})
			require.NoError(t, err)
			_, _, err = st.JobFinish(ctx, j.ID)
			require.NoError(t, err)
			j, err = st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
			require.NoError(t, err)
			jobs[src.ID] = j
			return j
		}
		// write upserts the dataset id of src with a new record of a job of src.
		write := func(src *store.Source, id string, doc map[string]any) *store.Dataset {
			job := nextJob(src)
			dcat, err := json.Marshal(doc)
			require.NoError(t, err)
			r, err := st.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID,
				SourceID: src.ID, Identifier: id, Action: harvest.ActionUpdate, SourceHash: uuid.NewString(),
				SourceRaw: "{}", SchemaType: harvest.SchemaDCATUS11Federal})
			require.NoError(t, err)
			d, err := st.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: id,
				Slug: id + "-" + uuid.NewString()[:8], DCAT: dcat, RecordID: r.ID})
			require.NoError(t, err)
			return d
		}
		get := func(src *store.Source, id string) *store.Dataset {
			d, err := st.DatasetGet(ctx, &store.DatasetGetParams{SourceID: src.ID, Identifier: id})
			require.NoError(t, err)
			return d
		}

		// rows are job's source, organization and catalog rows.
		rows := func(job *store.HarvestJob) []*store.QualityAggregate {
			var out []*store.QualityAggregate
			for _, s := range [][2]string{{store.QualityScopeSource, a.ID}, {store.QualityScopeOrganization, org.ID},
				{store.QualityScopeCatalog, ""}} {
				h, err := st.QualityAggregateHistory(ctx, &store.QualityAggregateHistoryParams{Scope: s[0], ScopeID: s[1],
					Summaries: true})
				require.NoError(t, err)
				var found *store.QualityAggregate
				for _, r := range h {
					if r.JobID == job.ID {
						found = r
					}
				}
				require.NotNil(t, found, "%s row of job %s", s[0], job.ID)
				out = append(out, found)
			}
			return out
		}
		at := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
		var last *assess.Source
		// record records a job's end of source a, then the same job by a full rescoring, and
		// requires the same rows and newly broken links of both, a scoring only when scored,
		// and a score other than the last one's when moves.
		record := func(step string, scored, moves bool) {
			at = at.Add(time.Hour)
			job := &store.HarvestJob{ID: uuid.NewString(), SourceID: a.ID, FinishedAt: &at}
			count := &scoringCount{Store: st}
			rec, err := assess.RecordJob(ctx, count, job, a)
			require.NoError(t, err, step)
			got := rows(job)
			full, err := assess.RecordJob(ctx, rescoring{st}, job, a)
			require.NoError(t, err, step)
			want := rows(job)
			for i := range want {
				require.JSONEq(t, string(want[i].Summary), string(got[i].Summary), "%s: %s row", step, want[i].Scope)
				want[i].Summary, got[i].Summary = nil, nil
				require.Equal(t, want[i], got[i], "%s: %s row", step, want[i].Scope)
			}
			require.Equal(t, full.NewlyBroken, rec.NewlyBroken, step)
			require.Equal(t, full.Previous, rec.Previous, step)
			streams := count.streams
			if rec.Source.Links.Broken > 0 {
				streams-- // the broken links' datasets (Recorded.NewlyBroken)
			}
			require.Equal(t, scored, streams > 0, "%s: scored", step)
			if moves {
				require.NotEqual(t, last, full.Source, "%s: the change moves the score", step)
			}
			last = full.Source
		}

		record("the first record", true, false)
		record("nothing changed", false, false)
		record("nothing changed again", false, false)

		write(a, "da", map[string]any{"identifier": "da", "keyword": []string{"k"}, "temporal": "2020/2021",
			"distribution": []map[string]any{{"accessURL": base + "/a1", "mediaType": "text/csv"}}})
		record("a dataset updated", true, true)
		record("nothing changed after the update", false, false)

		_, err = st.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: a.ID, Identifier: "db"})
		require.NoError(t, err)
		record("a dataset deleted", true, true)

		write(a, "dd", map[string]any{"identifier": "dd", "distribution": []map[string]any{{"accessURL": base + "/a4"}}})
		record("a dataset added", true, true)

		held := get(a, "dc")
		kept := get(b, "da")
		ok, err := st.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: kept.ID, HeldID: held.ID,
			Match: store.MatchIdentifier, Key: "dc", JobID: jobs[b.ID].ID})
		require.NoError(t, err)
		require.True(t, ok)
		record("a dataset held by another source's job", true, true)
		record("nothing changed while held", false, false)
		_, err = st.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: b.ID, Identifier: "da"})
		require.NoError(t, err)
		record("the dataset live again: the one it was held against deleted by its source", true, true)

		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{{URL: base + "/a4", Status: 404,
			FinalURL: base + "/a4", ContentLength: -1, CheckedAt: at}}))
		record("a link check's result", true, true)
		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{{URL: base + "/a4", Status: 404,
			FinalURL: base + "/a4", ContentLength: -1, CheckedAt: at.Add(time.Minute)}}))
		record("the link checked again, broken the same", false, false)

		// dd written again, the same, by a job that found a warning on its record; a later job
		// carries the warning (the record unchanged).
		write(a, "dd", map[string]any{"identifier": "dd", "distribution": []map[string]any{{"accessURL": base + "/a4"}}})
		record("a dataset written again the same", true, false)
		d := get(a, "dd")
		warning := harvest.RecordError{Type: harvest.TypeValidationWarning, Message: "w", Severity: harvest.SeverityWarning}
		_, _, err = st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: jobs[a.ID].ID, Key: "id:dd", Identifier: "dd",
			Outcome: harvest.OutcomeUpdated, Errors: []harvest.RecordError{warning}, RecordID: d.RecordID,
			Status: harvest.RecordSuccess})
		require.NoError(t, err)
		record("a validation row on a dataset's record", true, true)
		job := nextJob(a)
		_, _, err = st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "id:dd", Identifier: "dd",
			Outcome: harvest.OutcomeUnchanged, CarriedFromRecordID: d.RecordID})
		require.NoError(t, err)
		errs, _, err := st.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: job.ID})
		require.NoError(t, err)
		require.Len(t, errs, 1, "carried")
		record("the validation row carried by a later job", false, false)

		for _, id := range []string{"da", "dc", "dd"} {
			_, err = st.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: a.ID, Identifier: id})
			require.NoError(t, err)
		}
		record("a clear", true, true)
		require.Zero(t, last.Datasets)
		record("nothing changed after the clear", false, false)
	})
}
