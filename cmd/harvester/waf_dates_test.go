package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/harvester-dev/harvester/store/dbtest"
)

// datedWAF is a WAF of one Apache <pre> listing whose files, bodies and listing dates a test
// edits; it counts each file's downloads.
type datedWAF struct {
	*httptest.Server
	mu        sync.Mutex
	files     map[string]*datedFile // by name
	downloads map[string]int
	// listingDate formats a file's date as the listing shows it; when nil, the listing shows
	// the minute of its first request, for every file (listedAt).
	listingDate func(*datedFile) string
	listedAt    time.Time
}

type datedFile struct {
	body     []byte
	modified time.Time // the file's mtime, shown through listingDate
}

func newDatedWAF(t *testing.T, listingDate func(*datedFile) string) *datedWAF {
	t.Helper()
	w := &datedWAF{files: map[string]*datedFile{}, downloads: map[string]int{}, listingDate: listingDate}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if r.URL.Path == "/waf/" {
			if w.listedAt.IsZero() {
				w.listedAt = time.Now().UTC()
			}
			var page bytes.Buffer
			page.WriteString("<html><body><h1>Index of /waf</h1><pre><a href=\"/\">Parent Directory</a>\n")
			for name, f := range w.files {
				date := w.listedAt.Format("2006-01-02 15:04")
				if w.listingDate != nil {
					date = w.listingDate(f)
				}
				fmt.Fprintf(&page, "<a href=%q>%s</a>    %s  %dK\n", name, name, date, len(f.body)>>10)
			}
			page.WriteString("</pre></body></html>")
			_, _ = rw.Write(page.Bytes())
			return
		}
		f, ok := w.files[r.URL.Path[len("/waf/"):]]
		if !ok {
			http.NotFound(rw, r)
			return
		}
		w.downloads[r.URL.Path[len("/waf/"):]]++
		rw.Header().Set("Content-Type", "application/xml")
		_, _ = rw.Write(f.body)
	}))
	t.Cleanup(w.Close)
	return w
}

// set replaces a file's body and mtime.
func (w *datedWAF) set(name string, body []byte, modified time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files[name] = &datedFile{body: body, modified: modified}
}

// downloaded returns how often each file was downloaded since the last call.
func (w *datedWAF) downloaded() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	d := w.downloads
	w.downloads = map[string]int{}
	return d
}

// isoVersions are two versions of one valid ISO 19115-2 record: the corpus file, and the same
// file with its title edited.
func isoVersions(t *testing.T) (v1, v2 []byte) {
	t.Helper()
	v1, err := os.ReadFile(corpustest.Path(t, "iso19115/datagov-valid-iso2-gmi.xml"))
	require.NoError(t, err)
	i := bytes.Index(v1, []byte("<gco:CharacterString>"))
	require.Positive(t, i)
	v2 = bytes.Clone(v1)
	v2 = append(v2[:i+len("<gco:CharacterString>")], append([]byte("Edited "), v1[i+len("<gco:CharacterString>"):]...)...)
	return v1, v2
}

