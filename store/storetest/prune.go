package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// prunePass runs a whole pass of RecordPrune, then of JobPrune, from the first id to the last,
// as package retention does, and returns the rows they deleted (or counted) by table.
func prunePass(t *testing.T, s store.Store, p store.PruneParams) map[string]int {
	t.Helper()
	rows := map[string]int{}
	for _, step := range []func(*store.PruneParams) (*store.Pruned, error){
		func(p *store.PruneParams) (*store.Pruned, error) { return s.RecordPrune(t.Context(), p) },
		func(p *store.PruneParams) (*store.Pruned, error) { return s.JobPrune(t.Context(), p) },
	} {
		p.After = ""
		for calls := 0; ; calls++ {
			require.Less(t, calls, 10_000, "the pass ends")
			res, err := step(&p)
			require.NoError(t, err)
			for table, n := range res.Rows {
				if n > 0 {
					rows[table] += n
				}
			}
			if res.Next == "" {
				break
			}
			require.Greater(t, res.Next, p.After, "the cursor moves on")
			p.After = res.Next
		}
	}
	return rows
}

// cutoff returns a time between the rows written before it and those written after it: the
// "now minus the retention" of a prune whose clock is moved to that point.
func cutoff() time.Time {
	time.Sleep(5 * time.Millisecond) // the store's clocks (the database's) have microseconds or better
	at := time.Now()
	time.Sleep(5 * time.Millisecond)
	return at
}

// version writes a record of identifier in the job and settles it with status and errs: a
// version of the record as COMPARE and the later stages leave it.
func version(t *testing.T, s store.Store, job *store.HarvestJob, identifier string, action harvest.Action,
	status harvest.RecordStatus, errs ...harvest.RecordError,
) *store.HarvestRecord {
	t.Helper()
	rec, err := s.RecordInsert(t.Context(), &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID,
		SourceID: job.SourceID, Identifier: identifier, Action: action, SourceHash: "hash-" + uuid.NewString()})
	require.NoError(t, err)
	outcome := map[harvest.Action]harvest.Outcome{harvest.ActionCreate: harvest.OutcomeAdded,
		harvest.ActionUpdate: harvest.OutcomeUpdated, harvest.ActionDelete: harvest.OutcomeDeleted}[action]
	if status != harvest.RecordSuccess {
		outcome = harvest.OutcomeErrored
	}
	_, fresh, err := s.OutcomeSettle(t.Context(), &store.OutcomeSettleParams{JobID: job.ID, Key: identifier,
		Identifier: identifier, RecordID: rec.ID, Outcome: outcome, Status: status, Errors: errs})
	require.NoError(t, err)
	require.True(t, fresh)
	return rec
}

// point makes the dataset of the record's identifier live on that record (SYNC's write).
func point(t *testing.T, s store.Store, rec *store.HarvestRecord) *store.Dataset {
	t.Helper()
	d, err := s.DatasetUpsert(t.Context(), &store.DatasetUpsertParams{SourceID: rec.SourceID, Identifier: rec.Identifier,
		Slug: rec.Identifier + "-" + rec.SourceID[:8], DCAT: dcat(rec.Identifier), RecordID: rec.ID})
	require.NoError(t, err)
	return d
}

// emptyJob runs a job of the type that writes no record: it lists identifier, finds it
// unchanged, warns about it and gets a job error row; a job row with one row in each of its
// tables.
func emptyJob(t *testing.T, s store.Store, sourceID string, jobType harvest.JobType, identifier string) *store.HarvestJob {
	t.Helper()
	job, err := s.JobInsert(t.Context(), &store.JobInsertParams{SourceID: sourceID, JobType: jobType})
	require.NoError(t, err)
	require.NoError(t, s.JobIdentifierAdd(t.Context(), &store.JobIdentifierAddParams{JobID: job.ID, Identifier: identifier}))
	_, fresh, err := s.OutcomeSettle(t.Context(), &store.OutcomeSettleParams{JobID: job.ID, Key: identifier,
		Identifier: identifier, Outcome: harvest.OutcomeUnchanged,
		Errors: []harvest.RecordError{{Type: "Note", Message: "a warning", Severity: harvest.SeverityWarning}}})
	require.NoError(t, err)
	require.True(t, fresh)
	require.NoError(t, s.JobErrorAdd(t.Context(), &store.JobErrorAddParams{JobID: job.ID, Type: "Notice", Message: "a notice"}))
	return finishJob(t, s, job.ID)
}

