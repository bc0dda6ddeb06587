package jobs_test

import (
	"strings"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/jobs"
	"github.com/harvester-dev/harvester/store"
)

// TestEnsureOrganization: an organization is found by its exact name or created with a slug
// made from it; a slug another organization holds gets a suffix.
func TestEnsureOrganization(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	ctx := t.Context()
	dhs, err := jobs.EnsureOrganization(ctx, st, "Department of Homeland Security")
	require.NoError(t, err)
	require.Equal(t, "department-of-homeland-security", dhs.Slug)
	again, err := jobs.EnsureOrganization(ctx, st, "Department of Homeland Security")
	require.NoError(t, err)
	require.Equal(t, dhs.ID, again.ID, "reused by name")

	for name, slug := range map[string]string{"Servicio Forestal Agrícola": "servicio-forestal-agricola", "!!!": "organization",
		strings.Repeat("Long name ", 20): strings.TrimRight(strings.Repeat("long-name-", 10), "-")} {
		o, err := jobs.EnsureOrganization(ctx, st, name)
		require.NoError(t, err, name)
		require.Equal(t, slug, o.Slug, name)
		require.Equal(t, name, o.Name)
	}
	// "Department of Homeland Security." has the same slug as the first: it gets a suffix.
	dot, err := jobs.EnsureOrganization(ctx, st, "Department of Homeland Security.")
	require.NoError(t, err)
	require.NotEqual(t, dhs.ID, dot.ID, "names are compared exactly")
	require.Equal(t, "department-of-homeland-security-2", dot.Slug)

	_, err = jobs.EnsureOrganization(ctx, st, "  ")
	require.Error(t, err)

	// Beyond one page of organizations.
	for i := range 600 {
		_, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Zz filler " + watermill.NewShortUUID(),
			Slug: "zz-" + strings.ToLower(watermill.NewShortUUID()) + "-" + string(rune('a'+i%26))})
		require.NoError(t, err)
	}
	last, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Zzz last", Slug: "zzz-last"})
	require.NoError(t, err)
	found, err := jobs.EnsureOrganization(ctx, st, "Zzz last")
	require.NoError(t, err)
	require.Equal(t, last.ID, found.ID)
}

// TestStartAttachesOrganization: Start with an organization attaches a new or existing source
// to it and keeps the source's other fields; without one it leaves the source's as it is.
func TestStartAttachesOrganization(t *testing.T) {
	t.Parallel()
	st := newStore(t)
	ctx := t.Context()
	pub := gochannel.NewGoChannel(gochannel.Config{}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pub.Close() })
	p := jobs.Params{URL: "https://www.dhs.gov/data.json", SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal, JobType: harvest.JobHarvest}
	start := func(p jobs.Params) *store.Source {
		t.Helper()
		job, err := jobs.Control{Store: st, Publisher: wmbridge.Publisher{Publisher: pub}}.Start(ctx, p)
		require.NoError(t, err)
		_, err = st.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "Test", Message: "done"})
		require.NoError(t, err)
		src, err := st.SourceGet(ctx, job.SourceID)
		require.NoError(t, err)
		return src
	}
	src := start(p)
	require.Empty(t, src.OrganizationID)
	_, err := st.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: store.SourceInsertParams{
		Name: "DHS catalog", URL: src.URL, SourceType: src.SourceType, SchemaType: src.SchemaType,
		Frequency: harvest.FrequencyWeekly, NotificationEmails: []string{"ops@example.gov"},
		NotificationFrequency: harvest.NotifyAlways}})
	require.NoError(t, err)

	p.Organization = "Department of Homeland Security"
	src = start(p)
	org, err := jobs.EnsureOrganization(ctx, st, p.Organization)
	require.NoError(t, err)
	require.Equal(t, org.ID, src.OrganizationID)
	require.Equal(t, "DHS catalog", src.Name)
	require.Equal(t, harvest.FrequencyWeekly, src.Frequency)
	require.Equal(t, []string{"ops@example.gov"}, src.NotificationEmails)
	require.Equal(t, harvest.NotifyAlways, src.NotificationFrequency)

	p.Organization = ""
	require.Equal(t, org.ID, start(p).OrganizationID, "no organization given: the source keeps its own")
	p.Organization = "Cybersecurity and Infrastructure Security Agency"
	require.NotEqual(t, org.ID, start(p).OrganizationID, "moved to another")
}