// An edit made in the same minute as a harvest, after it downloaded the file, shows the same
// listing date as before (listings show minutes): the next harvest downloads the file anyway
// and records the update. A file dated well before the last harvest is still skipped.
func TestHarvestWAFEditInHarvestMinute(t *testing.T) {
	t.Parallel()
	v1, v2 := isoVersions(t)
	w := newDatedWAF(t, nil) // the file shows the minute of the first listing, the first harvest's minute
	w.set("edited.xml", v1, time.Time{})
	services := []string{"--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t)}
	harvest := func() jobReport {
		t.Helper()
		rep := runJSON(t, append([]string{"harvest", "--url", w.URL + "/waf/", "--source-type", "waf",
			"--schema-type", "iso19115_2"}, services...)...)
		require.Equal(t, "complete", rep.Status, "%+v", rep)
		return rep
	}

	first := harvest()
	require.Equal(t, 1, first.Added, "%+v", first)
	require.Equal(t, map[string]int{"edited.xml": 1}, w.downloaded())

	// Edited after the harvest read it, within the minute the listing shows.
	w.set("edited.xml", v2, time.Time{})
	second := harvest()
	require.Equal(t, map[string]int{"edited.xml": 1}, w.downloaded(),
		"a file whose listing date is the previous harvest's minute is downloaded again")
	require.Equal(t, 1, second.Updated, "the edit is harvested: %+v", second)
}

// Files dated well before the last harvest are skipped, whatever minute the listing shows.
func TestHarvestWAFOldFileSkipped(t *testing.T) {
	t.Parallel()
	v1, _ := isoVersions(t)
	old := time.Now().Add(-2 * time.Hour)
	w := newDatedWAF(t, func(f *datedFile) string { return f.modified.UTC().Format("2006-01-02 15:04") })
	w.set("old.xml", v1, old)
	services := []string{"--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t)}
	args := append([]string{"harvest", "--url", w.URL + "/waf/", "--source-type", "waf", "--schema-type", "iso19115_2"}, services...)
	require.Equal(t, 1, runJSON(t, args...).Added)
	require.Equal(t, map[string]int{"old.xml": 1}, w.downloaded())
	rep := runJSON(t, args...)
	require.Equal(t, 1, rep.Unchanged)
	require.Empty(t, w.downloaded(), "a file dated two hours before the last harvest is not downloaded")
}

// A listing showing the web server's local time without saying so is read in the source's
// WAF time zone; a zone the listing names wins over it. Ahead of UTC, an unchanged file is
// skipped (read as UTC its date would lie in the future); behind UTC, an edit after the last
// harvest is downloaded (read as UTC its date would lie hours before that harvest).
func TestHarvestWAFServerLocalTime(t *testing.T) {
	t.Parallel()
	v1, v2 := isoVersions(t)
	cases := []struct {
		name, zone string
		flag       []string // --waf-time-zone, or none
		layout     string   // of the listing's dates
	}{
		{"ahead of UTC", "Asia/Tokyo", []string{"--waf-time-zone", "Asia/Tokyo"}, "2006-01-02 15:04"},
		{"behind UTC", "America/New_York", []string{"--waf-time-zone", "America/New_York"}, "2006-01-02 15:04"},
		{"behind UTC, IIS", "America/Los_Angeles", []string{"--waf-time-zone", "America/Los_Angeles"}, "1/2/2006  3:04 PM"},
		{"the listing names its zone", "America/Chicago", nil, "02-Jan-2006 15:04 -0700"},
		{"the listing's zone beats the source's", "Asia/Kolkata", []string{"--waf-time-zone", "America/New_York"},
			"2006-01-02 15:04 -07:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			loc, err := time.LoadLocation(c.zone)
			require.NoError(t, err)
			w := newDatedWAF(t, func(f *datedFile) string { return f.modified.In(loc).Format(c.layout) })
			w.set("a.xml", v1, time.Now().Add(-2*time.Hour))
			services := []string{"--database-url", dbtest.URL(t), "--nats-url", natstest.URL(t)}
			harvest := func() jobReport {
				t.Helper()
				args := append([]string{"harvest", "--url", w.URL + "/waf/", "--source-type", "waf",
					"--schema-type", "iso19115_2"}, append(c.flag, services...)...)
				rep := runJSON(t, args...)
				require.Equal(t, "complete", rep.Status, "%+v", rep)
				return rep
			}
			require.Equal(t, 1, harvest().Added)
			require.Equal(t, map[string]int{"a.xml": 1}, w.downloaded())

			rep := harvest()
			require.Equal(t, 1, rep.Unchanged)
			require.Empty(t, w.downloaded(), "unchanged since two hours before the last harvest: skipped")

			w.set("a.xml", v2, time.Now())
			rep = harvest()
			require.Equal(t, map[string]int{"a.xml": 1}, w.downloaded(), "edited after the last harvest: downloaded")
			require.Equal(t, 1, rep.Updated, "%+v", rep)
		})
	}
}

// The source keeps its WAF time zone from one CLI run to the next; an unknown zone is a usage
// error that writes nothing.
func TestHarvestWAFTimeZoneFlag(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"harvest", "--url", "https://waf.example.gov/waf/", "--source-type", "waf",
		"--schema-type", "iso19115_2", "--waf-time-zone", "Mars/Olympus"}, &out, &errOut)
	require.Equal(t, 2, code)
	require.Contains(t, errOut.String(), `--waf-time-zone: unknown time zone "Mars/Olympus": want an IANA time zone name`)
	errOut.Reset()
	code = run(context.Background(), []string{"harvest", "--url", "https://agency.example.gov/data.json",
		"--schema-type", "dcatus1.1: federal", "--waf-time-zone", "UTC"}, &out, &errOut)
	require.Equal(t, 2, code)
	require.Contains(t, errOut.String(), "--waf-time-zone: only a waf or waf-collection source has one, not a document source")
}
