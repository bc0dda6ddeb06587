package extract

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
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
	_, err := Fetch(ctx, FetchConfig{Backoff: time.Millisecond}.WithDefaults(), srv.URL+"/ok")
	require.ErrorIs(t, err, ErrPrivateAddress)
	require.ErrorContains(t, err, "127.0.0.1 is a loopback address")
	require.Zero(t, calls.Load(), "nothing was sent")

	cfg := FetchConfig{Backoff: time.Millisecond, MaxBytes: 1024, AllowPrivate: true}.WithDefaults()

	f, err := Fetch(ctx, cfg, srv.URL+"/ok")
	require.NoError(t, err)
	body, err := io.ReadAll(f)
	require.NoError(t, err)
	require.Equal(t, `{"dataset":[]}`, string(body))
	f.Close()
	require.NoError(t, os.Remove(f.Name()))

	calls.Store(0)
	_, err = Fetch(ctx, cfg, srv.URL+"/missing")
	var ferr *FetchError
	require.True(t, errors.As(err, &ferr))
	require.Equal(t, http.StatusNotFound, ferr.StatusCode)
	require.EqualError(t, err, "GET "+srv.URL+"/missing: HTTP 404 Not Found")
	require.Equal(t, int32(1), calls.Load(), "a 404 is not retried")

	calls.Store(0)
	flaky = 2
	f, err = Fetch(ctx, cfg, srv.URL+"/flaky")
	require.NoError(t, err, "a 502 is retried")
	f.Close()
	os.Remove(f.Name())
	require.Equal(t, int32(3), calls.Load())

	calls.Store(0)
	flaky = 10
	_, err = Fetch(ctx, cfg, srv.URL+"/flaky")
	require.True(t, errors.As(err, &ferr))
	require.Equal(t, http.StatusBadGateway, ferr.StatusCode)
	require.Equal(t, int32(cfg.Attempts), calls.Load(), "attempts are bounded")

	calls.Store(0)
	_, err = Fetch(ctx, cfg, srv.URL+"/maintenance")
	require.True(t, errors.As(err, &ferr))
	require.Equal(t, "Down for maintenance", ferr.PageTitle)
	require.Contains(t, err.Error(), `HTTP 503 Service Unavailable (error page "Down for maintenance")`)
	require.Equal(t, int32(cfg.Attempts), calls.Load(), "a 503 is retried")

	_, err = Fetch(ctx, cfg, srv.URL+"/big")
	require.ErrorIs(t, err, errTooLarge)
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
