package main

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// TestSecureCookiesFlag: --secure-cookies, or HARVESTER_SECURE_COOKIES=1, reaches the
// session cookie that `serve` sets at sign-in, through the flags' pipeline configuration.
func TestSecureCookiesFlag(t *testing.T) {
	t.Setenv("HARVESTER_API_KEY", "secure-cookies-key")
	natsURL := natstest.URL(t)
	st := dbtest.Store(t) // one database for the one NATS server (another database is refused: its streams are stamped)
	for _, c := range []struct {
		args []string
		env  string
		want bool
	}{{nil, "", false}, {[]string{"--secure-cookies"}, "", true}, {nil, "1", true}} {
		t.Setenv("HARVESTER_SECURE_COOKIES", c.env)
		var f serverFlags
		cmd := &cobra.Command{}
		f.register(cmd, true)
		require.NoError(t, cmd.Flags().Parse(append(c.args, "--nats-url", natsURL, "--search-index", "none")))
		cfg := f.pipelineConfig(slog.New(slog.DiscardHandler), parts{api: true})
		cfg.Store = st
		p, err := pipeline.New(context.Background(), cfg)
		require.NoError(t, err)
		session := signInCookie(t, p.Handler(), "secure-cookies-key")
		p.Close()
		require.Equal(t, c.want, session.Secure, "args %v, env %q", c.args, c.env)
	}
}

// signInCookie signs in to the web UI h with key and returns the session cookie it sets.
func signInCookie(t *testing.T, h http.Handler, key string) *http.Cookie {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/sign-in", nil))
	m := regexp.MustCompile(`name="csrf_token" value="([^"]+)"`).FindStringSubmatch(rec.Body.String())
	require.NotNil(t, m, rec.Body.String())
	req := httptest.NewRequest(http.MethodPost, "/sign-in", strings.NewReader(url.Values{"api_key": {key},
		"csrf_token": {m[1]}, "next": {"/organizations"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, ck := range rec.Result().Cookies() {
		req.AddCookie(ck)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	for _, ck := range rec.Result().Cookies() {
		if ck.Name == "harvester_session" {
			return ck
		}
	}
	t.Fatal("no session cookie")
	return nil
}