// latest is what COMPARE reads for each identifier of the source (RecordCompareBatch).
func latest(t *testing.T, s store.Store, sourceID string, identifiers ...string) []*store.RecordCompareLatest {
	t.Helper()
	keys := make([]store.RecordCompareKey, len(identifiers))
	for i, id := range identifiers {
		keys[i] = store.RecordCompareKey{SourceID: sourceID, Identifier: id, RecordID: uuid.NewString()}
	}
	res, err := s.RecordCompareBatch(t.Context(), keys)
	require.NoError(t, err)
	out := make([]*store.RecordCompareLatest, len(res))
	for i, r := range res {
		out[i] = r.Latest
	}
	return out
}

// testPruneRecords: a record version superseded before the cutoff goes with the error rows its
// own job wrote; the record a dataset points at, the newest of its key, the newest with a known
// outcome and a version superseded after the cutoff stay; what COMPARE reads does not change; a
// dry run counts what the real one deletes, in batches of any size, and deletes nothing; a zero
// cutoff deletes nothing; a second pass finds nothing.
func testPruneRecords(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	invalid := harvest.RecordError{Type: "ValidationError", Message: "title missing", Severity: harvest.SeverityError}
	warn := harvest.RecordError{Type: "Note", Message: "no modified date", Severity: harvest.SeverityWarning}

	j1 := newJob(t, s, src.ID)
	a1 := version(t, s, j1, "a", harvest.ActionCreate, harvest.RecordSuccess)
	point(t, s, a1) // a stable dataset: its record stays in the oldest job
	b1 := version(t, s, j1, "b", harvest.ActionCreate, harvest.RecordSuccess)
	point(t, s, b1)
	c1 := version(t, s, j1, "c", harvest.ActionCreate, harvest.RecordSuccess)
	point(t, s, c1)
	d1 := version(t, s, j1, "d", harvest.ActionCreate, harvest.RecordErrorValidation, invalid, warn)
	e1 := version(t, s, j1, "e", harvest.ActionCreate, harvest.RecordSuccess)
	point(t, s, e1)
	f1 := version(t, s, j1, "f", harvest.ActionCreate, harvest.RecordSuccess)
	point(t, s, f1)
	h1 := version(t, s, j1, "h", harvest.ActionCreate, harvest.RecordErrorValidation, invalid)
	g1 := version(t, s, j1, "g", harvest.ActionCreate, harvest.RecordErrorValidation, invalid)
	finishJob(t, s, j1.ID)

	j2 := newJob(t, s, src.ID)
	b2 := version(t, s, j2, "b", harvest.ActionUpdate, harvest.RecordSuccess)
	point(t, s, b2)
	c2 := version(t, s, j2, "c", harvest.ActionUpdate, harvest.RecordErrorValidation, invalid) // c stays on c1
	d2 := version(t, s, j2, "d", harvest.ActionUpdate, harvest.RecordErrorValidation, invalid)
	e2 := version(t, s, j2, "e", harvest.ActionDelete, harvest.RecordSuccess)
	_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: src.ID, Identifier: "e"})
	require.NoError(t, err)
	// h unchanged and invalid: j2 carries h1's rows.
	_, _, err = s.OutcomeSettle(ctx, &store.OutcomeSettleParams{JobID: j2.ID, Key: "h", Identifier: "h",
		Outcome: harvest.OutcomeErrored, CarriedFromRecordID: h1.ID})
	require.NoError(t, err)
	finishJob(t, s, j2.ID)

	j3 := newJob(t, s, src.ID)
	b3 := version(t, s, j3, "b", harvest.ActionUpdate, harvest.RecordFailed) // its sync failed: b stays on b2
	h2 := version(t, s, j3, "h", harvest.ActionUpdate, harvest.RecordSuccess)
	g2 := version(t, s, j3, "g", harvest.ActionUpdate, harvest.RecordFailed) // g1 is still what COMPARE reads
	point(t, s, h2)
	finishJob(t, s, j3.ID)

	before := cutoff()
	j4 := newJob(t, s, src.ID)
	f2 := version(t, s, j4, "f", harvest.ActionUpdate, harvest.RecordSuccess) // f1 superseded within the retention
	point(t, s, f2)
	finishJob(t, s, j4.ID)

	keys := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	compared := latest(t, s, src.ID, keys...)
	j2Errors := recordErrors(t, s, j2.ID)
	require.Len(t, j2Errors, 3, "c2's, d2's and the row carried from h1")
	count, err := s.RecordCount(ctx, src.ID)
	require.NoError(t, err)

	require.Empty(t, prunePass(t, s, store.PruneParams{}), "a zero cutoff deletes nothing")
	want := map[string]int{store.TableRecord: 4, store.TableRecordError: 3} // b1, d1, e1, h1; d1's 2 rows, h1's 1
	for _, limit := range []int{1, 3, 0} {
		require.Equal(t, want, prunePass(t, s, store.PruneParams{Before: before, Limit: limit, DryRun: true}),
			"dry run, %d rows a call", limit)
	}
	after, err := s.RecordCount(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, count, after, "a dry run deletes nothing")

	require.Equal(t, want, prunePass(t, s, store.PruneParams{Before: before, Limit: 2}))
	for _, gone := range []*store.HarvestRecord{b1, d1, e1, h1} {
		_, err := s.RecordGet(ctx, gone.ID)
		require.ErrorIs(t, err, store.ErrNotFound, "record %s of %s", gone.ID, gone.Identifier)
	}
	for _, kept := range []*store.HarvestRecord{a1, b2, b3, c1, c2, d2, e2, f1, f2, g1, g2, h2} {
		_, err := s.RecordGet(ctx, kept.ID)
		require.NoError(t, err, "record of %s in job %s", kept.Identifier, kept.JobID)
	}
	require.Equal(t, compared, latest(t, s, src.ID, keys...), "COMPARE reads what it read before")
	ds, err := s.DatasetList(ctx, &store.DatasetListParams{SourceID: src.ID})
	require.NoError(t, err)
	require.Len(t, ds, 5)
	for _, d := range ds {
		_, err := s.RecordGet(ctx, d.RecordID)
		require.NoError(t, err, "the record of live dataset %s", d.Identifier)
	}
	own := recordErrors(t, s, j1.ID)
	require.Len(t, own, 1, "d1's and h1's own rows went with them")
	require.Equal(t, g1.ID, own[0].RecordID, "g1's stays with it")
	carried := recordErrors(t, s, j2.ID)
	require.Len(t, carried, 3, "a row later jobs carried stays theirs")
	for _, e := range carried {
		if e.Identifier == "h" {
			require.Empty(t, e.RecordID, "unlinked from the record that went")
			require.Equal(t, j1.ID, e.CarriedFromJobID)
		}
	}
	for _, j := range []*store.HarvestJob{j1, j2, j3, j4} {
		_, err := s.JobGet(ctx, j.ID)
		require.NoError(t, err, "a source's 20 newest jobs stay")
	}
	require.Empty(t, prunePass(t, s, store.PruneParams{Before: before}), "a second pass finds nothing")
}

