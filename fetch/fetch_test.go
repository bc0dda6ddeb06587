package fetch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFetch(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	flaky := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		require.Contains(t, r.Header.Get("User-Agent"), "Harvester")
		switch r.URL.Path {
		case "/ok":
			_, _ = io.WriteString(w, `{"dataset":[]}`)
		case "/flaky":
			if int(n) <= flaky {
				w.WriteHeader(http.StatusBadGateway)
				return
			}
			_, _ = io.WriteString(w, `{"dataset":[]}`)
		case "/maintenance":
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, "<html><head><title> Down for\n maintenance </title></head></html>")
		case "/big":
			_, _ = io.WriteString(w, strings.Repeat(" ", 2048))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()

	// By default a source on a private address is refused before any request is made.
	_, err := Get(ctx, Config{Backoff: time.Millisecond}.WithDefaults(), srv.URL+"/ok")
	require.ErrorIs(t, err, ErrPrivateAddress)
	require.ErrorContains(t, err, "127.0.0.1 is a loopback address")
	require.Zero(t, calls.Load(), "nothing was sent")

	cfg := Config{Backoff: time.Millisecond, MaxBytes: 1024, AllowPrivate: true}.WithDefaults()

	f, err := Get(ctx, cfg, srv.URL+"/ok")
	require.NoError(t, err)
	body, err := io.ReadAll(f)
	require.NoError(t, err)
	require.Equal(t, `{"dataset":[]}`, string(body))
	f.Close()
	_, err = os.Stat(f.Name())
	require.ErrorIs(t, err, os.ErrNotExist, "a download has no name on disk (spool)")

	calls.Store(0)
	_, err = Get(ctx, cfg, srv.URL+"/missing")
	var ferr *Error
	require.True(t, errors.As(err, &ferr))
	require.Equal(t, http.StatusNotFound, ferr.StatusCode)
	require.EqualError(t, err, "GET "+srv.URL+"/missing: HTTP 404 Not Found")
	require.Equal(t, int32(1), calls.Load(), "a 404 is not retried")

	calls.Store(0)
	flaky = 2
	f, err = Get(ctx, cfg, srv.URL+"/flaky")
	require.NoError(t, err, "a 502 is retried")
	f.Close()
	os.Remove(f.Name())
	require.Equal(t, int32(3), calls.Load())

	calls.Store(0)
	flaky = 10
	_, err = Get(ctx, cfg, srv.URL+"/flaky")
	require.True(t, errors.As(err, &ferr))
	require.Equal(t, http.StatusBadGateway, ferr.StatusCode)
	require.Equal(t, int32(cfg.Attempts), calls.Load(), "attempts are bounded")

	calls.Store(0)
	_, err = Get(ctx, cfg, srv.URL+"/maintenance")
	require.True(t, errors.As(err, &ferr))
	require.Equal(t, "Down for maintenance", ferr.PageTitle)
	require.Contains(t, err.Error(), `HTTP 503 Service Unavailable (error page "Down for maintenance")`)
	require.Equal(t, int32(cfg.Attempts), calls.Load(), "a 503 is retried")

	_, err = Get(ctx, cfg, srv.URL+"/big")
	require.ErrorIs(t, err, ErrTooLarge)
}

func TestRefusePrivate(t *testing.T) {
	t.Parallel()
	for addr, refused := range map[string]bool{
		"127.0.0.1:80": true, "[::1]:443": true, "10.1.2.3:80": true, "172.16.0.1:80": true,
		"192.168.1.1:80": true, "[fd00::1]:80": true, "169.254.169.254:80": true, "[fe80::1]:80": true,
		"0.0.0.0:80": true, "93.184.216.34:443": false, "[2606:2800:220:1::248]:443": false,
	} {
		err := refusePrivate("tcp", addr, nil)
		if refused {
			require.ErrorIs(t, err, ErrPrivateAddress, addr)
		} else {
			require.NoError(t, err, addr)
		}
	}
}

