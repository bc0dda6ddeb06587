package storetest

import (
	"encoding/json"
	"errors"
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
	rows := newImportRows()
	c, u := store.ImportCreated, store.ImportUnchanged
	require.Equal(t, []store.ImportResult{c, c, c, c, c}, rows.importAll(t, s))
	require.Equal(t, []store.ImportResult{u, u, u, u, u}, rows.importAll(t, s))
	rows.requireReadBack(t, s)

	org, ds, srcID, recID, created := rows.org, rows.ds, rows.src.ID, rows.rec.ID, rows.rec.CreatedAt
	org.Name, ds.Slug = "Agency 2", "slug-2"
	r, err := s.OrganizationImport(ctx, org)
	require.NoError(t, err)
	require.Equal(t, store.ImportChanged, r)
	r, err = s.DatasetImport(ctx, ds)
	require.NoError(t, err)
	require.Equal(t, store.ImportChanged, r)
	gotDS, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: srcID, Identifier: "id-1"})
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

// importRows are one of each imported row: an organization, its source, a job, a record of
// it with an H2.0 hash, and its dataset.
type importRows struct {
	org *store.OrganizationImportParams
	src *store.SourceImportParams
	job *store.JobImportParams
	rec *store.RecordImportParams
	ds  *store.DatasetImportParams
}

func newImportRows() *importRows {
	orgID, srcID, jobID, recID, dsID := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	created := time.Date(2025, 7, 1, 12, 30, 15, 123456000, time.UTC)
	return &importRows{
		org: &store.OrganizationImportParams{ID: orgID, Name: "Agency", Slug: "agency"},
		src: &store.SourceImportParams{ID: srcID, SourceInsertParams: store.SourceInsertParams{OrganizationID: orgID,
			Name: "src", URL: "http://example.test/data.json", SourceType: harvest.SourceDocument,
			SchemaType: harvest.SchemaDCATUS11Federal, Frequency: harvest.FrequencyWeekly,
			NotificationEmails: []string{"a@example.test"}, NotificationFrequency: harvest.NotifyAlways}},
		job: &store.JobImportParams{ID: jobID, SourceID: srcID, JobType: harvest.JobHarvest, Status: harvest.JobComplete,
			CreatedAt: created, FinishedAt: created.Add(time.Minute), Counts: harvest.Counts{Total: 1, Added: 1}},
		rec: &store.RecordImportParams{ID: recID, JobID: jobID, SourceID: srcID, Identifier: "id-1",
			Action: harvest.ActionCreate, SourceHash: "ours", H2SourceHash: "theirs", SourceRaw: `{"identifier": "id-1"}`,
			SchemaType: harvest.SchemaDCATUS11Federal, CreatedAt: created},
		ds: &store.DatasetImportParams{ID: dsID, Slug: "slug-1", SourceID: srcID, Identifier: "id-1",
			DCAT: json.RawMessage(`{"identifier": "id-1", "title": "T"}`), RecordID: recID, LastHarvestedDate: created},
	}
}

// importAll imports the rows in order and returns what each import did.
func (r *importRows) importAll(t *testing.T, s store.Store) []store.ImportResult {
	t.Helper()
	ctx := t.Context()
	var out []store.ImportResult
	for _, f := range []func() (store.ImportResult, error){
		func() (store.ImportResult, error) { return s.OrganizationImport(ctx, r.org) },
		func() (store.ImportResult, error) { return s.SourceImport(ctx, r.src) },
		func() (store.ImportResult, error) { return s.JobImport(ctx, r.job) },
		func() (store.ImportResult, error) { return s.RecordImport(ctx, r.rec) },
		func() (store.ImportResult, error) { return s.DatasetImport(ctx, r.ds) },
	} {
		res, err := f()
		require.NoError(t, err)
		out = append(out, res)
	}
	return out
}

// requireReadBack: the imported rows read back as written, and the record is what
// RecordCompareBatch finds as the newest comparable record, H2.0 hash included.
func (r *importRows) requireReadBack(t *testing.T, s store.Store) {
	t.Helper()
	ctx := t.Context()
	gotSrc, err := s.SourceGet(ctx, r.src.ID)
	require.NoError(t, err)
	require.Equal(t, r.org.ID, gotSrc.OrganizationID)
	require.Equal(t, []string{"a@example.test"}, gotSrc.NotificationEmails)
	require.Equal(t, harvest.FrequencyWeekly, gotSrc.Frequency)
	require.NotNil(t, gotSrc.NextRunAt, "an imported weekly source is scheduled")
	gotJob, err := s.JobGet(ctx, r.job.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.JobComplete, gotJob.Status)
	require.True(t, gotJob.CreatedAt.Equal(r.job.CreatedAt), gotJob.CreatedAt)
	require.Equal(t, 1, gotJob.Added)
	gotRec, err := s.RecordGet(ctx, r.rec.ID)
	require.NoError(t, err)
	require.Equal(t, harvest.RecordSuccess, gotRec.Status)
	require.Equal(t, "ours", gotRec.SourceHash)
	gotDS, err := s.DatasetGet(ctx, &store.DatasetGetParams{SourceID: r.src.ID, Identifier: "id-1"})
	require.NoError(t, err)
	require.Equal(t, r.ds.ID, gotDS.ID)
	require.Equal(t, "slug-1", gotDS.Slug)
	require.Equal(t, r.rec.ID, gotDS.RecordID)
	known, err := s.RecordCompareBatch(ctx, []store.RecordCompareKey{{SourceID: r.src.ID, Identifier: "id-1",
		RecordID: harvest.RecordID(uuid.NewString(), "id-1")}})
	require.NoError(t, err)
	require.NotNil(t, known[0].Latest)
	require.Equal(t, "theirs", known[0].Latest.H2SourceHash)
	require.Equal(t, "ours", known[0].Latest.SourceHash)
	require.True(t, known[0].DatasetLive)
}