// testPruneJobs: a job that finished before the cutoff and holds no record goes with its
// listed identifiers, outcomes, record errors and job errors unless it is one of the 20 newest
// jobs of its source or its source's latest finished harvest job; a job holding a dataset's
// record, or finished after the cutoff, stays; a dry run counts the same and deletes nothing.
func testPruneJobs(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	j0 := newJob(t, s, src.ID)
	point(t, s, version(t, s, j0, "x", harvest.ActionCreate, harvest.RecordSuccess))
	finishJob(t, s, j0.ID)
	var old []*store.HarvestJob
	for range 2 {
		old = append(old, emptyJob(t, s, src.ID, harvest.JobHarvest, "x"))
	}

	validated := newSource(t, s) // 20 validate jobs after its only harvest job
	old = append(old, emptyJob(t, s, validated.ID, harvest.JobValidate, "y"))
	base := emptyJob(t, s, validated.ID, harvest.JobHarvest, "y")
	for range store.DefaultKeepJobs {
		emptyJob(t, s, validated.ID, harvest.JobValidate, "y")
	}

	before := cutoff()
	var recent []*store.HarvestJob // beyond the 20 newest, but finished within the retention
	for range 2 {
		recent = append(recent, emptyJob(t, s, src.ID, harvest.JobHarvest, "x"))
	}
	for range store.DefaultKeepJobs {
		emptyJob(t, s, src.ID, harvest.JobHarvest, "x")
	}
	running := newJob(t, s, src.ID)

	want := map[string]int{store.TableJob: 3, store.TableJobIdentifier: 3, store.TableJobOutcome: 3,
		store.TableRecordError: 3, store.TableJobError: 3}
	require.Equal(t, want, prunePass(t, s, store.PruneParams{Before: before, Limit: 2, DryRun: true}))
	for _, j := range old {
		_, err := s.JobGet(ctx, j.ID)
		require.NoError(t, err, "a dry run deletes nothing")
	}
	require.Equal(t, want, prunePass(t, s, store.PruneParams{Before: before, Limit: 2}))
	for _, j := range old {
		_, err := s.JobGet(ctx, j.ID)
		require.ErrorIs(t, err, store.ErrNotFound)
		errs, total, err := s.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: j.ID})
		require.NoError(t, err)
		require.Zero(t, total)
		require.Empty(t, errs)
		jobErrs, err := s.JobErrorList(ctx, j.ID)
		require.NoError(t, err)
		require.Empty(t, jobErrs)
	}
	for _, j := range append([]*store.HarvestJob{j0, base, running}, recent...) {
		_, err := s.JobGet(ctx, j.ID)
		require.NoError(t, err, "job %s (%s) stays", j.ID, j.JobType)
	}
	fetch, err := s.JobFetchLatest(ctx, validated.ID)
	if err == nil { // the harvest job saved no fetch: none; what matters is that its row is there
		require.Equal(t, base.ID, fetch.JobID)
	}
	_, total, err := s.JobList(ctx, &store.JobListParams{SourceID: src.ID})
	require.NoError(t, err)
	require.Equal(t, 1+2+store.DefaultKeepJobs+1, total, "j0, the 2 recent ones, the 20 newest and the running one")
	require.Empty(t, prunePass(t, s, store.PruneParams{Before: before}), "a second pass finds nothing")
}

