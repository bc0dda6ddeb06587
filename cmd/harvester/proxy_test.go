package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// proxyClient is one person's browser and API client, on its own loopback address (Linux
// routes all of 127.0.0.0/8 to lo), talking to serve through a reverse proxy.
type proxyClient struct {
	t    *testing.T
	c    *http.Client
	base string
}

func newProxyClient(t *testing.T, ip, base string) *proxyClient {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &proxyClient{t: t, base: base, c: &http.Client{Jar: jar, Timeout: time.Minute, // a safety net only
		Transport:     &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request with the headers given as name, value pairs and returns the answer's
// status and body.
func (c *proxyClient) do(method, path, contentType, body string, header ...string) (int, string) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	require.NoError(c.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.c.Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(raw)
}

// write creates an organization (the first time; then 409) through the API with key.
func (c *proxyClient) write(key string, header ...string) int {
	c.t.Helper()
	status, _ := c.do(http.MethodPost, "/api/v1/organizations", "application/json",
		`{"name":"Proxy","slug":"proxy"}`,
		append([]string{"X-API-Key", key}, header...)...)
	return status
}

// signIn posts the sign-in form with key.
func (c *proxyClient) signIn(key string) int {
	c.t.Helper()
	_, page := c.do(http.MethodGet, "/sign-in", "", "")
	m := csrfField.FindStringSubmatch(page)
	require.NotNil(c.t, m, "no csrf_token on /sign-in: %s", page)
	status, _ := c.do(http.MethodPost, "/sign-in", "application/x-www-form-urlencoded",
		url.Values{"api_key": {key}, "csrf_token": {m[1]}}.Encode())
	return status
}

// TestServeBehindProxy replays a lock-out through a reverse proxy. serve runs with
// --trusted-proxies 127.0.0.1 behind a real reverse proxy on 127.0.0.1 (httputil.ReverseProxy,
// which appends each client's address to X-Forwarded-For, as nginx's
// $proxy_add_x_forwarded_for does). An attacker (127.0.0.2) sends wrong keys until it is
// refused; then the operator (127.0.0.3), through the same proxy, writes with the right key and
// signs in. The attacker gets 429 whatever key it sends, at the API and at sign-in, also when it
// writes the operator's address into X-Forwarded-For itself. The probes answer on --ops-addr.
func TestServeBehindProxy(t *testing.T) {
	t.Setenv("HARVESTER_API_KEY", "s3cret")
	ops := freeAddr(t)
	c := startServe(t, freeAddr(t), "--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t),
		"--trusted-proxies", "127.0.0.1", "--ops-addr", ops)
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		awaitOK(t, "http://"+ops+path, path+" on --ops-addr")
	}
	target, err := url.Parse(c.base)
	require.NoError(t, err)
	proxy := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(proxy.Close)
	attacker, operator := newProxyClient(t, "127.0.0.2", proxy.URL), newProxyClient(t, "127.0.0.3", proxy.URL)

	for i := range 10 { // the allowance: 10 wrong keys
		require.Equal(t, http.StatusUnauthorized, attacker.write("wrong"), "wrong key %d", i+1)
	}
	require.Equal(t, http.StatusTooManyRequests, attacker.write("wrong"))
	require.Equal(t, http.StatusTooManyRequests, attacker.write("s3cret"), "the right key from a limited client")
	require.Equal(t, http.StatusTooManyRequests, attacker.write("s3cret", "X-Forwarded-For", "127.0.0.3"),
		"the operator's address written by the attacker")
	require.Equal(t, http.StatusTooManyRequests, attacker.signIn("s3cret"), "sign-in with the right key from a limited client")

	require.Equal(t, http.StatusCreated, operator.write("s3cret"), "the operator writes through the same proxy")
	require.Equal(t, http.StatusSeeOther, operator.signIn("s3cret"), "the operator signs in through the same proxy")
	require.Equal(t, http.StatusTooManyRequests, attacker.write("s3cret"), "the attacker is still refused")
}

// TestTrustedProxiesFlag: --trusted-proxies takes CIDR prefixes and single addresses (an
// IPv4-mapped prefix as its IPv4 one); anything else stops the command with exit status 2,
// naming the value.
func TestTrustedProxiesFlag(t *testing.T) {
	f := serverFlags{trustedProxies: " 10.1.2.3/8, 192.0.2.7,2001:db8::/32,::ffff:172.16.0.0/108,fe80::1%eth0 "}
	require.NoError(t, f.checkHTTP())
	var got []string
	for _, p := range f.http.TrustedProxies {
		got = append(got, p.String())
	}
	require.Equal(t, []string{"10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32", "172.16.0.0/12", "fe80::1/128"}, got)

	var stderr bytes.Buffer
	code := run(t.Context(), []string{"serve", "--data-dir", t.TempDir(), "--trusted-proxies", "10.0.0.0/8,proxy.internal"},
		io.Discard, &stderr)
	require.Equal(t, exitUsage, code, stderr.String())
	require.Contains(t, stderr.String(), `--trusted-proxies: "proxy.internal" is not an IP address or a CIDR prefix such as 10.0.0.0/8`)
}
