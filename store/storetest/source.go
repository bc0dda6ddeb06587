package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// testMigrateAgain: migrating a migrated store is a no-op that keeps its rows.
func testMigrateAgain(t *testing.T, s store.Store) {
	src := newSource(t, s)
	require.NoError(t, s.Migrate(t.Context()))
	got, err := s.SourceGet(t.Context(), src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got)
}

func testSourceEnsureCreates(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := &store.SourceEnsureParams{
		Name:       "Agency data",
		URL:        "https://agency.example.gov/data.json",
		SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal,
	}
	src, err := s.SourceEnsure(ctx, p)
	require.NoError(t, err)
	require.NotEmpty(t, src.ID)
	require.Equal(t, p.Name, src.Name)
	require.Equal(t, p.URL, src.URL)
	require.Equal(t, p.SourceType, src.SourceType)
	require.Equal(t, p.SchemaType, src.SchemaType)
	require.Empty(t, src.OrganizationID)
	require.Equal(t, harvest.FrequencyManual, src.Frequency)
	require.Nil(t, src.NextRunAt, "a manual source has no next run")
	require.Nil(t, src.NotificationEmails)
	require.Equal(t, harvest.NotifyOnError, src.NotificationFrequency)
	require.False(t, src.CreatedAt.IsZero())
	require.True(t, src.CreatedAt.Equal(src.UpdatedAt))

	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got)
}

// testSourceEnsureExisting: the same URL is the same source; only schema_type follows p.
func testSourceEnsureExisting(t *testing.T, s store.Store) {
	ctx := t.Context()
	first, err := s.SourceEnsure(ctx, &store.SourceEnsureParams{
		Name: "Agency data", URL: "https://agency.example.gov/data.json",
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11Federal,
	})
	require.NoError(t, err)

	second, err := s.SourceEnsure(ctx, &store.SourceEnsureParams{
		Name: "Renamed", URL: first.URL,
		SourceType: harvest.SourceDocument, SchemaType: harvest.SchemaDCATUS11NonFederal,
	})
	require.NoError(t, err)
	require.Equal(t, first.ID, second.ID)
	require.Equal(t, first.Name, second.Name, "an existing source keeps its name")
	require.Equal(t, first.URL, second.URL)
	require.Equal(t, first.SourceType, second.SourceType)
	require.Equal(t, harvest.SchemaDCATUS11NonFederal, second.SchemaType)
	require.True(t, first.CreatedAt.Equal(second.CreatedAt))

	got, err := s.SourceGet(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, second, got)

	other := newSource(t, s)
	require.NotEqual(t, first.ID, other.ID)

	// The source type and a waf-collection's parent follow the latest call too.
	third, err := s.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "x", URL: first.URL,
		SourceType: harvest.SourceWAFCollection, SchemaType: harvest.SchemaISO19115_2,
		CollectionParentURL: "https://agency.example.gov/waf/parent.xml"})
	require.NoError(t, err)
	require.Equal(t, first.ID, third.ID)
	require.Equal(t, harvest.SourceWAFCollection, third.SourceType)
	require.Equal(t, "https://agency.example.gov/waf/parent.xml", third.CollectionParentURL)
	got, err = s.SourceGet(ctx, first.ID)
	require.NoError(t, err)
	require.Equal(t, third, got)
}

func testSourceGetNotFound(t *testing.T, s store.Store) {
	newSource(t, s)
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		_, err := s.SourceGet(t.Context(), id)
		require.ErrorIs(t, err, store.ErrNotFound, "id %q", id)
	}
}

// requireTime checks that got is the instant want.
func requireTime(t *testing.T, want time.Time, got *time.Time, msgAndArgs ...any) {
	t.Helper()
	require.NotNil(t, got, msgAndArgs...)
	require.True(t, want.Equal(*got), append([]any{"want %v, got %v", want, *got}, msgAndArgs...)...)
}