// testPruneJobsOfPrunedRecords: a job whose every record a pass deletes goes in the same pass
// (a dry run counts it too), but not one a cross-source duplicate pair names.
func testPruneJobsOfPrunedRecords(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	j1 := newJob(t, s, src.ID)
	point(t, s, version(t, s, j1, "b", harvest.ActionCreate, harvest.RecordSuccess))
	finishJob(t, s, j1.ID)
	j2 := newJob(t, s, src.ID)
	kept := point(t, s, version(t, s, j2, "b", harvest.ActionUpdate, harvest.RecordSuccess))
	finishJob(t, s, j2.ID)
	emptyJob(t, s, src.ID, harvest.JobHarvest, "b")

	other := newSource(t, s)
	t0 := newJob(t, s, other.ID)
	held := point(t, s, version(t, s, t0, "b", harvest.ActionCreate, harvest.RecordSuccess))
	finishJob(t, s, t0.ID)
	pairJob := emptyJob(t, s, other.ID, harvest.JobHarvest, "b")
	ok, err := s.DatasetHold(ctx, &store.DatasetHoldParams{KeptID: kept.ID, HeldID: held.ID,
		Match: store.MatchIdentifier, Key: "b", JobID: pairJob.ID})
	require.NoError(t, err)
	require.True(t, ok)
	emptyJob(t, s, other.ID, harvest.JobHarvest, "b")
	before := cutoff()

	// j1 goes with its record (1 outcome row); j2 and t0 hold datasets' records; the pair's job
	// and each source's newest job stay.
	want := map[string]int{store.TableRecord: 1, store.TableJob: 1, store.TableJobOutcome: 1}
	p := store.PruneParams{Before: before, KeepJobs: 1}
	dry := p
	dry.DryRun = true
	require.Equal(t, want, prunePass(t, s, dry))
	require.Equal(t, want, prunePass(t, s, p))
	_, err = s.JobGet(ctx, j1.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	for _, j := range []*store.HarvestJob{j2, t0, pairJob} {
		_, err := s.JobGet(ctx, j.ID)
		require.NoError(t, err)
	}
	d, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: other.ID, Identifier: "b"})
	require.NoError(t, err)
	require.Equal(t, kept.ID, d.DuplicateOf, "the pair is as it was")
	pairs, n, err := s.CrossSourceDuplicateList(ctx, &store.CrossSourceDuplicateListParams{JobID: pairJob.ID})
	require.NoError(t, err)
	require.Equal(t, 1, n, "the pair still names the job that found it")
	require.Equal(t, pairJob.ID, pairs[0].FirstJobID)
	require.Empty(t, prunePass(t, s, p))
}
