package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/store"
)

// brokenStore fails or panics in OrganizationList, as a backend might.
type brokenStore struct {
	store.Store
	panics bool
}

func (s brokenStore) OrganizationList(context.Context, *store.PageParams) ([]*store.Organization, int, error) {
	if s.panics {
		panic("nil map in the driver")
	}
	return nil, 0, errors.New(`pq: password authentication failed for user "harvester" at 10.0.0.5`)
}

func TestErrorStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    error
		status int
		msg    string
	}{
		{store.ErrNotFound, http.StatusNotFound, "not found"},
		{describe(fmt.Errorf("get: %w", store.ErrNotFound), "harvest job \"x\" not found", ""), http.StatusNotFound, "harvest job \"x\" not found"},
		{describe(fmt.Errorf("%w: UNIQUE constraint failed: organization.slug", store.ErrConflict), "", "slug taken"), http.StatusConflict, "slug taken"},
		{fmt.Errorf("%w: UNIQUE constraint failed", store.ErrConflict), http.StatusConflict, "conflict with the current state of the resource"},
		{errorf(http.StatusTeapot, "short and stout"), http.StatusTeapot, "short and stout"},
		{&http.MaxBytesError{Limit: 5}, http.StatusRequestEntityTooLarge, "the request body is larger than 5 bytes"},
		{describe(errors.New("disk I/O error"), "nf", "c"), http.StatusInternalServerError, "internal server error"},
		{errors.New("dial tcp 10.0.0.5:5432: connection refused"), http.StatusInternalServerError, "internal server error"},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			t.Parallel()
			status, body := errorStatus(tt.err)
			require.Equal(t, tt.status, status)
			require.Equal(t, tt.msg, body.Error)
		})
	}
}

func TestErrorResponses(t *testing.T) {
	t.Parallel()
	b := setup(t)

	t.Run("unknown path", func(t *testing.T) {
		t.Parallel()
		requireError(t, b.get(t, "/api/v1/datasets"), http.StatusNotFound, "no such resource: /api/v1/datasets")
		requireError(t, b.get(t, "/"), http.StatusNotFound, "no such resource")
		requireError(t, b.get(t, "/api/v1/organizations/"), http.StatusNotFound, "no such resource")
	})
	t.Run("wrong method", func(t *testing.T) {
		t.Parallel()
		r := b.write(t, http.MethodPatch, "/api/v1/organizations/x", `{}`)
		requireError(t, r, http.StatusMethodNotAllowed, "method PATCH is not allowed on /api/v1/organizations/x")
		require.Equal(t, "GET, PUT, DELETE", r.header.Get("Allow"))
		r = b.write(t, http.MethodDelete, "/api/v1/harvest_jobs", nil)
		requireError(t, r, http.StatusMethodNotAllowed, "not allowed")
		require.Equal(t, "GET", r.header.Get("Allow"))
	})
	t.Run("body too large", func(t *testing.T) {
		t.Parallel()
		big := `{"name": "` + strings.Repeat("n", 11<<20) + `", "slug": "big"}`
		requireError(t, b.write(t, http.MethodPost, "/api/v1/organizations", big), http.StatusRequestEntityTooLarge,
			"larger than 10485760 bytes")
	})
	t.Run("store failure", func(t *testing.T) {
		t.Parallel()
		broken := setup(t, func(_ *Config, d *Deps) { d.Store = brokenStore{Store: d.Store} })
		r := broken.get(t, "/api/v1/organizations")
		requireError(t, r, http.StatusInternalServerError, "internal server error")
		require.NotContains(t, string(r.body), "password")
		require.Contains(t, broken.logs.String(), "password authentication failed", "the cause is logged")
	})
	t.Run("panic", func(t *testing.T) {
		t.Parallel()
		broken := setup(t, func(_ *Config, d *Deps) { d.Store = brokenStore{Store: d.Store, panics: true} })
		r := broken.get(t, "/api/v1/organizations")
		requireError(t, r, http.StatusInternalServerError, "internal server error")
		require.NotContains(t, string(r.body), "nil map")
		require.Contains(t, broken.logs.String(), "nil map in the driver")
		require.Equal(t, http.StatusOK, broken.get(t, "/healthz").status, "the server lives on")
	})
}

func TestRequestLog(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.write(t, http.MethodPost, "/api/v1/organizations", map[string]any{"name": "Org", "slug": "org"})
	b.get(t, "/api/v1/organizations/missing")

	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.logs.String()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		lines = append(lines, rec)
	}
	require.Len(t, lines, 2, "one line per request")
	for i, want := range []struct {
		method, path string
		status       float64
	}{{"POST", "/api/v1/organizations", 201}, {"GET", "/api/v1/organizations/missing", 404}} {
		require.Equal(t, "INFO", lines[i]["level"])
		require.Equal(t, "http request", lines[i]["msg"])
		require.Equal(t, want.method, lines[i]["method"])
		require.Equal(t, want.path, lines[i]["path"])
		require.Equal(t, want.status, lines[i]["status"])
		require.Contains(t, lines[i], "duration")
	}
}