// testSourceInsert: every field is stored; a scheduled source is due at once.
func testSourceInsert(t *testing.T, s store.Store) {
	ctx := t.Context()
	org := newOrganization(t, s, "GSA")
	p := &store.SourceInsertParams{
		OrganizationID:        org.ID,
		Name:                  "GSA data.json",
		URL:                   "https://www.gsa.gov/data.json",
		SourceType:            harvest.SourceDocument,
		SchemaType:            harvest.SchemaDCATUS11Federal,
		Frequency:             harvest.FrequencyWeekly,
		NotificationEmails:    []string{"a@gsa.gov", "b@gsa.gov"},
		NotificationFrequency: harvest.NotifyAlways,
		Precedence:            5,
	}
	src := insertSource(t, s, p)
	require.NotEmpty(t, src.ID)
	require.Equal(t, &store.Source{
		ID: src.ID, OrganizationID: org.ID, Name: p.Name, URL: p.URL, SourceType: p.SourceType,
		SchemaType: p.SchemaType, Frequency: p.Frequency, NotificationEmails: p.NotificationEmails,
		NotificationFrequency: p.NotificationFrequency, NextRunAt: src.NextRunAt, Precedence: 5,
		CreatedAt: src.CreatedAt, UpdatedAt: src.UpdatedAt,
	}, src)
	require.False(t, src.CreatedAt.IsZero())
	require.True(t, src.CreatedAt.Equal(src.UpdatedAt))
	requireTime(t, src.CreatedAt, src.NextRunAt, "a scheduled source is due when created")

	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got)
}

// testSourceInsertDefaults: empty frequency is manual (no next run), empty notification
// frequency is on_error, no organization is empty.
func testSourceInsertDefaults(t *testing.T, s store.Store) {
	p := sourceParams("Defaults")
	src := insertSource(t, s, p)
	require.Empty(t, src.OrganizationID)
	require.Equal(t, harvest.FrequencyManual, src.Frequency)
	require.Nil(t, src.NextRunAt)
	require.Nil(t, src.NotificationEmails)
	require.Equal(t, harvest.NotifyOnError, src.NotificationFrequency)

	got, err := s.SourceGet(t.Context(), src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got)
}

// testSourceInsertConflict: a taken URL conflicts; an unknown organization is not found.
func testSourceInsertConflict(t *testing.T, s store.Store) {
	ctx := t.Context()
	ensured := newSource(t, s)
	inserted := insertSource(t, s, sourceParams("First"))
	for _, url := range []string{ensured.URL, inserted.URL} {
		p := sourceParams("Second")
		p.URL = url
		_, err := s.SourceInsert(ctx, p)
		require.ErrorIs(t, err, store.ErrConflict, url)
	}

	for _, orgID := range []string{uuid.NewString(), "not-a-uuid"} {
		p := sourceParams("Orphan")
		p.OrganizationID = orgID
		_, err := s.SourceInsert(ctx, p)
		require.ErrorIs(t, err, store.ErrNotFound, orgID)
	}
	_, total, err := s.SourceList(ctx, &store.SourceListParams{})
	require.NoError(t, err)
	require.Equal(t, 2, total, "failed inserts leave no row")
}

// testSourceList: ordered by name, optionally of one organization, paged, with the total.
func testSourceList(t *testing.T, s store.Store) {
	gsa, nasa := newOrganization(t, s, "GSA"), newOrganization(t, s, "NASA")
	add := func(name, orgID string) {
		p := sourceParams(name)
		p.OrganizationID = orgID
		insertSource(t, s, p)
	}
	add("c", gsa.ID)
	add("a", gsa.ID)
	add("b", nasa.ID)
	add("d", "")
	list := func(p store.SourceListParams) ([]string, int) {
		t.Helper()
		srcs, total, err := s.SourceList(t.Context(), &p)
		require.NoError(t, err)
		var names []string
		for _, src := range srcs {
			names = append(names, src.Name)
		}
		return names, total
	}

	names, total := list(store.SourceListParams{})
	require.Equal(t, []string{"a", "b", "c", "d"}, names)
	require.Equal(t, 4, total)
	names, total = list(store.SourceListParams{PageParams: store.PageParams{Limit: 2, Offset: 1}})
	require.Equal(t, []string{"b", "c"}, names)
	require.Equal(t, 4, total)
	names, total = list(store.SourceListParams{OrganizationID: gsa.ID})
	require.Equal(t, []string{"a", "c"}, names)
	require.Equal(t, 2, total)
	names, total = list(store.SourceListParams{OrganizationID: gsa.ID, PageParams: store.PageParams{Limit: 1, Offset: 1}})
	require.Equal(t, []string{"c"}, names)
	require.Equal(t, 2, total)
	names, total = list(store.SourceListParams{OrganizationID: newOrganization(t, s, "Empty").ID})
	require.Empty(t, names)
	require.Zero(t, total)
	names, total = list(store.SourceListParams{PageParams: store.PageParams{Offset: 10}})
	require.Empty(t, names, "past the end")
	require.Equal(t, 4, total)
}

