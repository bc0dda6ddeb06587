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

// testLinkResultUpsert: rows are written as given, replacing the row of their URL (a later row
// of one batch wins), every column read back as written (a zero LastOKAt as none), and a URL
// never written is missing.
func testLinkResultUpsert(t *testing.T, s store.Store) {
	ctx := t.Context()
	u := "https://data.example.gov/" + uuid.NewString()
	other := u + "/other.csv"
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	ok := &store.LinkResult{URL: u, Status: 200, FinalURL: u + "/final", ContentType: "text/csv",
		ContentLength: 1234, Redirects: 1, OK: true, CheckedAt: t0, LastOKAt: t0}
	gone := &store.LinkResult{URL: u, Status: 404, FinalURL: u, ContentLength: -1, CheckedAt: t0.Add(time.Hour),
		LastOKAt: t0, ConsecutiveFailures: 1}
	refused := &store.LinkResult{URL: other, ErrorClass: "refused", Error: "connection refused", FinalURL: other,
		ContentLength: -1, CheckedAt: t0, ConsecutiveFailures: 7}
	require.NoError(t, s.LinkResultUpsert(ctx, []*store.LinkResult{ok, refused}))
	got, err := s.LinkResultGet(ctx, []string{u})
	require.NoError(t, err)
	require.Equal(t, ok, got[u])
	require.NoError(t, s.LinkResultUpsert(ctx, []*store.LinkResult{ok, gone}))
	require.NoError(t, s.LinkResultUpsert(ctx, nil))

	got, err = s.LinkResultGet(ctx, []string{u, other, u + "/never"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	require.Equal(t, gone, got[u])
	require.Equal(t, refused, got[other])
}

// testDatasetQualityStream: a source's live datasets stream with their record, whether the
// record has a validation row (a warning counts) and their distribution URLs; DatasetLinkURLs is
// their distinct URLs, sorted; LinkResultPrune drops the checks of URLs no live dataset uses.
func testDatasetQualityStream(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	base := "https://links.example.gov/" + uuid.NewString()[:8]
	write := func(identifier string, warn bool, dists ...string) *store.Dataset {
		rec := newRecord(t, s, job, identifier)
		p := &store.OutcomeSettleParams{JobID: job.ID, Key: identifier, Identifier: identifier, RecordID: rec.ID,
			Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess}
		if warn {
			p.Errors = []harvest.RecordError{{Type: harvest.TypeValidationWarning, Message: "no keyword",
				Severity: harvest.SeverityWarning}}
		}
		_, _, err := s.OutcomeSettle(ctx, p)
		require.NoError(t, err)
		doc, err := json.Marshal(map[string]any{"identifier": identifier, "distribution": json.RawMessage(dists[0])})
		require.NoError(t, err)
		d, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: identifier,
			Slug: identifier + "-" + rec.ID[:8], DCAT: doc, RecordID: rec.ID})
		require.NoError(t, err)
		return d
	}
	a := write("a", true, `[{"accessURL": "`+base+`/a", "downloadURL": " `+base+`/shared.csv "}]`)
	b := write("b", false, `{"downloadURL": "`+base+`/shared.csv"}`)
	write("c", false, `"not a distribution"`)

	var got []*store.DatasetQuality
	require.NoError(t, s.DatasetQualityStream(ctx, &store.DatasetQualityParams{SourceID: src.ID},
		func(d *store.DatasetQuality) error {
			got = append(got, d)
			return nil
		}))
	require.Len(t, got, 3)
	byID := map[string]*store.DatasetQuality{}
	for _, d := range got {
		byID[d.Identifier] = d
	}
	require.Equal(t, a.ID, byID["a"].ID)
	require.Equal(t, a.Slug, byID["a"].Slug)
	require.True(t, byID["a"].Findings, "a warning is a validation row")
	require.False(t, byID["b"].Findings)
	require.Equal(t, []string{base + "/a", base + "/shared.csv"}, byID["a"].URLs)
	require.Equal(t, []string{base + "/shared.csv"}, byID["b"].URLs)
	require.Empty(t, byID["c"].URLs)
	require.JSONEq(t, string(b.DCAT), string(byID["b"].DCAT))

	var one []*store.DatasetQuality
	require.NoError(t, s.DatasetQualityStream(ctx, &store.DatasetQualityParams{DatasetID: b.ID},
		func(d *store.DatasetQuality) error {
			one = append(one, d)
			return nil
		}))
	require.Len(t, one, 1)
	require.Equal(t, "b", one[0].Identifier)

	urls, err := s.DatasetLinkURLs(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, []string{base + "/a", base + "/shared.csv"}, urls)

	now := time.Now().UTC().Truncate(time.Second)
	unused := &store.LinkResult{URL: base + "/unused", Status: 200, OK: true, CheckedAt: now, LastOKAt: now}
	used := &store.LinkResult{URL: base + "/shared.csv", Status: 404, CheckedAt: now}
	require.NoError(t, s.LinkResultUpsert(ctx, []*store.LinkResult{unused, used}))
	n, err := s.LinkResultPrune(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, n, 1)
	left, err := s.LinkResultGet(ctx, []string{unused.URL, used.URL})
	require.NoError(t, err)
	require.Len(t, left, 1)
	require.Contains(t, left, used.URL)
}

