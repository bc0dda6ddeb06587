package browsertest_test

import (
	"net/http"
	"net/http/httptest"
	"os"
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