// testSourceUpdate: the editable fields are replaced; an unchanged frequency keeps the next run.
func testSourceUpdate(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := sourceParams("Before")
	p.Frequency = harvest.FrequencyDaily
	src := insertSource(t, s, p)
	next := time.Now().Add(48 * time.Hour).Truncate(time.Second)
	require.NoError(t, s.SourceScheduleNext(ctx, &store.SourceScheduleNextParams{SourceID: src.ID, NextRunAt: &next}))

	org := newOrganization(t, s, "GSA")
	up := &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: store.SourceInsertParams{
		OrganizationID: org.ID, Name: "After", URL: "https://example.gov/after.json",
		SourceType: harvest.SourceType("waf"), SchemaType: harvest.SchemaDCATUS11NonFederal,
		Frequency: harvest.FrequencyDaily, NotificationEmails: []string{"ops@example.gov"},
		NotificationFrequency: harvest.NotifyOnErrorOrUpdate, Precedence: -10,
	}}
	got, err := s.SourceUpdate(ctx, up)
	require.NoError(t, err)
	require.Equal(t, &store.Source{
		ID: src.ID, OrganizationID: org.ID, Name: "After", URL: up.URL, SourceType: up.SourceType,
		SchemaType: up.SchemaType, Frequency: harvest.FrequencyDaily, NotificationEmails: up.NotificationEmails,
		NotificationFrequency: up.NotificationFrequency, NextRunAt: got.NextRunAt, Precedence: -10,
		CreatedAt: src.CreatedAt, UpdatedAt: got.UpdatedAt,
	}, got)
	requireTime(t, next, got.NextRunAt, "the frequency did not change")
	require.False(t, got.UpdatedAt.Before(src.UpdatedAt))
	again, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, got, again)

	// Back to no organization and the defaults.
	got, err = s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: *sourceParams("Plain")})
	require.NoError(t, err)
	require.Empty(t, got.OrganizationID)
	require.Equal(t, harvest.FrequencyManual, got.Frequency)
	require.Nil(t, got.NextRunAt)
	require.Nil(t, got.NotificationEmails)
	require.Equal(t, harvest.NotifyOnError, got.NotificationFrequency)
	require.Zero(t, got.Precedence)
}

// testSourceUpdateErrors: a missing source, a taken URL, an unknown organization.
func testSourceUpdateErrors(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := insertSource(t, s, sourceParams("Mine"))
	other := insertSource(t, s, sourceParams("Other"))

	_, err := s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: uuid.NewString(), SourceInsertParams: *sourceParams("x")})
	require.ErrorIs(t, err, store.ErrNotFound)
	p := sourceParams("Mine")
	p.URL = other.URL
	_, err = s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: *p})
	require.ErrorIs(t, err, store.ErrConflict)
	p = sourceParams("Mine")
	p.OrganizationID = uuid.NewString()
	_, err = s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: *p})
	require.ErrorIs(t, err, store.ErrNotFound)

	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got, "failed updates change nothing")
}

// testSourceDelete: a source goes with its jobs, records and errors; other sources stay.
func testSourceDelete(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	done := newJob(t, s, src.ID)
	rec := newRecord(t, s, done, "a")
	_, _, err := s.OutcomeSettle(ctx, &store.OutcomeSettleParams{
		JobID: done.ID, Key: "a", Identifier: "a", RecordID: rec.ID, Outcome: harvest.OutcomeErrored,
		Status: harvest.RecordErrorValidation,
		Errors: []harvest.RecordError{{Type: "ValidationError", Message: "title missing", Severity: harvest.SeverityError}},
	})
	require.NoError(t, err)
	require.NoError(t, s.JobIdentifierAdd(ctx, &store.JobIdentifierAddParams{JobID: done.ID, Identifier: "a"}))
	finishJob(t, s, done.ID)
	failed := newJob(t, s, src.ID)
	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: failed.ID, Type: "ExtractError", Message: "404"})
	require.NoError(t, err)
	keep := newSource(t, s)
	kept := newRecord(t, s, newJob(t, s, keep.ID), "a")

	require.NoError(t, s.SourceDelete(ctx, src.ID))
	_, err = s.SourceGet(ctx, src.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	for _, id := range []string{done.ID, failed.ID} {
		_, err = s.JobGet(ctx, id)
		require.ErrorIs(t, err, store.ErrNotFound)
		require.Empty(t, recordErrors(t, s, id))
		errs, err := s.JobErrorList(ctx, id)
		require.NoError(t, err)
		require.Empty(t, errs)
	}
	_, err = s.RecordGet(ctx, rec.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	n, err := s.RecordCount(ctx, src.ID)
	require.NoError(t, err)
	require.Zero(t, n)

	_, err = s.RecordGet(ctx, kept.ID)
	require.NoError(t, err, "another source's history stays")
	require.ErrorIs(t, s.SourceDelete(ctx, src.ID), store.ErrNotFound)
	require.ErrorIs(t, s.SourceDelete(ctx, "not-a-uuid"), store.ErrNotFound)
}

// testSourceDeleteConflict: refused while the source has live datasets or an unfinished job.
func testSourceDeleteConflict(t *testing.T, s store.Store) {
	ctx := t.Context()
	src := newSource(t, s)
	job := newJob(t, s, src.ID)
	require.ErrorIs(t, s.SourceDelete(ctx, src.ID), store.ErrConflict, "a job in progress")
	d := newDataset(t, s, job, "a")
	finishJob(t, s, job.ID)
	require.ErrorIs(t, s.SourceDelete(ctx, src.ID), store.ErrConflict, "a live dataset")

	_, err := s.DatasetDelete(ctx, &store.DatasetDeleteParams{SourceID: src.ID, Identifier: d.Identifier})
	require.NoError(t, err)
	queued := newQueuedJob(t, s, src.ID)
	require.ErrorIs(t, s.SourceDelete(ctx, src.ID), store.ErrConflict, "a queued job")
	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, src.ID, got.ID)

	_, err = s.JobFail(ctx, &store.JobFailParams{JobID: queued.ID, Type: "Cancelled", Message: "by test"})
	require.NoError(t, err)
	require.NoError(t, s.SourceDelete(ctx, src.ID))
}