// testDatasetFindings: each dataset id says whether its record has a validation row (a warning
// counts), an unknown id is missing; no id, no row.
func testDatasetFindings(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	write := func(identifier string, warn bool) *store.Dataset {
		rec := newRecord(t, s, job, identifier)
		p := &store.OutcomeSettleParams{JobID: job.ID, Key: identifier, Identifier: identifier, RecordID: rec.ID,
			Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess}
		if warn {
			p.Errors = []harvest.RecordError{{Type: harvest.TypeValidationWarning, Message: "no keyword",
				Severity: harvest.SeverityWarning}}
		}
		_, _, err := s.OutcomeSettle(ctx, p)
		require.NoError(t, err)
		d, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: identifier,
			Slug: identifier + "-" + rec.ID[:8], DCAT: dcat(identifier), RecordID: rec.ID})
		require.NoError(t, err)
		return d
	}
	warned, clean := write("warned", true), write("clean", false)
	got, err := s.DatasetFindings(ctx, []string{warned.ID, clean.ID, uuid.NewString()})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{warned.ID: true, clean.ID: false}, got)
	got, err = s.DatasetFindings(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, got)
}

// testDatasetGraphs: a DCAT-AP dataset comes with its record graph (source_raw), in the stream
// and by id, and only a SHACL finding (ValidationError, ValidationWarning) counts against it, not
// TRANSFORM's warnings about the DCAT-US record; a dataset of any other schema has no graph and
// any row counts.
func testDatasetGraphs(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	write := func(identifier string, schema harvest.SchemaType, rows ...string) (*store.Dataset, string) {
		raw := "<" + identifier + "> <http://purl.org/dc/terms/title> \"t\" .\n"
		rec, err := s.RecordInsert(ctx, &store.RecordInsertParams{ID: uuid.NewString(), JobID: job.ID,
			SourceID: job.SourceID, Identifier: identifier, Action: harvest.ActionCreate, SourceHash: "h-" + identifier,
			SourceRaw: raw, SchemaType: schema})
		require.NoError(t, err)
		p := &store.OutcomeSettleParams{JobID: job.ID, Key: identifier, Identifier: identifier, RecordID: rec.ID,
			Outcome: harvest.OutcomeAdded, Status: harvest.RecordSuccess}
		for _, typ := range rows {
			p.Errors = append(p.Errors, harvest.RecordError{Type: typ, Message: typ, Severity: harvest.SeverityWarning})
		}
		_, _, err = s.OutcomeSettle(ctx, p)
		require.NoError(t, err)
		d, err := s.DatasetUpsert(ctx, &store.DatasetUpsertParams{SourceID: src.ID, Identifier: identifier,
			Slug: "g-" + rec.ID[:8], DCAT: dcat(identifier), RecordID: rec.ID})
		require.NoError(t, err)
		return d, raw
	}
	apClean, apRaw := write("https://ex.eu/clean", harvest.SchemaDCATAP, harvest.TypeTransformWarning)
	apShacl, apShaclRaw := write("https://ex.eu/shacl", harvest.SchemaDCATAP, harvest.TypeTransformWarning,
		harvest.TypeValidationWarning)
	iso, _ := write("iso-1", harvest.SchemaISO19115_1, harvest.TypeTransformWarning)

	findings, err := s.DatasetFindings(ctx, []string{apClean.ID, apShacl.ID, iso.ID})
	require.NoError(t, err)
	require.Equal(t, map[string]bool{apClean.ID: false, apShacl.ID: true, iso.ID: true}, findings)
	graphs, err := s.DatasetGraphs(ctx, []string{apClean.ID, apShacl.ID, iso.ID, uuid.NewString()})
	require.NoError(t, err)
	require.Equal(t, map[string][]byte{apClean.ID: []byte(apRaw), apShacl.ID: []byte(apShaclRaw)}, graphs)
	graphs, err = s.DatasetGraphs(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, graphs)

	got := map[string]*store.DatasetQuality{}
	require.NoError(t, s.DatasetQualityStream(ctx, &store.DatasetQualityParams{SourceID: src.ID},
		func(d *store.DatasetQuality) error {
			got[d.ID] = d
			return nil
		}))
	require.Len(t, got, 3)
	require.Equal(t, []byte(apRaw), got[apClean.ID].Graph)
	require.False(t, got[apClean.ID].Findings, "a TRANSFORM warning is no SHACL finding")
	require.Equal(t, []byte(apShaclRaw), got[apShacl.ID].Graph)
	require.True(t, got[apShacl.ID].Findings)
	require.Nil(t, got[iso.ID].Graph)
	require.True(t, got[iso.ID].Findings, "any row counts for a record that is not DCAT-AP")
}

