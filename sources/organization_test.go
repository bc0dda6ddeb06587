package sources_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// TestEnsureOrganization: an organization is found by its exact name or created with a slug
// made from it; a slug another organization holds gets a suffix.
func TestEnsureOrganization(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		s := sources.Sources{Store: st}
		dhs, err := s.EnsureOrganization(ctx, "Department of Homeland Security")
		require.NoError(t, err)
		require.Equal(t, "department-of-homeland-security", dhs.Slug)
		again, err := s.EnsureOrganization(ctx, "Department of Homeland Security")
		require.NoError(t, err)
		require.Equal(t, dhs.ID, again.ID, "reused by name")

		for name, slug := range map[string]string{"Servicio Forestal Agrícola": "servicio-forestal-agricola", "!!!": "organization",
			strings.Repeat("Long name ", 20): strings.TrimRight(strings.Repeat("long-name-", 10), "-")} {
			o, err := s.EnsureOrganization(ctx, name)
			require.NoError(t, err, name)
			require.Equal(t, slug, o.Slug, name)
			require.Equal(t, name, o.Name)
		}
		// "Department of Homeland Security." has the same slug as the first: it gets a suffix.
		dot, err := s.EnsureOrganization(ctx, "Department of Homeland Security.")
		require.NoError(t, err)
		require.NotEqual(t, dhs.ID, dot.ID, "names are compared exactly")
		require.Equal(t, "department-of-homeland-security-2", dot.Slug)

		_, err = s.EnsureOrganization(ctx, "  ")
		require.Error(t, err)

		// Beyond one page of organizations.
		for range 520 {
			id := strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
			_, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Zz filler " + id, Slug: "zz-" + id})
			require.NoError(t, err)
		}
		last, err := st.OrganizationInsert(ctx, &store.OrganizationInsertParams{Name: "Zzz last", Slug: "zzz-last"})
		require.NoError(t, err)
		found, err := s.EnsureOrganization(ctx, "Zzz last")
		require.NoError(t, err)
		require.Equal(t, last.ID, found.ID)
	})
}

// TestSaveOrganization: an organization is checked (name trimmed, slug's alphabet), inserted
// and updated; a slug another has is a Conflict, an unknown id NotFound, and one with sources
// cannot be deleted (Conflict) until they are gone.
func TestSaveOrganization(t *testing.T) {
	stores(t, func(t *testing.T, st store.Store) {
		ctx := t.Context()
		s := sources.Sources{Store: st}
		kind := func(err error) sources.Kind {
			t.Helper()
			var e *sources.Error
			require.True(t, errors.As(err, &e), "an *sources.Error: %v", err)
			return e.Kind
		}
		_, err := s.SaveOrganization(ctx, "", " ", "Bad Slug")
		require.Equal(t, sources.Invalid, kind(err))
		require.Equal(t, []string{"name", "slug"}, fieldNames(err))

		o, err := s.SaveOrganization(ctx, "", "  Agency ", "agency")
		require.NoError(t, err)
		require.Equal(t, "Agency", o.Name)
		_, err = s.SaveOrganization(ctx, "", "Other", "agency")
		require.Equal(t, sources.Conflict, kind(err))
		require.ErrorIs(t, err, store.ErrConflict)
		require.Contains(t, err.Error(), `slug "agency" already exists`)
		_, err = s.SaveOrganization(ctx, uuid.NewString(), "Gone", "gone")
		require.Equal(t, sources.NotFound, kind(err))

		src, err := st.SourceInsert(ctx, sourceParams(o.ID, "https://agency.example.gov/data.json"))
		require.NoError(t, err)
		err = s.DeleteOrganization(ctx, o.ID)
		require.Equal(t, sources.Conflict, kind(err))
		require.Contains(t, err.Error(), "still has harvest sources")
		require.NoError(t, s.Delete(ctx, src.ID))
		require.NoError(t, s.DeleteOrganization(ctx, o.ID))
		require.Equal(t, sources.NotFound, kind(s.DeleteOrganization(ctx, o.ID)))
	})
}

// fieldNames are the bad fields of an Invalid error, sorted.
func fieldNames(err error) []string {
	var e *sources.Error
	if !errors.As(err, &e) {
		return nil
	}
	return slices.Sorted(maps.Keys(e.Fields))
}