// testSourceCollectionParent: a waf-collection's parent URL is stored, replaced and cleared.
func testSourceCollectionParent(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := sourceParams("collection")
	p.SourceType, p.SchemaType = harvest.SourceWAFCollection, harvest.SchemaISO19115_2
	p.CollectionParentURL = "https://waf.example.gov/cfg/parent.xml"
	src := insertSource(t, s, p)
	require.Equal(t, p.CollectionParentURL, src.CollectionParentURL)

	p.SourceType, p.CollectionParentURL = harvest.SourceWAF, ""
	updated, err := s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: *p})
	require.NoError(t, err)
	require.Empty(t, updated.CollectionParentURL)
	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, updated, got)
}

// testSourceWAFTimeZone: a WAF source's time zone is stored and replaced by insert and update
// ("" clears it), and kept by SourceEnsure unless the call gives one.
func testSourceWAFTimeZone(t *testing.T, s store.Store) {
	ctx := t.Context()
	p := sourceParams("waf zone")
	p.SourceType, p.SchemaType = harvest.SourceWAF, harvest.SchemaISO19115_2
	p.WAFTimeZone = "America/New_York"
	src := insertSource(t, s, p)
	require.Equal(t, "America/New_York", src.WAFTimeZone)
	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got)

	p.WAFTimeZone = "Asia/Tokyo"
	updated, err := s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: *p})
	require.NoError(t, err)
	require.Equal(t, "Asia/Tokyo", updated.WAFTimeZone)

	ensure := &store.SourceEnsureParams{Name: "x", URL: p.URL, SourceType: harvest.SourceWAF,
		SchemaType: harvest.SchemaISO19115_2}
	kept, err := s.SourceEnsure(ctx, ensure)
	require.NoError(t, err)
	require.Equal(t, src.ID, kept.ID)
	require.Equal(t, "Asia/Tokyo", kept.WAFTimeZone, "SourceEnsure without a zone keeps the stored one")
	ensure.WAFTimeZone = "Europe/Paris"
	replaced, err := s.SourceEnsure(ctx, ensure)
	require.NoError(t, err)
	require.Equal(t, "Europe/Paris", replaced.WAFTimeZone)

	p.WAFTimeZone = ""
	cleared, err := s.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: *p})
	require.NoError(t, err)
	require.Empty(t, cleared.WAFTimeZone)
	got, err = s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, cleared, got)

	fresh, err := s.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "y", URL: "https://waf.example.gov/" + uuid.NewString() + "/",
		SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_2, WAFTimeZone: "America/Denver"})
	require.NoError(t, err)
	require.Equal(t, "America/Denver", fresh.WAFTimeZone, "SourceEnsure creates the source with its zone")
}

// testCrossSourceDuplicateListEmpty: a catalog without duplicates lists none, with every filter.
func testCrossSourceDuplicateListEmpty(t *testing.T, s store.Store) {
	src := newSource(t, s)
	for _, p := range []store.CrossSourceDuplicateListParams{{}, {SourceID: src.ID}, {OrganizationID: src.ID},
		{JobID: src.ID}} {
		pairs, total, err := s.CrossSourceDuplicateList(t.Context(), &p)
		require.NoError(t, err)
		require.Empty(t, pairs)
		require.Zero(t, total)
	}
}