// testLinkResultNewest: the newest CheckedAt of the stored checks, in UTC.
func testLinkResultNewest(t *testing.T, s store.Store) {
	ctx := t.Context()
	newest := time.Date(2099, 1, 2, 3, 4, 5, 6000, time.FixedZone("x", 3600))
	u := "https://data.example.gov/" + uuid.NewString()
	require.NoError(t, s.LinkResultUpsert(ctx, []*store.LinkResult{
		{URL: u + "/new", Status: 200, OK: true, CheckedAt: newest, LastOKAt: newest, ContentLength: -1},
		{URL: u + "/old", Status: 404, CheckedAt: newest.Add(-time.Hour), ContentLength: -1, ConsecutiveFailures: 1},
	}))
	got, err := s.LinkResultNewest(ctx)
	require.NoError(t, err)
	require.Equal(t, newest.UTC(), got)
}

// testQualityReport: a job's quality report is read back as saved (the JSON as JSON), a second
// save replaces it, a job without one and a source that is not one are ErrNotFound.
func testQualityReport(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	_, err := s.QualityReportGet(ctx, job.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.QualityReportGet(ctx, "not-a-uuid")
	require.ErrorIs(t, err, store.ErrNotFound)

	t0 := time.Date(2026, 12, 7, 9, 30, 0, 0, time.UTC)
	first := &store.QualityReport{JobID: job.ID, SourceID: src.ID, CreatedAt: t0, Report: json.RawMessage(`{"score": 100.5}`)}
	require.NoError(t, s.QualityReportSave(ctx, first))
	again := &store.QualityReport{JobID: job.ID, SourceID: src.ID, CreatedAt: t0.Add(time.Minute),
		Report: json.RawMessage(`{"score": 200, "rating": "Good"}`)}
	require.NoError(t, s.QualityReportSave(ctx, again))
	got, err := s.QualityReportGet(ctx, job.ID)
	require.NoError(t, err)
	require.Equal(t, job.ID, got.JobID)
	require.Equal(t, src.ID, got.SourceID)
	require.True(t, again.CreatedAt.Equal(got.CreatedAt), "created_at %v", got.CreatedAt)
	require.JSONEq(t, string(again.Report), string(got.Report))

	err = s.QualityReportSave(ctx, &store.QualityReport{JobID: uuid.NewString(), SourceID: uuid.NewString(),
		CreatedAt: t0, Report: json.RawMessage(`{}`)})
	require.ErrorIs(t, err, store.ErrNotFound)
}

// testLinkChangeMarks: a link check whose result changes marks every source's quality inputs
// changed (QualityChangeList) and leaves one mark a source however many checks change, and a
// job's end that deletes the marks it read after a later check still leaves that check's mark.
func testLinkChangeMarks(t *testing.T, s store.Store) {
	ctx := t.Context()
	a, b := newSource(t, s), newSource(t, s)
	u := "https://marks.example.gov/" + uuid.NewString()
	check := func(status int) {
		t.Helper()
		require.NoError(t, s.LinkResultUpsert(ctx, []*store.LinkResult{{URL: u, Status: status, OK: status == 200,
			FinalURL: u, ContentLength: -1, CheckedAt: time.Now().UTC().Truncate(time.Microsecond)}}))
	}
	marks := func(src *store.Source) []int64 {
		t.Helper()
		ids, err := s.QualityChangeList(ctx, src.ID)
		require.NoError(t, err)
		return ids
	}
	for _, src := range []*store.Source{a, b} { // a source's first job scores it: start without marks
		require.NoError(t, s.QualityChangeDelete(ctx, marks(src)))
	}
	for i := range 30 {
		check([]int{200, 404}[i%2])
	}
	require.Len(t, marks(a), 1, "30 changed checks leave one mark")
	require.Len(t, marks(b), 1)

	read := marks(a) // a job's end reads a's marks, then scores
	check(200)       // a check changes meanwhile
	require.NoError(t, s.QualityChangeDelete(ctx, read))
	require.NotEmpty(t, marks(a), "the check after the read keeps a mark")

	require.NoError(t, s.QualityChangeDelete(ctx, marks(a)))
	check(200) // the same result again: no change
	require.Empty(t, marks(a))
}
