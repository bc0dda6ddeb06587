package browsertest_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/web/browsertest"
)

// TestChromiumRunsAPage: the browser starts headless, loads a local page, runs its script and
// the screenshot is a PNG in the output folder.
func TestChromiumRunsAPage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`<!doctype html><title>t</title><h1 id="h">static</h1>` +
			`<script>document.getElementById("h").textContent = "from script"</script>`))
	}))
	defer srv.Close()
	ctx := browsertest.New(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL), chromedp.WaitVisible(chromedp.ID("h"))))
	text, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("h")))
	require.NoError(t, err)
	require.Equal(t, "from script", text)
	path := browsertest.Screenshot(ctx, t, "page")
	png, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "\x89PNG\r\n\x1a\n", string(png[:8]))
}

// TestDownloadAndUntil: a link's file is saved in the output folder; Until waits across a
// page that changes itself.
func TestDownloadAndUntil(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/rows.csv" {
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("Content-Disposition", `attachment; filename="rows.csv"`)
			_, _ = w.Write([]byte("a,b\n1,2\n"))
			return
		}
		_, _ = w.Write([]byte(`<!doctype html><title>t</title><p id="n">0</p><a id="csv" href="/rows.csv" download>CSV</a>` +
			`<script>var i = 0; setInterval(function () { document.getElementById("n").textContent = ++i }, 50)</script>`))
	}))
	defer srv.Close()
	ctx := browsertest.New(t)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(srv.URL)))
	browsertest.Until(ctx, t, "the counter passed 5", `+document.getElementById("n").textContent > 5`)
	path := browsertest.Download(ctx, t, "#csv")
	body, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "a,b\n1,2\n", string(body))
}

// recorder is a testing.TB that records Fatal and Skip instead of stopping the goroutine.
type recorder struct {
	testing.TB
	fatal, skip string
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatal(args ...any)     { r.fatal = fmt.Sprint(args...) }
func (r *recorder) Skip(args ...any)      { r.skip = fmt.Sprint(args...) }
func (r *recorder) Name() string          { return "recorder" }
func (r *recorder) Logf(string, ...any)   {}
func (r *recorder) Errorf(string, ...any) {}

// TestNoChromiumFailsInCI: without Chromium a browser test skips, except with CI=true, where
// it fails.
func TestNoChromiumFailsInCI(t *testing.T) {
	t.Setenv("HARVESTER_TEST_CHROMIUM", filepath.Join(t.TempDir(), "no-chromium"))
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "")
	r := &recorder{}
	browsertest.Chromium(r)
	require.Empty(t, r.fatal)
	require.Contains(t, r.skip, "no Chromium")
	t.Setenv("CI", "true")
	r = &recorder{}
	browsertest.Chromium(r)
	require.Contains(t, r.fatal, "no Chromium")
}
