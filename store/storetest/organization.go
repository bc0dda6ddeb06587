package storetest

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

func testOrganizationInsert(t *testing.T, s store.Store) {
	ctx := t.Context()
	org, err := s.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "General Services Administration", Slug: "gsa"})
	require.NoError(t, err)
	require.NotEmpty(t, org.ID)
	require.Equal(t, "General Services Administration", org.Name)
	require.Equal(t, "gsa", org.Slug)
	require.False(t, org.CreatedAt.IsZero())

	got, err := s.OrganizationGet(ctx, org.ID)
	require.NoError(t, err)
	require.Equal(t, org, got)

	_, err = s.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Other", Slug: "gsa"})
	require.ErrorIs(t, err, store.ErrConflict, "the slug is taken")
}

func testOrganizationGetNotFound(t *testing.T, s store.Store) {
	newOrganization(t, s, "GSA")
	for _, id := range []string{uuid.NewString(), "not-a-uuid"} {
		_, err := s.OrganizationGet(t.Context(), id)
		require.ErrorIs(t, err, store.ErrNotFound, "id %q", id)
	}
}

// testOrganizationUpdate: name and slug are replaced; a missing id or a taken slug fails.
func testOrganizationUpdate(t *testing.T, s store.Store) {
	ctx := t.Context()
	org := newOrganization(t, s, "GSA")
	other := newOrganization(t, s, "NASA")

	p := &store.OrganizationUpdateParams{ID: org.ID, Name: "General Services", Slug: "gsa-new"}
	got, err := s.OrganizationUpdate(ctx, p)
	require.NoError(t, err)
	require.Equal(t, &store.Organization{ID: org.ID, Name: p.Name, Slug: p.Slug, CreatedAt: org.CreatedAt}, got)
	again, err := s.OrganizationGet(ctx, org.ID)
	require.NoError(t, err)
	require.Equal(t, got, again)

	_, err = s.OrganizationUpdate(ctx, &store.OrganizationUpdateParams{ID: org.ID, Name: "x", Slug: other.Slug})
	require.ErrorIs(t, err, store.ErrConflict)
	_, err = s.OrganizationUpdate(ctx, &store.OrganizationUpdateParams{ID: uuid.NewString(), Name: "x", Slug: "x"})
	require.ErrorIs(t, err, store.ErrNotFound)
}

// testOrganizationList: ordered by name, paged, with the total of all rows.
func testOrganizationList(t *testing.T, s store.Store) {
	list := func(p store.PageParams) ([]string, int) {
		t.Helper()
		orgs, total, err := s.OrganizationList(t.Context(), &p)
		require.NoError(t, err)
		var names []string
		for _, o := range orgs {
			names = append(names, o.Name)
		}
		return names, total
	}
	names, total := list(store.PageParams{})
	require.Empty(t, names)
	require.Zero(t, total)

	for _, name := range []string{"c", "a", "d", "b"} {
		newOrganization(t, s, name)
	}
	names, total = list(store.PageParams{})
	require.Equal(t, []string{"a", "b", "c", "d"}, names, "Limit 0 is the default page")
	require.Equal(t, 4, total)
	names, total = list(store.PageParams{Limit: 2, Offset: 1})
	require.Equal(t, []string{"b", "c"}, names)
	require.Equal(t, 4, total)
	names, total = list(store.PageParams{Limit: 2, Offset: 4})
	require.Empty(t, names, "past the end")
	require.Equal(t, 4, total)
}

// testOrganizationDelete: refused while sources refer to it; then gone.
func testOrganizationDelete(t *testing.T, s store.Store) {
	ctx := t.Context()
	org := newOrganization(t, s, "GSA")
	p := sourceParams("GSA data")
	p.OrganizationID = org.ID
	src := insertSource(t, s, p)

	require.ErrorIs(t, s.OrganizationDelete(ctx, org.ID), store.ErrConflict)
	got, err := s.SourceGet(ctx, src.ID)
	require.NoError(t, err)
	require.Equal(t, src, got, "the source is untouched")

	require.NoError(t, s.SourceDelete(ctx, src.ID))
	require.NoError(t, s.OrganizationDelete(ctx, org.ID))
	_, err = s.OrganizationGet(ctx, org.ID)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, s.OrganizationDelete(ctx, org.ID), store.ErrNotFound)
	require.ErrorIs(t, s.OrganizationDelete(ctx, "not-a-uuid"), store.ErrNotFound)
}
