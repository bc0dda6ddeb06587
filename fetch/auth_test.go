package fetch

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// headerServer records the given header of every request it gets, by path.
type headerServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string][]string // path -> the header's value per request ("" when absent)
}

func newHeaderServer(t *testing.T, name string, handler func(w http.ResponseWriter, r *http.Request) bool) *headerServer {
	s := &headerServer{seen: map[string][]string{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen[r.URL.Path] = append(s.seen[r.URL.Path], r.Header.Get(name))
		s.mu.Unlock()
		if handler == nil || !handler(w, r) {
			_, _ = w.Write([]byte(`{}`))
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *headerServer) got(path string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen[path]...)
}

// TestFetchAuthHeaderSameHostOnly: the auth header goes to the source's host, also after a
// redirect within it, and never to another host a redirect leads to, whatever its name (Go
// itself strips only Authorization and Cookie, and only across domains).
func TestFetchAuthHeaderSameHostOnly(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"Authorization", "X-Api-Key"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			const secret = "s3cret-value"
			other := newHeaderServer(t, name, nil)
			var source *headerServer
			source = newHeaderServer(t, name, func(w http.ResponseWriter, r *http.Request) bool {
				switch r.URL.Path {
				case "/away":
					http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
				case "/within":
					http.Redirect(w, r, source.URL+"/ok", http.StatusFound)
				case "/back":
					// to the other host, which sends it back here
					http.Redirect(w, r, other.URL+"/bounce?to="+url.QueryEscape(source.URL+"/home"), http.StatusFound)
				case "/missing":
					http.Error(w, "no", http.StatusNotFound)
				default:
					return false
				}
				return true
			})
			other.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				other.mu.Lock()
				other.seen[r.URL.Path] = append(other.seen[r.URL.Path], r.Header.Get(name))
				other.mu.Unlock()
				if to := r.URL.Query().Get("to"); to != "" {
					http.Redirect(w, r, to, http.StatusFound)
					return
				}
				_, _ = w.Write([]byte(`{}`))
			})
			host, err := SourceHost(source.URL)
			require.NoError(t, err)
			cfg := testFetchConfig()
			cfg.AuthHeader = &AuthHeader{Name: name, Value: secret, Host: host}
			ctx := context.Background()

			for _, path := range []string{"/away", "/within", "/back"} {
				f, err := Get(ctx, cfg, source.URL+path)
				require.NoError(t, err, path)
				f.Close()
			}
			require.Equal(t, []string{secret}, source.got("/away"))
			require.Equal(t, []string{""}, other.got("/landing"), "the other host never sees the header")
			require.Equal(t, []string{secret}, source.got("/within"))
			require.Equal(t, []string{secret}, source.got("/ok"), "a redirect within the host keeps it")
			require.Equal(t, []string{""}, other.got("/bounce"))
			require.Equal(t, []string{secret}, source.got("/home"), "back on the source's host it is sent again")

			// A GET of the other host's URL itself with the source's header sends nothing.
			f, err := Get(ctx, cfg, other.URL+"/direct")
			require.NoError(t, err)
			f.Close()
			require.Equal(t, []string{""}, other.got("/direct"))

			// Errors never carry the value.
			_, err = Get(ctx, cfg, source.URL+"/missing")
			require.Error(t, err)
			require.NotContains(t, err.Error(), secret)
			require.NotContains(t, cfg.AuthHeader.String(), secret)
		})
	}
}

// TestFetchAuthHeaderDefaultHost: an AuthHeader without Host goes to the fetched URL's host.
func TestFetchAuthHeaderDefaultHost(t *testing.T) {
	t.Parallel()
	other := newHeaderServer(t, "X-Key", nil)
	source := newHeaderServer(t, "X-Key", func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, other.URL+"/landing", http.StatusMovedPermanently)
			return true
		}
		return false
	})
	cfg := testFetchConfig()
	cfg.AuthHeader = &AuthHeader{Name: "X-Key", Value: "k"}
	f, err := Get(context.Background(), cfg, source.URL+"/away")
	require.NoError(t, err)
	f.Close()
	require.Equal(t, []string{"k"}, source.got("/away"))
	require.Equal(t, []string{""}, other.got("/landing"))
}

// TestFetchAuthHeaderInvalid: a header name that is no token, or a value with CR/LF, fails the
// GET before anything is sent, naming the header and never the value.
func TestFetchAuthHeaderInvalid(t *testing.T) {
	t.Parallel()
	srv := newHeaderServer(t, "X-Key", nil)
	for _, h := range []AuthHeader{
		{Name: "X Key", Value: "v"},
		{Name: "", Value: "v"},
		{Name: "X-Key", Value: "line1\r\nInjected: secret-part"},
		{Name: "X-Key", Value: "nul\x00secret-part"},
	} {
		cfg := testFetchConfig()
		cfg.AuthHeader = &h
		_, err := Get(context.Background(), cfg, srv.URL+"/x")
		require.ErrorIs(t, err, ErrAuthHeader, "%q", h.Name)
		require.NotContains(t, err.Error(), "secret-part")
	}
	require.Empty(t, srv.got("/x"), "nothing was sent")
}

// TestFetchAccept: the configured Accept header is sent, DefaultAccept when none is.
func TestFetchAccept(t *testing.T) {
	t.Parallel()
	srv := newHeaderServer(t, "Accept", nil)
	cfg := testFetchConfig()
	f, err := Get(context.Background(), cfg, srv.URL+"/default")
	require.NoError(t, err)
	f.Close()
	cfg.Accept = "text/turtle, application/rdf+xml;q=0.8"
	f, err = Get(context.Background(), cfg, srv.URL+"/turtle")
	require.NoError(t, err)
	f.Close()
	require.Equal(t, []string{DefaultAccept}, srv.got("/default"))
	require.Equal(t, []string{"text/turtle, application/rdf+xml;q=0.8"}, srv.got("/turtle"))
}

func TestSameHost(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		url, host string
		want      bool
	}{
		{"https://Data.Example.no/x", "data.example.no", true},
		{"https://data.example.no:443/x", "data.example.no", true},
		{"https://data.example.no/x", "data.example.no:443", true},
		{"http://data.example.no/x", "data.example.no", true},
		{"https://data.example.no:8443/x", "data.example.no", false},
		{"https://evil.example/x", "data.example.no", false},
		{"https://data.example.no.evil.example/x", "data.example.no", false},
		{"http://[::1]:8080/x", "[::1]:8080", true},
	} {
		u, err := url.Parse(c.url)
		require.NoError(t, err)
		require.Equal(t, c.want, sameHost(u, c.host), "%s on %s", c.url, c.host)
	}
	host, err := SourceHost("https://Data.Example.no/catalog.ttl")
	require.NoError(t, err)
	require.Equal(t, "data.example.no:443", host)
	u, _ := url.Parse("http://data.example.no/catalog.ttl")
	require.False(t, sameHost(u, host), "no downgrade to plain http")
}
