package waf

import (
	"bytes"
	"errors"
	"io"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/stages/extract"
)

func utc(y int, mo time.Month, d, h, mi int) time.Time {
	return time.Date(y, mo, d, h, mi, 0, 0, time.UTC)
}

// The corpus listings: the pages are resolved against the URL each was captured from.
var wafCorpusCases = []struct {
	name    string
	pageURL string
	files   []WAFFile
	folders []string
}{
	{
		name:    "apache-noaa-garfo.html", // Apache table
		pageURL: "https://data.noaa.gov/waf/NOAA/nmfs/garfo/iso/xml/",
		files: []WAFFile{
			{URL: "https://data.noaa.gov/waf/NOAA/nmfs/garfo/iso/xml/1463.xml", Modified: utc(2026, 7, 12, 2, 23), Precision: time.Minute},
			{URL: "https://data.noaa.gov/waf/NOAA/nmfs/garfo/iso/xml/1503.xml", Modified: utc(2026, 7, 12, 2, 23), Precision: time.Minute},
		},
	},
	{
		name:    "apache-folder-with-subfolder.html", // Apache <pre>, parent href="/"
		pageURL: "https://data.noaa.gov/apache-folder/",
		files: []WAFFile{
			{URL: "https://data.noaa.gov/apache-folder/record-1.xml", Modified: utc(2024, 11, 7, 15, 0), Precision: time.Minute},
		},
		folders: []string{"https://data.noaa.gov/apache-folder/subfolder/"},
	},
	{
		name:    "apache-census-division-ul.html", // Apache <ul>, no dates, parent href="#no"
		pageURL: "https://www2.census.gov/geo/tiger/division_500/",
		files: []WAFFile{
			{URL: "https://www2.census.gov/geo/tiger/division_500/cb_2016_us_division_500k.shp.iso.xml"},
			{URL: "https://www2.census.gov/geo/tiger/division_500/nodc_0099041_cw_region_meta_v2013.xml"},
		},
	},
	{
		name:    "nginx-alaska-dggs.html", // nginx, .faq.html and .txt siblings
		pageURL: "https://dggs.alaska.gov/webpubs/metadata/",
		files: []WAFFile{
			{URL: "https://dggs.alaska.gov/webpubs/metadata/AOF125.xml", Modified: utc(2025, 10, 2, 11, 47), Precision: time.Minute},
			{URL: "https://dggs.alaska.gov/webpubs/metadata/AOF134.xml", Modified: utc(2026, 7, 30, 16, 1), Precision: time.Minute},
		},
	},
	{
		name:    "iis-epa-edg.html", // IIS <pre>, absolute hrefs, date before the link
		pageURL: "https://edg.epa.gov/WAFer_harvest/ISO/",
		files: []WAFFile{
			{URL: "https://edg.epa.gov/WAFer_harvest/ISO/enviroatlas-metadata-waf_ACS_Demographics_by_Tract_2008_2012_EA.xml", Modified: utc(2021, 6, 17, 12, 20), Precision: time.Minute},
			{URL: "https://edg.epa.gov/WAFer_harvest/ISO/enviroatlas-metadata-waf_Ag_On_Slopes.xml", Modified: utc(2025, 7, 23, 17, 33), Precision: time.Minute},
		},
	},
	{
		name:    "iis-bts-ntad.html", // IIS long weekday dates with double spaces
		pageURL: "https://transtats.bts.gov/NTADmetadata/",
		files: []WAFFile{
			{URL: "https://transtats.bts.gov/NTADmetadata/USDOT_BTS_NTAD_119th_Congressional_Districts.xml", Modified: utc(2026, 7, 31, 16, 53), Precision: time.Minute},
			{URL: "https://transtats.bts.gov/NTADmetadata/USDOT_BTS_NTAD_1991_FAP.xml", Modified: utc(2026, 7, 15, 16, 23), Precision: time.Minute},
		},
	},
}

func TestParseWAFListingCorpus(t *testing.T) {
	t.Parallel()
	for _, c := range wafCorpusCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f, err := os.Open(corpustest.Path(t, "waf/"+c.name))
			require.NoError(t, err)
			defer f.Close()
			files, folders, err := ParseWAFListing(c.pageURL, f)
			require.NoError(t, err)
			require.Equal(t, c.files, files)
			require.Equal(t, c.folders, folders)
			for _, f := range files {
				require.Equal(t, time.UTC, f.Modified.Location())
			}
		})
	}
}

