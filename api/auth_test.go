package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// routePath is a route's path with every {name} wildcard filled in.
func routePath(pattern string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	for strings.Contains(path, "{") {
		i, j := strings.Index(path, "{"), strings.Index(path, "}")
		path = path[:i] + "no-such-id" + path[j+1:]
	}
	return method, path
}

// writeBody is a body for every write route that the handlers would accept if they got that far.
const writeBody = `{}`

// manyTries lets a test's client send a thousand wrong keys before AuthLimiter refuses it.
func manyTries(_ *Config, d *Deps) { d.AuthLimiter = NewAuthLimiter(AuthLimitConfig{Burst: 1000}) }

func TestAuthWrites(t *testing.T) {
	t.Parallel()
	b := setup(t, manyTries)
	noKey := setup(t, func(c *Config, _ *Deps) { c.APIKey = "" })
	writes := 0
	for _, rt := range b.api.table {
		if rt.access != write {
			continue
		}
		writes++
		method, path := routePath(rt.pattern)
		t.Run(rt.pattern, func(t *testing.T) {
			t.Parallel()
			r := b.request(t, method, path, writeBody)
			requireError(t, r, http.StatusUnauthorized, "missing API key")
			require.Equal(t, `Bearer realm="harvester"`, r.header.Get("WWW-Authenticate"))
			requireError(t, b.request(t, method, path, writeBody, "X-API-Key: wrong"), http.StatusUnauthorized, "invalid API key")
			requireError(t, b.request(t, method, path, writeBody, "Authorization: Bearer wrong"), http.StatusUnauthorized, "invalid API key")
			requireError(t, b.request(t, method, path, writeBody, "Authorization: Basic "+testKey), http.StatusUnauthorized, "missing API key")
			requireError(t, noKey.request(t, method, path, writeBody, "X-API-Key: "+testKey), http.StatusUnauthorized,
				"HARVESTER_API_KEY is not set")
			requireError(t, noKey.request(t, method, path, writeBody), http.StatusUnauthorized, "HARVESTER_API_KEY is not set")

			for _, hdr := range []string{"X-API-Key: " + testKey, "Authorization: Bearer " + testKey, "authorization: bearer " + testKey} {
				r := b.request(t, method, path, writeBody, hdr)
				require.NotEqual(t, http.StatusUnauthorized, r.status, "%s: %s", hdr, r.body)
			}
		})
	}
	require.Equal(t, 10, writes, "every POST, PUT and DELETE route is a write")
	for _, rt := range b.api.table {
		method, _ := routePath(rt.pattern)
		require.Equal(t, method != http.MethodGet && !ckanRoute(rt), rt.access == write, rt.pattern)
	}
}

func TestAuthReads(t *testing.T) {
	t.Parallel()
	openReads := setup(t)
	protected := setup(t, manyTries, func(c *Config, _ *Deps) { c.ProtectReads = true })
	for _, rt := range openReads.api.table {
		if rt.access == write {
			continue
		}
		method, path := routePath(rt.pattern)
		t.Run(rt.pattern, func(t *testing.T) {
			t.Parallel()
			r := openReads.request(t, method, path, nil)
			require.NotEqual(t, http.StatusUnauthorized, r.status, "reads are open: %s", r.body)

			r = protected.request(t, method, path, nil)
			if rt.access == open || rt.access == public {
				require.NotEqual(t, http.StatusUnauthorized, r.status, "probes, metrics, the document and the public catalog stay open")
				return
			}
			requireError(t, r, http.StatusUnauthorized, "missing API key")
			requireError(t, protected.request(t, method, path, nil, "X-API-Key: nope"), http.StatusUnauthorized, "invalid API key")
			r = protected.request(t, method, path, nil, "X-API-Key: "+testKey)
			require.NotEqual(t, http.StatusUnauthorized, r.status, "%s", r.body)
		})
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := New(Config{ProtectReads: true}, Deps{Store: b.store})
	require.ErrorContains(t, err, "ProtectReads needs an APIKey")
	_, err = New(Config{MaxBodyBytes: -1}, Deps{Store: b.store})
	require.ErrorContains(t, err, "MaxBodyBytes")
	_, err = New(Config{}, Deps{})
	require.ErrorContains(t, err, "Deps.Store is required")
	s, err := newServer(Config{}, Deps{Store: b.store})
	require.NoError(t, err)
	require.Equal(t, int64(10<<20), s.cfg.MaxBodyBytes, "default")
	require.NotNil(t, s.log)
}