// testImportNotDue: an imported scheduled source's next run is one frequency after the import,
// so the scheduler's due query does not list it at once (it lists it a frequency later); a
// manual one has none.
func testImportNotDue(t *testing.T, s store.Store) {
	ctx := t.Context()
	before := time.Now()
	weekly, manual := importedSource(t, s, harvest.FrequencyWeekly), importedSource(t, s, harvest.FrequencyManual)
	due, err := s.SourceListDue(ctx, &store.SourceListDueParams{Now: time.Now()})
	require.NoError(t, err)
	require.Empty(t, due, "an imported source is not due at once")
	src, err := s.SourceGet(ctx, weekly)
	require.NoError(t, err)
	require.NotNil(t, src.NextRunAt)
	require.False(t, src.NextRunAt.Before(before.AddDate(0, 0, 7)), "a week after the import: %v", src.NextRunAt)
	due, err = s.SourceListDue(ctx, &store.SourceListDueParams{Now: time.Now().AddDate(0, 0, 8)})
	require.NoError(t, err)
	require.Len(t, due, 1)
	require.Equal(t, weekly, due[0].ID)
	src, err = s.SourceGet(ctx, manual)
	require.NoError(t, err)
	require.Nil(t, src.NextRunAt)
}

// importedSource imports a source of frequency f (and its organization) and returns its id.
func importedSource(t *testing.T, s store.Store, f harvest.Frequency) string {
	t.Helper()
	org, src := importParams(f)
	_, err := s.OrganizationImport(t.Context(), org)
	require.NoError(t, err)
	_, err = s.SourceImport(t.Context(), src)
	require.NoError(t, err)
	return src.ID
}

// importParams are a new organization and a source of it, of frequency f.
func importParams(f harvest.Frequency) (*store.OrganizationImportParams, *store.SourceImportParams) {
	org := &store.OrganizationImportParams{ID: uuid.NewString(), Name: "Agency"}
	org.Slug = "agency-" + org.ID
	src := &store.SourceImportParams{ID: uuid.NewString(), SourceInsertParams: store.SourceInsertParams{
		OrganizationID: org.ID, Name: "src", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal, Frequency: f}}
	src.URL = "http://example.test/" + src.ID + ".json"
	return org, src
}

// testImportTxRollsBack: the writes of an ImportTx whose fn fails are all undone.
func testImportTxRollsBack(t *testing.T, s store.Store) {
	ctx := t.Context()
	org, src := importParams(harvest.FrequencyDaily)
	boom := errors.New("interrupted")
	err := s.ImportTx(ctx, func(im store.Importer) error {
		for _, f := range []func() (store.ImportResult, error){
			func() (store.ImportResult, error) { return im.OrganizationImport(ctx, org) },
			func() (store.ImportResult, error) { return im.SourceImport(ctx, src) },
		} {
			r, err := f()
			require.NoError(t, err)
			require.Equal(t, store.ImportCreated, r)
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, err = s.OrganizationGet(ctx, org.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.SourceGet(ctx, src.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
}

// testImportTxRowConflict: a write that conflicts inside an ImportTx undoes only itself; the
// transaction's other writes, before and after it, are committed.
func testImportTxRowConflict(t *testing.T, s store.Store) {
	ctx := t.Context()
	taken, _ := importParams(harvest.FrequencyManual)
	_, err := s.OrganizationImport(ctx, taken)
	require.NoError(t, err)
	org, src := importParams(harvest.FrequencyManual)
	clash := &store.OrganizationImportParams{ID: uuid.NewString(), Name: "Clash", Slug: taken.Slug}
	err = s.ImportTx(ctx, func(im store.Importer) error {
		_, err := im.OrganizationImport(ctx, org)
		require.NoError(t, err)
		_, err = im.OrganizationImport(ctx, clash)
		require.ErrorIs(t, err, store.ErrConflict)
		_, err = im.SourceImport(ctx, src)
		require.NoError(t, err)
		return nil
	})
	require.NoError(t, err)
	_, err = s.OrganizationGet(ctx, clash.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, org.ID, got.OrganizationID)
}