func TestParseWAFListingLocation(t *testing.T) {
	t.Parallel()
	f, err := os.Open(corpustest.Path(t, "waf/iis-epa-edg.html"))
	require.NoError(t, err)
	defer f.Close()
	est := time.FixedZone("EST", -5*3600)
	files, _, err := parseWAFListing("https://edg.epa.gov/WAFer_harvest/ISO/", f, est)
	require.NoError(t, err)
	require.Len(t, files, 2)
	require.Equal(t, utc(2021, 6, 17, 17, 20), files[0].Modified)
	require.Equal(t, time.UTC, files[0].Modified.Location())
	require.Equal(t, utc(2025, 7, 23, 22, 33), files[1].Modified)
}

// Dates sit beside their own link only: a sibling .html/.txt file's date is never taken
// (Data.gov split the listing text on ".xml" and mis-assigned them, d.g#5293/dh#618).
func TestParseWAFListingSiblingDates(t *testing.T) {
	t.Parallel()
	const page = "https://h.gov/waf/"
	cases := map[string]struct {
		html  string
		dates []time.Time
	}{
		"nginx": {
			html: `<html><body><pre><a href="../">../</a>
<a href="A.faq.html">A.faq.html</a>     01-Jan-2020 10:00     45K
<a href="A.txt">A.txt</a>               02-Feb-2021 11:00     30K
<a href="A.xml">A.xml</a>               03-Mar-2022 12:00     26K
<a href="B.html">B.html</a>             04-Apr-2023 13:00     45K
<a href="B.xml">B.xml</a>
<a href="C.xml">C.xml</a>               05-May-2024 14:30:15  1K
</pre></body></html>`,
			dates: []time.Time{utc(2022, 3, 3, 12, 0), {}, time.Date(2024, 5, 5, 14, 30, 15, 0, time.UTC)},
		},
		"apache table": {
			html: `<table>
<tr><td><a href="A.html">A.html</a></td><td>2020-01-01 10:00</td></tr>
<tr><td><a href="A.xml">A.xml</a></td><td>
  2022-03-03 12:00
</td><td>5K</td></tr>
<tr><td><a href="B.html">B.html</a></td><td>2023-04-04 13:00</td>
<tr><td><a href="B.xml">B.xml</a></td><td>-</td>
<tr><td>2024-05-05 14:30</td><td><a href="C.xml">C.xml</a></td></tr>
</table>`,
			dates: []time.Time{utc(2022, 3, 3, 12, 0), {}, utc(2024, 5, 5, 14, 30)},
		},
		"iis": {
			html: `<pre><A HREF="/">[To Parent Directory]</A><br><br>` +
				` 1/1/2020 10:00 AM 1 <A HREF="/waf/A.html">A.html</A><br>` +
				` 3/3/2022 12:00 PM 2 <A HREF="/waf/A.xml">A.xml</A><br>` +
				` 4/4/2023  1:00 PM 3 <A HREF="/waf/B.html">B.html</A><br>` +
				` &lt;dir&gt; <A HREF="/waf/B.xml">B.xml</A><br>` +
				` Sunday, May 5, 2024 12:30 AM 4 <A HREF="/waf/C.xml">C.xml</A><br></pre>`,
			dates: []time.Time{utc(2022, 3, 3, 12, 0), {}, utc(2024, 5, 5, 0, 30)},
		},
		"iis lines": {
			html:  "<pre><a href=\"/\">[To Parent Directory]</a>\n 3/3/2022 12:00 PM 2 <a href=\"A.xml\">A.xml</a>\n 4/4/2023  1:00 PM 3 <a href=\"B.xml\">B.xml</a>\n</pre>",
			dates: []time.Time{utc(2022, 3, 3, 12, 0), utc(2023, 4, 4, 13, 0)},
		},
		"links on one line": {
			html:  `<p><a href="A.html">A.html</a> 2020-01-01 10:00 <a href="A.xml">A.xml</a> <a href="B.xml">B.xml</a> 2024-05-05 14:30</p><p><a href="C.xml">C.xml</a></p>`,
			dates: []time.Time{{}, utc(2024, 5, 5, 14, 30), {}},
		},
		"ul": {
			html:  `<ul><li><a href="A.html">A.html</a> 2020-01-01 10:00<li><a href="A.xml">A.xml</a> 2022-03-03 12:00</li><li><a href="B.xml">B.xml</a></ul>`,
			dates: []time.Time{utc(2022, 3, 3, 12, 0), {}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			files, _, err := ParseWAFListing(page, strings.NewReader(c.html))
			require.NoError(t, err)
			var got []time.Time
			for _, f := range files {
				got = append(got, f.Modified)
			}
			require.Equal(t, c.dates, got, "files %v", files)
		})
	}
}

