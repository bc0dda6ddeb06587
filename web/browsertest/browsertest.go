// Package browsertest drives Debian's Chromium, headless, from Go tests (chromedp), for the
// web UI's browser tests, and writes their screenshots where a person can look at them.
//
// Chromium is found in $HARVESTER_TEST_CHROMIUM (scripts/services.sh installs Debian's
// chromium package and exports its path), else as "chromium" on PATH. Without it a test
// skips, except in CI (CI=true), where it fails: a browser test that did not run is not a pass.
//
// Screenshots go to $HARVESTER_TEST_OUTPUT/<test name>/, or, when that is unset, to
// testdata/output/<test name>/ in the test's package folder (ignored by git); t.TempDir() is
// not used because it is removed when the test ends.
package browsertest

import (
	"context"

	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// Chromium returns the path of the Chromium binary, skipping the test (failing it in CI) when
// there is none.
func Chromium(t testing.TB) string {
	t.Helper()
	path := os.Getenv("HARVESTER_TEST_CHROMIUM")
	if path == "" {
		path, _ = exec.LookPath("chromium")
	}
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	msg := "no Chromium: set HARVESTER_TEST_CHROMIUM or install Debian's chromium (scripts/services.sh does)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// Width and Height are the browser window's size in CSS pixels (device scale 1).
const Width, Height = 1280, 900

// New starts a headless Chromium for the test and returns a chromedp context on its first
// tab; the browser is closed when the test ends. It runs without Chromium's sandbox when the
// test runs as root (Chromium refuses to start sandboxed as root) and with no network but
// loopback use (the pages load nothing from outside). Its download folder is
// Output(t)/downloads.
func New(t testing.TB) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.WindowSize(Width, Height),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-device-scale-factor", "1"),
		chromedp.UserDataDir(t.TempDir()),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() { cancel(); cancelAlloc() })
	require.NoError(t, chromedp.Do(ctx), "start Chromium")
	return ctx
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Output returns the test's output folder (made when missing): $HARVESTER_TEST_OUTPUT/<test>,
// or testdata/output/<test> under the package folder. A previous run's files are left in it
// and overwritten by name.
func Output(t testing.TB) string {
	t.Helper()
	root := os.Getenv("HARVESTER_TEST_OUTPUT")
	if root == "" {
		root = filepath.Join("testdata", "output")
	}
	dir, err := filepath.Abs(filepath.Join(root, unsafeName.ReplaceAllString(t.Name(), "_")))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

// Screenshot writes a PNG of the whole page, as it is now, to Output(t)/<name>.png and
// returns its path. It first waits (Until) for the page to be loaded and laid out: Chromium
// refuses a full-page screenshot with "Cannot take screenshot with 0 width" while a new
// document replaces the old one (seen once in CI under load, right after a form submit).
// Such a refusal is tried again, at most twice, each time after the same wait.
func Screenshot(ctx context.Context, t testing.TB, name string) string {
	t.Helper()
	var png []byte
	var err error
	for try := 0; try < 3; try++ {
		Until(ctx, t, "a loaded page to screenshot",
			`document.readyState === "complete" && document.documentElement.scrollWidth > 0 && document.documentElement.scrollHeight > 0`)
		png, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err == nil || !strings.Contains(err.Error(), "Cannot take screenshot with 0") {
			break
		}
		t.Logf("screenshot %s: %v; trying again", name, err)
	}
	require.NoError(t, err, "screenshot %s", name)
	return write(t, name, png)
}

// ScreenshotElement writes a PNG of the first element matching the CSS selector sel (e.g. the
// page's main), at the window's width, to Output(t)/<name>.png and returns its path.
func ScreenshotElement(ctx context.Context, t testing.TB, name, sel string) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(sel)))
	require.NoError(t, err, "screenshot %s of %s", name, sel)
	return write(t, name, png)
}

// ScreenshotScaled is ScreenshotElement drawn at scale (0.5: half the width and height), for
// small pictures such as the README's.
func ScreenshotScaled(ctx context.Context, t testing.TB, name, sel string, scale float64) string {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.ScreenshotScale(chromedp.CSS(sel), scale))
	require.NoError(t, err, "screenshot %s of %s", name, sel)
	return write(t, name, png)
}

func write(t testing.TB, name string, png []byte) string {
	t.Helper()
	path := filepath.Join(Output(t), unsafeName.ReplaceAllString(name, "_")+".png")
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot: %s", path)
	return path
}

// Failsafe bounds the waits of Until and Download (and tests' own waits): a wait on a
// condition that never comes true fails the test after it instead of hanging. It is a bound
// on a broken page, not a timing: a harvest of a few hundred records takes seconds.
const Failsafe = 5 * time.Minute

// Until evaluates the JavaScript expression expr (a boolean) on the page every 100 ms until it
// is true, and fails the test after Failsafe. An evaluation that fails (the page is loading
// or being replaced, as the job page reloads itself when the job ends) counts as false. what
// names the condition in the failure message.
func Until(ctx context.Context, t testing.TB, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(Failsafe)
	wctx, cancel := context.WithDeadline(ctx, deadline) // an evaluation can wait for a frame
	defer cancel()
	var last error
	for {
		ok, err := chromedp.Run(wctx, chromedp.Evaluate[bool](expr))
		if err == nil && ok {
			return
		}
		if err != nil {
			last = err
		}
		if wctx.Err() != nil || time.Now().After(deadline) {
			t.Fatalf("waited %v for %s (%s); last error: %v; the page: %s", Failsafe, what, expr, last, whereNow(ctx))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// whereNow describes the page the browser is on, for a failure message: its URL, title and the
// text of its alerts (a refused form says why there). It gives the browser 10 s to answer.
func whereNow(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " (" + document.title + ") " +
		[...document.querySelectorAll("[role=alert], .error")].map(e => e.textContent.trim()).join(" | ")`))
	if err != nil {
		return "unknown: " + err.Error()
	}
	return s
}

// Download clicks the link or button that sel (CSS) finds, lets Chromium save the file it
// answers in Output(t)/downloads, waits until the download completed and returns its path
// (Chromium names it by the download's GUID).
func Download(ctx context.Context, t testing.TB, sel string) string {
	t.Helper()
	dir := filepath.Join(Output(t), "downloads")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	events := true
	_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &events})
	require.NoError(t, err, "allow downloads")
	wctx, cancel := context.WithTimeout(ctx, Failsafe)
	defer cancel()
	progress := chromedp.Events(wctx, browser.DownloadProgress)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))), "click %s", sel)
	for ev, err := range progress {
		require.NoError(t, err, "download of %s", sel)
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			return filepath.Join(dir, ev.GUID)
		case browser.DownloadProgressStateCanceled:
			t.Fatalf("the download of %s was cancelled", sel)
		}
	}
	t.Fatalf("no completed download of %s within %v", sel, Failsafe)
	return ""
}
