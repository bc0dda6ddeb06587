package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestOrganizationCRUD(t *testing.T) {
	t.Parallel()
	b := setup(t)

	created := b.write(t, http.MethodPost, "/api/v1/organizations", map[string]any{"name": "Commodity Futures", "slug": "cftc"})
	require.Equal(t, http.StatusCreated, created.status, "body: %s", created.body)
	org := created.object(t)
	requireSchema(t, "Organization", org)
	id, _ := org["id"].(string)
	require.NotEmpty(t, id)
	require.Equal(t, "/api/v1/organizations/"+id, created.header.Get("Location"))
	require.Equal(t, "Commodity Futures", org["name"])
	require.Equal(t, "cftc", org["slug"])

	got := b.get(t, "/api/v1/organizations/"+id)
	require.Equal(t, http.StatusOK, got.status)
	require.Equal(t, org, got.object(t))

	b.write(t, http.MethodPost, "/api/v1/organizations", map[string]any{"name": "Agriculture", "slug": "usda"})
	orgs := decode[list[organizationJSON]](t, b.get(t, "/api/v1/organizations"))
	require.Equal(t, 2, orgs.Total)
	require.Equal(t, 1, orgs.Page)
	require.Equal(t, 20, orgs.PerPage)
	require.Equal(t, []string{"Agriculture", "Commodity Futures"}, []string{orgs.Items[0].Name, orgs.Items[1].Name})
	paged := decode[list[organizationJSON]](t, b.get(t, "/api/v1/organizations?page=2&per_page=1"))
	require.Equal(t, 2, paged.Total)
	require.Len(t, paged.Items, 1)
	require.Equal(t, "cftc", paged.Items[0].Slug)

	updated := b.write(t, http.MethodPut, "/api/v1/organizations/"+id, map[string]any{"name": "CFTC", "slug": "cftc-gov"})
	require.Equal(t, http.StatusOK, updated.status, "body: %s", updated.body)
	require.Equal(t, "cftc-gov", updated.object(t)["slug"])
	require.Equal(t, "CFTC", b.get(t, "/api/v1/organizations/"+id).object(t)["name"])

	deleted := b.write(t, http.MethodDelete, "/api/v1/organizations/"+id, nil)
	require.Equal(t, http.StatusNoContent, deleted.status, "body: %s", deleted.body)
	require.Empty(t, deleted.body)
	requireError(t, b.get(t, "/api/v1/organizations/"+id), http.StatusNotFound, "organization \""+id+"\" not found")
	requireError(t, b.write(t, http.MethodDelete, "/api/v1/organizations/"+id, nil), http.StatusNotFound, "not found")
	requireError(t, b.write(t, http.MethodPut, "/api/v1/organizations/"+id, map[string]any{"name": "x", "slug": "x"}),
		http.StatusNotFound, "not found")
}

func TestOrganizationInvalid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tests := []struct {
		name   string
		body   any
		fields []string
	}{
		{"name missing", map[string]any{"slug": "ok"}, []string{"name"}},
		{"name blank", map[string]any{"name": "  ", "slug": "ok"}, []string{"name"}},
		{"slug missing", map[string]any{"name": "Org"}, []string{"slug"}},
		{"slug uppercase", map[string]any{"name": "Org", "slug": "Bad Slug"}, []string{"slug"}},
		{"slug too long", map[string]any{"name": "Org", "slug": strings.Repeat("a", 101)}, []string{"slug"}},
		{"name not a string", map[string]any{"name": 5, "slug": "ok"}, []string{"name"}},
		{"unknown fields", map[string]any{"name": "Org", "slug": "ok", "logo": "x", "Aliases": []string{}}, []string{"logo", "Aliases"}},
		{"everything", map[string]any{"slug": "NO", "extra": true}, []string{"name", "slug", "extra"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireFields(t, b.write(t, http.MethodPost, "/api/v1/organizations", tt.body), tt.fields...)
		})
	}

	t.Run("messages", func(t *testing.T) {
		t.Parallel()
		f := requireFields(t, b.write(t, http.MethodPost, "/api/v1/organizations",
			map[string]any{"name": 5, "slug": "A", "logo": "x"}), "name", "slug", "logo")
		require.Equal(t, "must be a string, not number", f["name"])
		require.Contains(t, f["slug"], "lowercase letters, digits and hyphens")
		require.Equal(t, "unknown field", f["logo"])
	})

	malformed := []struct{ name, body, want string }{
		{"not JSON", `{"name": `, "malformed JSON body"},
		{"empty", ``, "the request body is empty"},
		{"array", `[{"name": "x"}]`, "must be a JSON object"},
		{"null", `null`, "must be a JSON object"},
		{"trailing data", `{"name": "x", "slug": "x"} {}`, "malformed JSON body"},
	}
	for _, tt := range malformed {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireError(t, b.write(t, http.MethodPost, "/api/v1/organizations", tt.body), http.StatusBadRequest, tt.want)
		})
	}
}

func TestOrganizationConflicts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	first := b.write(t, http.MethodPost, "/api/v1/organizations", map[string]any{"name": "One", "slug": "one"})
	require.Equal(t, http.StatusCreated, first.status)
	second := b.write(t, http.MethodPost, "/api/v1/organizations", map[string]any{"name": "Two", "slug": "two"})
	require.Equal(t, http.StatusCreated, second.status)

	t.Run("duplicate slug on create", func(t *testing.T) {
		t.Parallel()
		r := b.write(t, http.MethodPost, "/api/v1/organizations", map[string]any{"name": "Again", "slug": "one"})
		requireError(t, r, http.StatusConflict, `an organization with slug "one" already exists`)
		require.NotContains(t, string(r.body), "UNIQUE", "no driver detail")
	})
	t.Run("duplicate slug on update", func(t *testing.T) {
		t.Parallel()
		requireError(t, b.write(t, http.MethodPut, "/api/v1/organizations/"+second.object(t)["id"].(string),
			map[string]any{"name": "Two", "slug": "one"}), http.StatusConflict, `slug "one" already exists`)
	})
	t.Run("delete with sources", func(t *testing.T) {
		t.Parallel()
		org := b.newOrganization(t)
		b.newSource(t, org.ID)
		requireError(t, b.write(t, http.MethodDelete, "/api/v1/organizations/"+org.ID, nil), http.StatusConflict,
			"still has harvest sources")
		require.Equal(t, http.StatusOK, b.get(t, "/api/v1/organizations/"+org.ID).status)
	})
}