func TestParseWAFListingLinks(t *testing.T) {
	t.Parallel()
	const listing = `<html><head><base href="https://elsewhere.gov/"><title>Index of /waf/a/</title>
<script>var s = '<a href="script.xml">';</script></head><body>
<pre><a href="?C=N;O=D">Name</a> <a href="?C=M;O=A">Last modified</a><hr><a href="/waf/">Parent Directory</a>
<a href="../">up</a> <a href="./">self</a> <a href="">empty</a> <a href="#top">top</a> <a href="/">root</a>
<a href="x.xml"><img src="/icons/text.gif" alt="[TXT]"></a> <a href="x.xml">x.xml</a>   2024-11-07 15:00:09  1K
<a href="Y.XML">Y.XML</a>   2024-11-08 01:02
<a href="z.Xml#frag">z.Xml</a>
<a href="x.xml?download=1">x.xml</a> <a href="x.xml">again</a>
<a href="mailto:someone@h.gov">mail</a> <a href="javascript:void(0)">js</a> <a href="ftp://h.gov/waf/a/f.xml">ftp</a>
<a href="https://other.gov/waf/a/o.xml">o.xml</a> <a href="https://other.gov/waf/a/sub/">other sub</a>
<a href="HTTPS://H.GOV:443/waf/a/p.xml">p.xml</a> <a href="p.xml">p.xml again</a> <a href="http://h.gov/waf/a/q.xml">plain http</a>
<a href="sub/">sub/</a> <a href="sub/">sub/ again</a> <a href="sub/?C=M;O=A">sort</a> <a href="deep/er/">deep/er/</a>
<a href="../b/">sibling</a> <a href="/waf/a/sub/../sub2/">sub2</a> <a href="sub/x.xml/">not a file</a>
<a href="report.html">report.html</a> <a href="data.xml.gz">gz</a> <a href="notes.txt">txt</a> <a name="anchor">no href</a>
<a href="%zz.xml">bad escape</a> <a href="sp ace.xml">space</a>
</pre></body></html>`
	files, folders, err := ParseWAFListing("https://h.gov/waf/a/", strings.NewReader(listing))
	require.NoError(t, err)
	require.Equal(t, []WAFFile{
		{URL: "https://h.gov/waf/a/x.xml", Modified: time.Date(2024, 11, 7, 15, 0, 9, 0, time.UTC), Precision: time.Second},
		{URL: "https://h.gov/waf/a/Y.XML", Modified: utc(2024, 11, 8, 1, 2), Precision: time.Minute},
		{URL: "https://h.gov/waf/a/z.Xml"},
		{URL: "https://h.gov/waf/a/p.xml"},
		{URL: "https://h.gov/waf/a/sp%20ace.xml"},
	}, files)
	require.Equal(t, []string{
		"https://h.gov/waf/a/sub/",
		"https://h.gov/waf/a/deep/er/",
		"https://h.gov/waf/b/",
		"https://h.gov/waf/a/sub2/",
		"https://h.gov/waf/a/sub/x.xml/",
	}, folders)

	// A page that is a file in its folder: the folder is the page's own, never returned.
	_, folders, err = ParseWAFListing("https://h.gov/waf/a/index.html",
		strings.NewReader(`<a href="./">.</a><a href="/waf/a/">self</a><a href="index.html">me</a><a href="s/">s</a>`))
	require.NoError(t, err)
	require.Equal(t, []string{"https://h.gov/waf/a/s/"}, folders)
}

