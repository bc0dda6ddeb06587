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
		f := newChangeFixture(t, st)
		a, b, base := f.a, f.b, f.base

		f.record("the first record", true, false)
		f.record("nothing changed", false, false)
		f.record("nothing changed again", false, false)

		f.write(a, "da", map[string]any{"identifier": "da", "keyword": []string{"k"}, "temporal": "2020/2021",
			"distribution": []map[string]any{{"accessURL": base + "/a1", "mediaType": "text/csv"}}})
		f.record("a dataset updated", true, true)
		f.record("nothing changed after the update", false, false)

		_, err := st.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: a.ID, Identifier: "db"})
		require.NoError(t, err)
		f.record("a dataset deleted", true, true)

		f.write(a, "dd", map[string]any{"identifier": "dd", "distribution": []map[string]any{{"accessURL": base + "/a4"}}})
		f.record("a dataset added", true, true)

		held := f.get(a, "dc")
		kept := f.get(b, "da")
		ok, err := st.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: kept.ID, HeldID: held.ID,
			Match: store.MatchIdentifier, Key: "dc", JobID: f.jobs[b.ID].ID})
		require.NoError(t, err)
		require.True(t, ok)
		f.record("a dataset held by another source's job", true, true)
		f.record("nothing changed while held", false, false)
		_, err = st.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: b.ID, Identifier: "da"})
		require.NoError(t, err)
		f.record("the dataset live again: the one it was held against deleted by its source", true, true)

		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{{URL: base + "/a4", Status: 404,
			FinalURL: base + "/a4", ContentLength: -1, CheckedAt: f.at}}))
		f.record("a link check's result", true, true)
		require.NoError(t, assess.SaveChecks(ctx, st, []check.Result{{URL: base + "/a4", Status: 404,
			FinalURL: base + "/a4", ContentLength: -1, CheckedAt: f.at.Add(time.Minute)}}))
		f.record("the link checked again, broken the same", false, false)

		f.validationRows(a)

		for _, id := range []string{"da", "dc", "dd"} {
			_, err = st.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: a.ID, Identifier: id})
			require.NoError(t, err)
		}
		f.record("a clear", true, true)
		require.Zero(t, f.last.Datasets)
		f.record("nothing changed after the clear", false, false)
	})
}

// changeFixture is TestRecordJobUnchanged's catalog: sources a and b of one organization, a
// job of each in progress, and the steps' time and last full score.
type changeFixture struct {
	t    *testing.T
	st   store.Store
	org  *store.Organization
	a, b *store.Source
	base string
	jobs map[string]*store.HarvestJob // the source's job in progress, by source id
	at   time.Time
	last *assess.Source
}

func newChangeFixture(t *testing.T, st store.Store) *changeFixture {
	org, err := st.OrganizationInsert(t.Context(), &store.OrganizationInsertParams{Name: "O", Slug: "o-" + uuid.NewString()[:8]})
	require.NoError(t, err)
	f := &changeFixture{t: t, st: st, org: org, base: "https://links.example.gov/" + uuid.NewString()[:8],
		at: time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)}
	var jobA, jobB *store.HarvestJob
	f.a, jobA = seedSource(t, st, org.ID, f.base+"/a1", f.base+"/a2", f.base+"/a3")
	f.b, jobB = seedSource(t, st, org.ID, f.base+"/b1")
	f.jobs = map[string]*store.HarvestJob{f.a.ID: jobA, f.b.ID: jobB}
	return f
}

// nextJob finishes the source's job and starts another, whose records it writes.
func (f *changeFixture) nextJob(src *store.Source) *store.HarvestJob {
	ctx, st, t := f.t.Context(), f.st, f.t
	j := f.jobs[src.ID]
	cur, err := st.JobGet(ctx, j.ID)
	require.NoError(t, err)
	_, err = st.JobSetExpected(ctx, &store.JobSetExpectedParams{JobID: j.ID, Expected: cur.Settled})
	require.NoError(t, err)
	_, _, err = st.JobFinish(ctx, j.ID)
	require.NoError(t, err)
	j, err = st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	f.jobs[src.ID] = j
	return j
}

