package storetest

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// newSource creates a federal DCAT-US document source with a URL no other call uses.
func newSource(t *testing.T, s store.Store) *store.Source {
	t.Helper()
	src, err := s.SourceEnsure(t.Context(), &store.SourceEnsureParams{
		Name:       "Test source",
		URL:        "https://example.gov/" + uuid.NewString() + "/data.json",
		SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal,
	})
	require.NoError(t, err)
	return src
}

// newJob starts a harvest job for the source.
func newJob(t *testing.T, s store.Store, sourceID string) *store.HarvestJob {
	t.Helper()
	job, err := s.JobInsert(t.Context(), &store.JobInsertParams{SourceID: sourceID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	return job
}

// finishJob completes a job with what it has settled so far, so its source can start another.
func finishJob(t *testing.T, s store.Store, jobID string) *store.HarvestJob {
	t.Helper()
	job, err := s.JobGet(t.Context(), jobID)
	require.NoError(t, err)
	_, err = s.JobSetExpected(t.Context(), &store.JobSetExpectedParams{JobID: jobID, Expected: job.Settled})
	require.NoError(t, err)
	job, finished, err := s.JobFinish(t.Context(), jobID)
	require.NoError(t, err)
	require.True(t, finished)
	return job
}

// newRecord writes a pending create record of identifier in the job.
func newRecord(t *testing.T, s store.Store, job *store.HarvestJob, identifier string) *store.HarvestRecord {
	t.Helper()
	rec, err := s.RecordInsert(t.Context(), &store.RecordInsertParams{
		ID:         uuid.NewString(),
		JobID:      job.ID,
		SourceID:   job.SourceID,
		Identifier: identifier,
		Action:     harvest.ActionCreate,
		SourceHash: "hash-" + identifier,
		SourceRaw:  string(dcat(identifier)),
	})
	require.NoError(t, err)
	return rec
}

// settle counts one outcome of the job under key, with no record and no errors.
func settle(t *testing.T, s store.Store, jobID, key string, outcome harvest.Outcome) (*store.HarvestJob, bool) {
	t.Helper()
	job, fresh, err := s.OutcomeSettle(t.Context(), &store.OutcomeSettleParams{
		JobID: jobID, Key: key, Identifier: key, Outcome: outcome,
	})
	require.NoError(t, err)
	return job, fresh
}

// settleRecord settles the record's outcome in its job (added when status is success, else
// errored), which sets the record's status.
func settleRecord(t *testing.T, s store.Store, rec *store.HarvestRecord, status harvest.RecordStatus) {
	t.Helper()
	outcome := harvest.OutcomeErrored
	if status == harvest.RecordSuccess {
		outcome = harvest.OutcomeAdded
	}
	_, fresh, err := s.OutcomeSettle(t.Context(), &store.OutcomeSettleParams{
		JobID: rec.JobID, Key: rec.Identifier, Identifier: rec.Identifier, RecordID: rec.ID,
		Outcome: outcome, Status: status,
	})
	require.NoError(t, err)
	require.True(t, fresh)
}

// newDataset writes a record of identifier in the job and a live dataset from it.
func newDataset(t *testing.T, s store.Store, job *store.HarvestJob, identifier string) *store.Dataset {
	t.Helper()
	rec := newRecord(t, s, job, identifier)
	d, err := s.DatasetUpsert(t.Context(), &store.DatasetUpsertParams{
		SourceID:   job.SourceID,
		Identifier: identifier,
		Slug:       identifier + "-" + rec.ID[:8],
		DCAT:       dcat(identifier),
		RecordID:   rec.ID,
	})
	require.NoError(t, err)
	return d
}

// dcat is a small DCAT-US dataset document for identifier.
func dcat(identifier string) json.RawMessage {
	return json.RawMessage(`{"identifier": "` + identifier + `", "title": "Dataset ` + identifier + `"}`)
}

// unseen collects DatasetListUnseen's identifiers.
func unseen(t *testing.T, s store.Store, sourceID, jobID string) []string {
	t.Helper()
	var ids []string
	err := s.DatasetListUnseen(t.Context(), &store.DatasetListUnseenParams{SourceID: sourceID, JobID: jobID},
		func(identifier string) error {
			ids = append(ids, identifier)
			return nil
		})
	require.NoError(t, err)
	return ids
}

// counters are a job's record counts, compared as one value.
type counters struct {
	Total, Added, Updated, Deleted, Unchanged, Errored, Validated, Settled int
}

func countersOf(j *store.HarvestJob) counters {
	return counters{
		Total: j.Total, Added: j.Added, Updated: j.Updated, Deleted: j.Deleted,
		Unchanged: j.Unchanged, Errored: j.Errored, Validated: j.Validated, Settled: j.Settled,
	}
}

// newQueuedJob queues a harvest job (status new) for the source.
func newQueuedJob(t *testing.T, s store.Store, sourceID string) *store.HarvestJob {
	t.Helper()
	job, err := s.JobInsert(t.Context(), &store.JobInsertParams{SourceID: sourceID, JobType: harvest.JobHarvest, Queued: true})
	require.NoError(t, err)
	require.Equal(t, harvest.JobNew, job.Status)
	return job
}

// newOrganization creates an organization named name with a slug no other call uses.
func newOrganization(t *testing.T, s store.Store, name string) *store.Organization {
	t.Helper()
	org, err := s.OrganizationInsert(t.Context(), &store.OrganizationInsertParams{
		Name: name, Slug: "org-" + uuid.NewString()[:8],
	})
	require.NoError(t, err)
	return org
}

// sourceParams are SourceInsertParams of a document source named name with a URL no other
// call uses; the caller sets what else it needs.
func sourceParams(name string) *store.SourceInsertParams {
	return &store.SourceInsertParams{
		Name:       name,
		URL:        "https://example.gov/" + uuid.NewString() + "/data.json",
		SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal,
	}
}

// insertSource creates the source p describes.
func insertSource(t *testing.T, s store.Store, p *store.SourceInsertParams) *store.Source {
	t.Helper()
	src, err := s.SourceInsert(t.Context(), p)
	require.NoError(t, err)
	return src
}

// recordErrors returns every record error row of the job (RecordErrorList, Limit 0).
func recordErrors(t *testing.T, s store.Store, jobID string) []*store.RecordError {
	t.Helper()
	errs, total, err := s.RecordErrorList(t.Context(), &store.RecordErrorListParams{JobID: jobID})
	require.NoError(t, err)
	require.Len(t, errs, total)
	return errs
}

// jobIDs are the jobs' ids, in order.
func jobIDs(jobs []*store.HarvestJob) []string {
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	return ids
}

// sourceIDs are the sources' ids, in order.
func sourceIDs(srcs []*store.Source) []string {
	ids := make([]string, len(srcs))
	for i, s := range srcs {
		ids[i] = s.ID
	}
	return ids
}