func TestParseWAFListingErrors(t *testing.T) {
	t.Parallel()
	for _, page := range []string{"", "h.gov/waf/", "/waf/", "ftp://h.gov/waf/", "mailto:a@h.gov", "https:///waf/"} {
		_, _, err := ParseWAFListing(page, strings.NewReader(`<a href="a.xml">a</a>`))
		require.Error(t, err, "page URL %q", page)
	}
	// A body without markup is not an empty listing.
	for _, body := range []string{"", "   \n", "Service Unavailable", "a.xml 2020-01-01 10:00"} {
		_, _, err := ParseWAFListing("https://h.gov/waf/", strings.NewReader(body))
		require.ErrorIs(t, err, errNotHTML, "body %q", body)
	}
	// A body the reader cannot finish is an error, not a short listing.
	_, _, err := ParseWAFListing("https://h.gov/waf/",
		io.MultiReader(strings.NewReader(`<pre><a href="a.xml">a.xml</a>`), errReader{}))
	require.ErrorContains(t, err, "connection reset")
	// An empty but real listing is empty.
	files, folders, err := ParseWAFListing("https://h.gov/waf/",
		strings.NewReader(`<html><body><h1>Index of /waf</h1><pre><a href="../">../</a></pre></body></html>`))
	require.NoError(t, err)
	require.Empty(t, files)
	require.Empty(t, folders)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestParseListingDate(t *testing.T) {
	t.Parallel()
	const minute, second, day = time.Minute, time.Second, 24 * time.Hour
	at := func(t time.Time, precision time.Duration) listingDate { return listingDate{t, precision} }
	cases := map[string]listingDate{
		"2026-07-12 02:23  ":                         at(utc(2026, 7, 12, 2, 23), minute),
		" 2024-11-07 15:00:59 356K":                  at(time.Date(2024, 11, 7, 15, 0, 59, 0, time.UTC), second),
		"02-Oct-2025 11:47     45K":                  at(utc(2025, 10, 2, 11, 47), minute),
		"30-jul-2026 16:01":                          at(utc(2026, 7, 30, 16, 1), minute),
		" 6/17/2021 12:20 PM        39985 ":          at(utc(2021, 6, 17, 12, 20), minute),
		" 7/23/2025  5:33 PM ":                       at(utc(2025, 7, 23, 17, 33), minute),
		"1/1/2020 12:05 AM":                          at(utc(2020, 1, 1, 0, 5), minute),
		"12/31/2020 11:59 pm":                        at(utc(2020, 12, 31, 23, 59), minute),
		"Friday, July 31, 2026  4:53 PM        27":   at(utc(2026, 7, 31, 16, 53), minute),
		"Wednesday, July 15, 2026  4:23 PM":          at(utc(2026, 7, 15, 16, 23), minute),
		"Monday, March 2, 2026 12:00 PM":             at(utc(2026, 3, 2, 12, 0), minute),
		"2024-02-29\u00a012:00":                      at(utc(2024, 2, 29, 12, 0), minute),
		"2023-02-29 12:00 then 2023-03-01 08:00":     at(utc(2023, 3, 1, 8, 0), minute), // the invalid one is skipped
		"1/2/2020 1:00 PM and 2020-05-05 05:05":      at(utc(2020, 5, 5, 5, 5), minute), // Apache format first
		"-":                                          {},
		"":                                           {},
		"2024-13-01 10:00":                           {},
		"2024-06-31 10:00":                           {},
		"2024-01-01 24:00":                           {},
		"2024-01-01 10:60":                           {}, // a bad time is not read as a date alone
		"31-Foo-2024 10:00":                          {},
		"13/1/2024 10:00 AM":                         {},
		"1/1/2024 13:00 PM":                          {},
		"1/1/2024 0:00 AM":                           {},
		"1/1/2024 10:00":                             {},
		"Funday, July 31, 2026  4:53 PM":             {},
		"120240-01-01 10:00":                         {},
		"Friday, Smarch 31, 2026  4:53 PM 2/30/2026": {},
		// Zones the listing names win over the source's.
		"2024-11-07 15:00 +0100  1K":                 at(utc(2024, 11, 7, 14, 0), minute),
		"2024-11-07 15:00:30-05:00":                  at(time.Date(2024, 11, 7, 20, 0, 30, 0, time.UTC), second),
		"07-Nov-2024 15:00 GMT":                      at(utc(2024, 11, 7, 15, 0), minute),
		"2024-11-07 15:00 UTC":                       at(utc(2024, 11, 7, 15, 0), minute),
		"11/7/2024 3:00 PM EST":                      at(utc(2024, 11, 7, 20, 0), minute),
		"Thursday, November 7, 2024  3:00 PM pdt 12": at(utc(2024, 11, 7, 22, 0), minute),
		"2024-11-07 15:00 +2400":                     {},                                  // no such offset, and no other date
		"2024-11-07 15:00  1234":                     at(utc(2024, 11, 7, 15, 0), minute), // a size, not an offset
		// A date alone stands for its whole day.
		"2024-01-01":       at(utc(2024, 1, 1, 0, 0), day),
		"  07-Nov-2024  -": at(utc(2024, 11, 7, 0, 0), day),
		"2024-02-30":       {},
	}
	for in, want := range cases {
		got, ok := parseListingDate(in, time.UTC)
		require.Equal(t, !want.start.IsZero(), ok, "%q", in)
		require.Equal(t, want, got, "%q", in)
		if ok {
			require.Equal(t, time.UTC, got.start.Location(), "%q", in)
		}
	}
}

// A listing's server-local dates are read in the source's zone, daylight saving time included;
// an hour the clocks repeat stands for both of its readings, a day for its own length.
func TestParseListingDateInZone(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	require.NoError(t, err)
	cases := map[string]listingDate{
		"2024-07-01 10:05":     {utc(2024, 7, 1, 14, 5), time.Minute},              // EDT
		"2024-12-01 10:05":     {utc(2024, 12, 1, 15, 5), time.Minute},             // EST
		"2024-12-01 10:05 Z":   {utc(2024, 12, 1, 10, 5), time.Minute},             // the listing's own zone wins
		"2024-11-03 01:30":     {utc(2024, 11, 3, 5, 30), time.Hour + time.Minute}, // 01:30 EDT, or an hour later EST
		"2024-03-10 03:30":     {utc(2024, 3, 10, 7, 30), time.Minute},             // just after the clocks went forward
		"2024-11-03":           {utc(2024, 11, 3, 4, 0), 25 * time.Hour},           // the day is an hour longer
		"2024-03-10":           {utc(2024, 3, 10, 5, 0), 23 * time.Hour},           // and an hour shorter
		"11/3/2024 1:59:59 AM": {time.Date(2024, 11, 3, 5, 59, 59, 0, time.UTC), time.Hour + time.Second},
	}
	for in, want := range cases {
		got, ok := parseListingDate(in, ny)
		require.True(t, ok, "%q", in)
		require.Equal(t, want, got, "%q", in)
	}
}

func FuzzParseWAFListing(f *testing.F) {
	for _, c := range wafCorpusCases {
		b, err := os.ReadFile(corpustest.Path(f, "waf/"+c.name))
		require.NoError(f, err)
		f.Add(b)
	}
	f.Add([]byte(wafPage("a.xml", "b/", "../", "https://other.gov/x.xml")))
	f.Add([]byte(`<table><tr><td><a href="A.xml">A</a><td>2024-01-01 10:00<tr><td>1/1/2020 1:00 PM<a href=B.XML>`))
	const page = "https://h.gov/waf/a/"
	base, err := url.Parse(page)
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, data []byte) {
		files, folders, err := ParseWAFListing(page, bytes.NewReader(data))
		if err != nil {
			require.Empty(t, files)
			require.Empty(t, folders)
			return
		}
		seen := make(map[string]bool)
		for _, file := range files {
			u, err := url.Parse(file.URL)
			require.NoError(t, err, file.URL)
			require.True(t, extract.SameHost(u, base) && u.Scheme == "https", file.URL)
			require.True(t, strings.HasSuffix(strings.ToLower(u.Path), ".xml"), file.URL)
			require.Empty(t, u.RawQuery+u.Fragment, file.URL)
			require.False(t, seen[file.URL], "duplicate %s", file.URL)
			seen[file.URL] = true
			if !file.Modified.IsZero() {
				require.Equal(t, time.UTC, file.Modified.Location())
				require.Positive(t, file.Precision, file.URL)
			} else {
				require.Zero(t, file.Precision, file.URL)
			}
		}
		for _, folder := range folders {
			u, err := url.Parse(folder)
			require.NoError(t, err, folder)
			require.True(t, extract.SameHost(u, base) && u.Scheme == "https", folder)
			require.True(t, strings.HasSuffix(u.Path, "/"), folder)
			require.False(t, strings.HasPrefix(base.Path, u.Path), "ancestor %s", folder)
			require.Empty(t, u.RawQuery+u.Fragment, folder)
			require.False(t, seen[folder], "duplicate %s", folder)
			seen[folder] = true
		}
	})
}
