package sources_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/search"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// TestEnsurePortalBase: the CLI's path (harvest --url … --source-type ckan) finds one source
// for a portal however its URL is written, one stored as its API endpoint before portal URLs
// were normalised included (ByURL).
func TestEnsurePortalBase(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		s := sources.Sources{Store: st}
		ensure := func(url string) *store.Source {
			src, err := s.Ensure(ctx, sources.EnsureParams{URL: url, SourceType: harvest.SourceCKAN,
				SchemaType: harvest.SchemaDCATUS11NonFederal})
			require.NoError(t, err)
			return src
		}
		first := ensure("https://ckan.example.gov/api/3/action/package_search")
		require.Equal(t, "https://ckan.example.gov/", first.URL)
		for _, u := range []string{"https://ckan.example.gov", "https://ckan.example.gov/", "https://ckan.example.gov/api/3"} {
			require.Equal(t, first.ID, ensure(u).ID, u)
		}

		legacy, err := st.SourceInsert(ctx, &store.SourceInsertParams{Name: "legacy",
			URL: "https://legacy.example.gov/api/3/action/package_search/", SourceType: harvest.SourceCKAN,
			SchemaType: harvest.SchemaDCATUS11NonFederal, Frequency: harvest.FrequencyManual,
			NotificationFrequency: harvest.NotifyOnError})
		require.NoError(t, err)
		require.Equal(t, legacy.ID, ensure("https://legacy.example.gov").ID)
		found, err := sources.ByURL(ctx, st, "https://legacy.example.gov/")
		require.NoError(t, err)
		require.Equal(t, legacy.ID, found.ID)
		_, err = sources.ByURL(ctx, st, "https://nobody.example.gov/")
		require.ErrorIs(t, err, store.ErrNotFound)
	})
}

// TestEnsureAttachesOrganization: Ensure with an organization attaches a new or existing source
// to it and keeps the source's other fields; without one it leaves the source's as it is; a
// precedence given replaces the source's, none keeps it.
func TestEnsureAttachesOrganization(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		s := sources.Sources{Store: st}
		p := sources.EnsureParams{URL: "https://www.dhs.gov/data.json", SourceType: harvest.SourceDocument,
			SchemaType: harvest.SchemaDCATUS11Federal}
		ensure := func(p sources.EnsureParams) *store.Source {
			t.Helper()
			src, err := s.Ensure(ctx, p)
			require.NoError(t, err)
			return src
		}
		src := ensure(p)
		require.Empty(t, src.OrganizationID)
		_, err := st.SourceUpdate(ctx, &store.SourceUpdateParams{ID: src.ID, SourceInsertParams: store.SourceInsertParams{
			Name: "DHS catalog", URL: src.URL, SourceType: src.SourceType, SchemaType: src.SchemaType,
			Frequency: harvest.FrequencyWeekly, NotificationEmails: []string{"ops@example.gov"},
			NotificationFrequency: harvest.NotifyAlways}})
		require.NoError(t, err)

		p.Organization = "Department of Homeland Security"
		ten := 10
		p.Precedence = &ten
		src = ensure(p)
		org, err := s.EnsureOrganization(ctx, p.Organization)
		require.NoError(t, err)
		require.Equal(t, org.ID, src.OrganizationID)
		require.Equal(t, 10, src.Precedence)
		require.Equal(t, "DHS catalog", src.Name)
		require.Equal(t, harvest.FrequencyWeekly, src.Frequency)
		require.Equal(t, []string{"ops@example.gov"}, src.NotificationEmails)
		require.Equal(t, harvest.NotifyAlways, src.NotificationFrequency)

		p.Organization, p.Precedence = "", nil
		src = ensure(p)
		require.Equal(t, org.ID, src.OrganizationID, "no organization given: the source keeps its own")
		require.Equal(t, 10, src.Precedence, "no precedence given: the source keeps its own")
		p.Organization = "Cybersecurity and Infrastructure Security Agency"
		require.NotEqual(t, org.ID, ensure(p).OrganizationID, "moved to another")
	})
}

// TestEnsureMoveReindexes: a source that Ensure moves to another organization (harvest
// --organization) has its datasets' search documents written again at once, as a move by Save
// does: a search by the new organization finds them, one by the old finds none.
func TestEnsureMoveReindexes(t *testing.T) {
	setups(t, func(t *testing.T, st store.Store, idx search.Index) {
		ctx := t.Context()
		s := sources.Sources{Store: st, Index: idx}
		p := sources.EnsureParams{URL: "https://move.example.gov/data.json", SourceType: harvest.SourceDocument,
			SchemaType: harvest.SchemaDCATUS11Federal, Organization: "First agency"}
		src, err := s.Ensure(ctx, p)
		require.NoError(t, err)
		withDatasets(t, st, idx, src, 3)
		require.Equal(t, 3, found(t, idx, "First agency"))

		p.Organization = "Second agency"
		_, err = s.Ensure(ctx, p)
		require.NoError(t, err)
		require.Equal(t, 3, found(t, idx, "Second agency"), "the new organization finds the source's datasets")
		require.Zero(t, found(t, idx, "First agency"), "the old organization finds none")
	})
}
