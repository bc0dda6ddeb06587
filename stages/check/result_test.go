package check

import (
	"encoding/json"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/quality"
)

func TestFold(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2026, 12, d, 0, 0, 0, 0, time.UTC) }
	ok := func(d int) Result { return Result{URL: "u", Status: 200, OK: true, CheckedAt: day(d)} }
	broken := func(d int) Result { return Result{URL: "u", Status: 404, CheckedAt: day(d)} }
	failed := func(d int) Result { return Result{URL: "u", Error: Timeout, CheckedAt: day(d)} }

	s := Fold(Stored{}, broken(1))
	require.Equal(t, 1, s.ConsecutiveFailures)
	require.True(t, s.LastOKAt.IsZero(), "never OK")
	s = Fold(s, ok(2))
	require.Equal(t, Stored{Result: ok(2), LastOKAt: day(2)}, s)
	s = Fold(s, broken(3))
	s = Fold(s, failed(4))
	require.Equal(t, 2, s.ConsecutiveFailures, "a 404 and a timeout")
	require.Equal(t, day(2), s.LastOKAt)
	require.Equal(t, failed(4), s.Result)

	require.Equal(t, s, Fold(s, ok(3)), "an older result arriving late changes nothing")

	s = Fold(s, Result{URL: "u", Error: Excluded, CheckedAt: day(5)})
	require.Zero(t, s.ConsecutiveFailures, "nothing was requested: not a failure")
	require.Equal(t, day(2), s.LastOKAt)
	s = Fold(s, ok(6))
	require.Equal(t, day(6), s.LastOKAt)
	require.Zero(t, s.ConsecutiveFailures)
}

func TestLinkResult(t *testing.T) {
	t.Parallel()
	for r, want := range map[Result]quality.LinkResult{
		{Status: 200, OK: true}:                   {Class: quality.LinkOK, Status: 200},
		{Status: 304, OK: true}:                   {Class: quality.LinkOK, Status: 304},
		{Status: 404}:                             {Class: quality.LinkBroken, Status: 404},
		{Error: DNS}:                              {Class: quality.LinkBroken},
		{Status: 302, Error: RedirectRefused}:     {Class: quality.LinkBroken, Status: 302},
		{Error: NotCheckable}:                     {Class: quality.LinkUnknown},
		{Status: 302, Error: Excluded}:            {Class: quality.LinkUnknown, Status: 302},
		{Status: 302, Error: TooManyRedirects}:    {Class: quality.LinkBroken, Status: 302},
		{Status: 0, Error: Timeout, OK: false}:    {Class: quality.LinkBroken},
		{Status: 206, ContentLength: 5, OK: true}: {Class: quality.LinkOK, Status: 206},
	} {
		require.Equal(t, want, r.LinkResult(), "%+v", r)
	}
}

// The JSON shape of a stored result (what the API and a future store column read).
func TestStoredJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	s := Stored{Result: Result{URL: "https://example.org/a.csv", Status: 302, Error: RedirectRefused,
		Detail: "refused", FinalURL: "http://10.0.0.1/", ContentLength: -1, Redirects: 1, CheckedAt: at},
		ConsecutiveFailures: 3}
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.JSONEq(t, `{"url":"https://example.org/a.csv","status":302,"error":"redirect_refused",
		"detail":"refused","final_url":"http://10.0.0.1/","content_length":-1,"redirects":1,
		"checked_at":"2026-12-07T10:00:00Z","ok":false,"last_ok_at":"0001-01-01T00:00:00Z",
		"consecutive_failures":3}`, string(b))
	var back Stored
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, s, back)
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"0": 0, "3": 3 * time.Second, " 120 ": 2 * time.Minute,
		"Mon, 07 Dec 2026 10:00:30 GMT": 30 * time.Second,
		"Mon, 07 Dec 2026 09:00:00 GMT": 0, // past
	} {
		got, ok := retryAfter(v, now)
		require.True(t, ok, v)
		require.Equal(t, want, got, v)
	}
	for _, v := range []string{"", "-1", "soon", "1.5"} {
		_, ok := retryAfter(v, now)
		require.False(t, ok, v)
	}
}

func TestConfig(t *testing.T) {
	t.Parallel()
	c := Config{}.WithDefaults()
	require.Equal(t, 2, c.HostConcurrency)
	require.Equal(t, 2.0, c.HostRate)
	require.Equal(t, 10, c.MaxRedirects)
	require.NotNil(t, c.guard, "the SSRF guard is on by default")
	require.Nil(t, Config{AllowPrivate: true}.WithDefaults().guard)
	require.NoError(t, c.validate())
	for field, bad := range map[string]Config{
		"HostConcurrency": {HostConcurrency: -1},
		"HostRate":        {HostRate: -2},
		"Timeout":         {Timeout: -time.Second},
		"MaxRedirects":    {MaxRedirects: -1},
		"Retries":         {Retries: -2},
		"Parallel":        {Parallel: -1},
		"ExcludeHosts":    {ExcludeHosts: []string{"https://example.org/"}},
	} {
		_, err := New(bad)
		require.ErrorContains(t, err, field)
	}

	c.ExcludeHosts = []string{"Example.org", "cdn.example.net."}
	for host, want := range map[string]bool{"example.org": true, "data.EXAMPLE.org": true,
		"notexample.org": false, "cdn.example.net": true, "example.net": false, "org": false} {
		require.Equal(t, want, c.excluded(host), host)
	}
}

func TestHostKey(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"http://Example.org/a": "example.org", "http://example.org:80/a": "example.org",
		"https://example.org:443/": "example.org", "https://example.org:8443/": "example.org:8443",
		"http://example.org:443/": "example.org:443", "http://[::1]:8080/": "[::1]:8080",
	} {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		require.Equal(t, want, hostKey(u), raw)
	}
}

// Hosts idle for a minute are forgotten once the map has grown, so a stream of new hosts keeps
// memory flat; a busy or paused host is kept.
func TestHostLimiterSweep(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	l := newHostLimiter(2, 1000)
	l.now = func() time.Time { return now }
	ctx := t.Context()
	held, err := l.acquire(ctx, "busy.example")
	require.NoError(t, err)
	release, err := l.acquire(ctx, "paused.example")
	require.NoError(t, err)
	release()
	l.throttle("paused.example", time.Hour)
	for i := range minSweep - 2 { // the map reaches minSweep: the next new host sweeps it
		release, err := l.acquire(ctx, fmt.Sprintf("h%d.example", i))
		require.NoError(t, err)
		release()
	}
	now = now.Add(2 * hostIdle)
	release, err = l.acquire(ctx, "new.example")
	require.NoError(t, err)
	release()
	held()
	l.mu.Lock()
	defer l.mu.Unlock()
	require.Equal(t, 3, len(l.hosts), "busy, paused and new")
	require.Contains(t, l.hosts, "busy.example")
	require.Contains(t, l.hosts, "paused.example")
	require.Equal(t, minSweep, l.sweepAt)
}