func TestRefuseSpecialPurpose(t *testing.T) {
	t.Parallel()
	for addr, kind := range map[string]string{
		"100.100.100.200:80":          "shared",          // Alibaba Cloud's metadata service
		"100.64.0.1:80":               "shared",          // carrier-grade NAT
		"198.18.0.1:80":               "benchmarking",    // RFC 2544
		"198.19.255.254:80":           "benchmarking",    //
		"[64:ff9b::a9fe:a9fe]:80":     "NAT64",           // 169.254.169.254 through NAT64
		"[64:ff9b:1::1]:80":           "local-use NAT64", //
		"[::ffff:127.0.0.1]:80":       "loopback",        // IPv4-mapped
		"[::ffff:100.100.100.200]:80": "shared",          //
		"192.0.0.8:80":                "IETF",            //
		"192.0.2.1:80":                "documentation",   //
		"203.0.113.9:80":              "documentation",   //
		"240.0.0.1:80":                "reserved",        //
		"255.255.255.255:80":          "reserved",        //
		"224.0.0.251:80":              "multicast",       //
		"[2001::1]:80":                "Teredo",          //
		"[2002:7f00:1::1]:80":         "6to4",            //
		"[2001:db8::1]:80":            "documentation",   //
		"[fec0::1]:80":                "site-local",      //
		"[ff02::1]:80":                "multicast",       //
		"[100::1]:80":                 "discard",         //
	} {
		err := refusePrivate("tcp", addr, nil)
		require.ErrorIs(t, err, ErrPrivateAddress, addr)
		require.ErrorContains(t, err, kind, addr)
	}
	for _, addr := range []string{"100.128.0.1:80", "198.20.0.1:80", "[64:ff9c::1]:80", "8.8.8.8:53",
		"[2a00:1450:4001:82a::200e]:443"} {
		require.NoError(t, refusePrivate("tcp", addr, nil), addr)
	}
}

// TestFetchProxyOnlyWhenConfigured: the default client never takes a proxy from HTTP_PROXY or
// HTTPS_PROXY (through one, the guard would check only the proxy's address); a configured
// proxy is used, and the guard then checks the request's host before anything is sent.
func TestFetchProxyOnlyWhenConfigured(t *testing.T) {
	t.Parallel()
	c := Config{}.WithDefaults()
	require.Nil(t, c.Client.Transport.(*http.Transport).Proxy, "no proxy from the environment")

	var proxied atomic.Int32
	var lastURL atomic.Value
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		lastURL.Store(r.URL.String())
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		_, _ = io.WriteString(w, `{"dataset":[]}`)
	}))
	defer proxy.Close()
	pu, err := url.Parse(proxy.URL)
	require.NoError(t, err)
	cfg := Config{Proxy: pu, Attempts: 1}.WithDefaults()
	ctx := context.Background()

	// The proxy is on loopback: configured explicitly, it is trusted; the source is public.
	f, err := Get(ctx, cfg, "http://93.184.216.34/data.json")
	require.NoError(t, err)
	f.Close()
	os.Remove(f.Name())
	require.Equal(t, int32(1), proxied.Load())
	require.Equal(t, "http://93.184.216.34/data.json", lastURL.Load())

	for _, target := range []string{"http://100.100.100.200/latest/meta-data/", "http://127.0.0.1:8080/",
		"http://[64:ff9b::a9fe:a9fe]/", "http://localhost/"} {
		_, err = Get(ctx, cfg, target)
		require.ErrorIs(t, err, ErrPrivateAddress, target)
	}
	require.Equal(t, int32(1), proxied.Load(), "nothing private went through the proxy")
	_, err = Get(ctx, cfg, "http://93.184.216.34/moved")
	require.ErrorIs(t, err, ErrPrivateAddress, "a redirect to a private address")
	require.Equal(t, int32(2), proxied.Load(), "the redirect was not followed")
}

// RefuseAddress is the guard refusePrivate applies, for clients built elsewhere.
func TestRefuseAddress(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254", "::1", "100.100.100.200"} {
		require.ErrorIs(t, RefuseAddress(netip.MustParseAddr(addr)), ErrPrivateAddress, addr)
	}
	require.NoError(t, RefuseAddress(netip.MustParseAddr("93.184.216.34")))
}