// write upserts the dataset id of src with a new record of a job of src.
func (f *changeFixture) write(src *store.Source, id string, doc map[string]any) *store.Dataset {
	ctx, st, t := f.t.Context(), f.st, f.t
	job := f.nextJob(src)
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

func (f *changeFixture) get(src *store.Source, id string) *store.Dataset {
	d, err := f.st.DatasetGet(f.t.Context(), &store.DatasetGetParams{SourceID: src.ID, Identifier: id})
	require.NoError(f.t, err)
	return d
}

// rows are job's source, organization and catalog rows.
func (f *changeFixture) rows(job *store.HarvestJob) []*store.QualityAggregate {
	var out []*store.QualityAggregate
	for _, s := range [][2]string{{store.QualityScopeSource, f.a.ID}, {store.QualityScopeOrganization, f.org.ID},
		{store.QualityScopeCatalog, ""}} {
		h, err := f.st.QualityAggregateHistory(f.t.Context(), &store.QualityAggregateHistoryParams{Scope: s[0],
			ScopeID: s[1], Summaries: true})
		require.NoError(f.t, err)
		var found *store.QualityAggregate
		for _, r := range h {
			if r.JobID == job.ID {
				found = r
			}
		}
		require.NotNil(f.t, found, "%s row of job %s", s[0], job.ID)
		out = append(out, found)
	}
	return out
}

// record records a job's end of source a, then the same job by a full rescoring, and requires
// the same rows and newly broken links of both, a scoring only when scored, and a score other
// than the last one's when moves.
func (f *changeFixture) record(step string, scored, moves bool) {
	t := f.t
	f.at = f.at.Add(time.Hour)
	at := f.at
	job := &store.HarvestJob{ID: uuid.NewString(), SourceID: f.a.ID, FinishedAt: &at}
	count := &scoringCount{Store: f.st}
	rec, err := assess.RecordJob(t.Context(), count, job, f.a)
	require.NoError(t, err, step)
	got := f.rows(job)
	full, err := assess.RecordJob(t.Context(), rescoring{f.st}, job, f.a)
	require.NoError(t, err, step)
	want := f.rows(job)
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
		require.NotEqual(t, f.last, full.Source, "%s: the change moves the score", step)
	}
	f.last = full.Source
}

// validationRows: dd written again, the same, by a job that found a warning on its record (a
// change), then a later job carries the warning, the record unchanged (no change).
func (f *changeFixture) validationRows(a *store.Source) {
	ctx, st, t := f.t.Context(), f.st, f.t
	f.write(a, "dd", map[string]any{"identifier": "dd", "distribution": []map[string]any{{"accessURL": f.base + "/a4"}}})
	f.record("a dataset written again the same", true, false)
	d := f.get(a, "dd")
	warning := harvest.RecordError{Type: harvest.TypeValidationWarning, Message: "w", Severity: harvest.SeverityWarning}
	_, _, err := st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: f.jobs[a.ID].ID, Key: "id:dd", Identifier: "dd",
		Outcome: harvest.OutcomeUpdated, Errors: []harvest.RecordError{warning}, RecordID: d.RecordID,
		Status: harvest.RecordSuccess})
	require.NoError(t, err)
	f.record("a validation row on a dataset's record", true, true)
	job := f.nextJob(a)
	_, _, err = st.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: job.ID, Key: "id:dd", Identifier: "dd",
		Outcome: harvest.OutcomeUnchanged, CarriedFromRecordID: d.RecordID})
	require.NoError(t, err)
	errs, _, err := st.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: job.ID})
	require.NoError(t, err)
	require.Len(t, errs, 1, "carried")
	f.record("the validation row carried by a later job", false, false)
}
