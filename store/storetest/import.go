package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testImport: the *Import methods create rows with the given ids, answer ImportUnchanged when
// called again with the same fields (writing nothing), ImportChanged when a field differs, and
// the imported rows read back as written; an imported record with an H2.0 hash is what
// RecordCompareBatch finds as the newest comparable record, H2.0 hash included.
func testImport(t *testing.T, s store.Store) {
	ctx := t.Context()
	orgID, srcID, jobID, recID, dsID := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	created := time.Date(2025, 7, 1, 12, 30, 15, 123456000, time.UTC)
	org := &store.OrganizationImportParams{ID: orgID, Name: "Agency", Slug: "agency"}
	src := &store.SourceImportParams{ID: srcID, SourceInsertParams: store.SourceInsertParams{OrganizationID: orgID,
		Name: "src", URL: "http://example.test/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal, Frequency: harvest.FrequencyWeekly,
		NotificationEmails: []string{"a@example.test"}, NotificationFrequency: harvest.NotifyAlways}}
	job := &store.JobImportParams{ID: jobID, SourceID: srcID, JobType: harvest.JobHarvest, Status: harvest.JobComplete,
		CreatedAt: created, FinishedAt: created.Add(time.Minute), Counts: harvest.Counts{Total: 1, Added: 1}}
	rec := &store.RecordImportParams{ID: recID, JobID: jobID, SourceID: srcID, Identifier: "id-1",
		Action: harvest.ActionCreate, SourceHash: "ours", H2SourceHash: "theirs", SourceRaw: `{"identifier": "id-1"}`,
		SchemaType: harvest.SchemaDCATUS11Federal, CreatedAt: created}
	ds := &store.DatasetImportParams{ID: dsID, Slug: "slug-1", SourceID: srcID, Identifier: "id-1",
		DCAT: json.RawMessage(`{"identifier": "id-1", "title": "T"}`), RecordID: recID, LastHarvestedDate: created}
	all := func() []store.ImportResult {
		var out []store.ImportResult
		for _, f := range []func() (store.ImportResult, error){
			func() (store.ImportResult, error) { return s.OrganizationImport(ctx, org) },
			func() (store.ImportResult, error) { return s.SourceImport(ctx, src) },
			func() (store.ImportResult, error) { return s.JobImport(ctx, job) },
			func() (store.ImportResult, error) { return s.RecordImport(ctx, rec) },
			func() (store.ImportResult, error) { return s.DatasetImport(ctx, ds) },
		} {
			r, err := f()
			require.NoError(t, err)
			out = append(out, r)
		}
		return out
	}
	c, u := store.ImportCreated, store.ImportUnchanged
	require.Equal(t, []store.ImportResult{c, c, c, c, c}, all())
	require.Equal(t, []store.ImportResult{u, u, u, u, u}, all())

	gotSrc, err := s.SourceGet(ctx, srcID)
	require.NoError(t, err)
	require.Equal(t, orgID, gotSrc.OrganizationID)
	require.Equal(t, []string{"a@example.test"}, gotSrc.NotificationEmails)
	require.Equal(t, harvest.FrequencyWeekly, gotSrc.Frequency)
	require.NotNil(t, gotSrc.NextRunAt, "an imported scheduled source is due")
	gotJob, err := s.JobGet(ctx, jobID)
	require.NoError(t, err)
	require.Equal(t, harvest.JobComplete, gotJob.Status)
	require.True(t, gotJob.CreatedAt.Equal(created), gotJob.CreatedAt)
	require.Equal(t, 1, gotJob.Added)
	gotRec, err := s.RecordGet(ctx, recID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, gotRec.Status)
	require.Equal(t, "ours", gotRec.SourceHash)
	gotDS, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: srcID, Identifier: "id-1"})
	require.NoError(t, err)
	require.Equal(t, dsID, gotDS.ID)
	require.Equal(t, "slug-1", gotDS.Slug)
	require.Equal(t, recID, gotDS.RecordID)
	known, err := s.RecordCompareBatch(ctx, []store.RecordCompareKey{{SourceID: srcID, Identifier: "id-1",
		RecordID: harvest.RecordID(uuid.NewString(), "id-1")}})
	require.NoError(t, err)
	require.NotNil(t, known[0].Latest)
	require.Equal(t, "theirs", known[0].Latest.H2SourceHash)
	require.Equal(t, "ours", known[0].Latest.SourceHash)
	require.True(t, known[0].DatasetLive)

	org.Name, ds.Slug = "Agency 2", "slug-2"
	r, err := s.OrganizationImport(ctx, org)
	require.NoError(t, err)
	require.Equal(t, store.ImportChanged, r)
	r, err = s.DatasetImport(ctx, ds)
	require.NoError(t, err)
	require.Equal(t, store.ImportChanged, r)
	gotDS, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: srcID, Identifier: "id-1"})
	require.NoError(t, err)
	require.Equal(t, "slug-2", gotDS.Slug)

	// A dataset a harvest has written since is kept.
	job2 := newJob(t, s, srcID)
	ours := newRecord(t, s, job2, "id-1")
	_, err = s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: srcID, Identifier: "id-1", Slug: "ignored",
		DCAT: dcat("id-1"), RecordID: ours.ID})
	require.NoError(t, err)
	r, err = s.DatasetImport(ctx, ds)
	require.NoError(t, err)
	require.Equal(t, store.ImportUnchanged, r)
	gotDS, err = s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: srcID, Identifier: "id-1"})
	require.NoError(t, err)
	require.Equal(t, ours.ID, gotDS.RecordID, "the harvested dataset is kept")

	// Another dataset with a taken slug is a conflict.
	_, err = s.DatasetImport(ctx, &store.DatasetImportParams{ID: uuid.NewString(), Slug: "slug-2", SourceID: srcID,
		Identifier: "id-2", DCAT: ds.DCAT, RecordID: recID, LastHarvestedDate: created})
	require.ErrorIs(t, err, store.ErrConflict)
}
