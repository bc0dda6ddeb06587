package fgdc

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatus"
	"github.com/harvester-dev/harvester/stages/transform/iso"
)

// record is a minimal CSDGM record with idinfo's content replaced by inner (title "T" when
// inner does not bring its own citation).
func record(inner string) []byte {
	if !strings.Contains(inner, "<citation>") {
		inner = "<citation><citeinfo><title>T</title><pubdate>2020</pubdate></citeinfo></citation>" + inner
	}
	return []byte("<metadata><idinfo>" + inner + "</idinfo></metadata>")
}

func transformMap(t *testing.T, b []byte) (map[string]any, []Warning) {
	t.Helper()
	out, warnings, err := Transform(b, "https://example.gov/r.xml", "Source Org")
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(out, &got))
	return got, warnings
}

// 100,000 theme keywords: the first 1,000 kept (DCAT-US allows at most 1,000), with a
// warning, so the record validates (issue 34 item 17).
func TestManyThemeKeywords(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("<keywords><theme><themekt>None</themekt>")
	for i := range 100_000 {
		fmt.Fprintf(&b, "<themekey>k%d</themekey>", i)
	}
	b.WriteString("</theme></keywords>")
	out, warnings, err := Transform(record(b.String()), "id", "org")
	require.NoError(t, err)
	var ds dcatus.Dataset
	require.NoError(t, json.Unmarshal(out, &ds))
	require.Equal(t, dcatus.MaxKeywords, len(ds.Keyword))
	require.Equal(t, "k999", ds.Keyword[999])
	require.Contains(t, warnings, Warning{Field: "keyword", Message: "the record has 100000 keywords, over the 1000 DCAT-US allows; kept the first 1000"})
	v, err := dcatus.NewValidator("dcatus1.1: non-federal")
	require.NoError(t, err)
	problems, err := v.Validate(out)
	require.NoError(t, err)
	require.Empty(t, problems)
}

// Elements nested deeper than MaxDepth, or more than the element cap, are an ErrLimit naming
// the limit, not a stack or memory blow-up.
func TestStructuralLimits(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("<a>", 100_000) + strings.Repeat("</a>", 100_000)
	_, _, err := Transform(record(deep), "id", "org")
	require.ErrorIs(t, err, ErrLimit)
	require.ErrorContains(t, err, fmt.Sprintf("nested more than %d deep", MaxDepth))

	_, err = parseWithin(record(strings.Repeat("<k/>", 50)), MaxDepth, 40)
	require.ErrorIs(t, err, ErrLimit)
	require.ErrorContains(t, err, "more than 40 elements")
}

// A DOCTYPE is skipped: entities it declares are never expanded (a use of one is malformed
// XML, at once: no "billion laughs"), external ones never fetched or read.
func TestDoctypeEntities(t *testing.T) {
	t.Parallel()
	var dtd strings.Builder
	dtd.WriteString(`<?xml version="1.0"?><!DOCTYPE metadata [<!ENTITY lol "lol">`)
	for i := 1; i <= 9; i++ {
		prev := "lol"
		if i > 1 {
			prev = fmt.Sprintf("lol%d", i-1)
		}
		fmt.Fprintf(&dtd, `<!ENTITY lol%d "%s">`, i, strings.Repeat("&"+prev+";", 10))
	}
	dtd.WriteString(`<!ENTITY xxe SYSTEM "file:///etc/passwd">]>`)
	prolog := dtd.String()

	_, _, err := Transform([]byte(prolog+string(record("<descript><abstract>&lol9;</abstract></descript>"))), "id", "org")
	require.ErrorIs(t, err, ErrMalformedXML)
	require.ErrorContains(t, err, "lol9")
	require.ErrorContains(t, err, "entities a DOCTYPE declares are not expanded", "the row says why")

	_, _, err = Transform([]byte(prolog+string(record("<descript><abstract>&xxe;</abstract></descript>"))), "id", "org")
	require.ErrorIs(t, err, ErrMalformedXML)
	require.ErrorContains(t, err, "xxe")

	// Declared but unused: the record maps.
	got, _ := transformMap(t, []byte(prolog+string(record("<descript><abstract>A &amp; B</abstract></descript>"))))
	require.Equal(t, "A & B", got["description"])
}

// A record without a title is an error naming the element; one without idinfo too.
func TestMissingTitle(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"no title":    "<metadata><idinfo><citation><citeinfo><origin>O</origin></citeinfo></citation></idinfo></metadata>",
		"empty title": "<metadata><idinfo><citation><citeinfo><title> \n </title></citeinfo></citation></idinfo></metadata>",
		"no citation": "<metadata><idinfo><descript><abstract>A</abstract></descript></idinfo></metadata>",
	} {
		_, _, err := Transform([]byte(doc), "id", "org")
		require.ErrorIs(t, err, ErrInvalidFGDC, name)
		require.ErrorContains(t, err, "metadata/idinfo/citation/citeinfo/title is missing or empty", name)
	}
	_, _, err := Transform([]byte("<metadata><metainfo><metd>2020</metd></metainfo></metadata>"), "id", "org")
	require.ErrorIs(t, err, ErrInvalidFGDC)
	require.ErrorContains(t, err, "metadata/idinfo (identification information) is missing")
}

// Bounding boxes that lie are dropped with a warning (as the ISO mapper drops a box that is
// not numbers); a west side east of the east side crosses the 180th meridian and is kept.
func TestBoundingBoxes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w, e, n, s string
		want       string // spatial; "" when dropped
		warn       string
	}{
		{"-10", "10", "20", "-20", "-10,-20,10,20", ""},
		{"170", "-170", "20", "-20", "170,-20,-170,20", "crossing the 180th meridian"},
		{"-10", "10", "91", "-20", "", "northbc 91 is outside -90..90"},
		{"-10", "10", "20", "-90.5", "", "southbc -90.5 is outside -90..90"},
		{"-200", "10", "20", "-20", "", "westbc -200 is outside -180..180"},
		{"-10", "10", "-20", "20", "", "south (20) north of north (-20)"},
		{"west", "10", "20", "-20", "", `westbc "west" is not a number`},
		{strings.Repeat("9", 1<<20), "10", "20", "-20", "", "is not a number"},
		{"-10", "10", "-20", "-0." + strings.Repeat("0", 1<<20) + "1", "", "north of north"},
	} {
		bb := fmt.Sprintf("<spdom><bounding><westbc>%s</westbc><eastbc>%s</eastbc><northbc>%s</northbc><southbc>%s</southbc></bounding></spdom>",
			tc.w, tc.e, tc.n, tc.s)
		got, warnings := transformMap(t, record(bb))
		if tc.want == "" {
			require.NotContains(t, got, "spatial", tc.warn)
		} else {
			require.Equal(t, tc.want, got["spatial"])
		}
		var msgs []string
		for _, w := range warnings {
			if w.Field == "spatial" {
				msgs = append(msgs, w.Message)
				require.Less(t, len(w.Message), 400, "a warning quotes at most a little of the record")
			}
		}
		if tc.warn == "" {
			require.Empty(t, msgs)
		} else {
			require.Len(t, msgs, 1)
			require.Contains(t, msgs[0], tc.warn)
		}
	}
}

// What is not a CSDGM record, or not XML, is an error that says what it is.
func TestNotFGDC(t *testing.T) {
	t.Parallel()
	for doc, tc := range map[string]struct {
		kind error
		msg  string
	}{
		`<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd"/>`: {ErrNotFGDC, `the root element is <gmd:MD_Metadata> (namespace "http://www.isotc211.org/2005/gmd"), not <metadata>`},
		`<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"/>`:  {ErrNotFGDC, "Record"},
		`<fgdc:metadata xmlns:fgdc="http://www.fgdc.gov/metadata/csdgm"><fgdc:idinfo/></fgdc:metadata>`: {ErrNotFGDC,
			`the root element is <fgdc:metadata> (namespace "http://www.fgdc.gov/metadata/csdgm"), not <metadata>: ` +
				"FGDC CSDGM is read only with un-prefixed element names"},
		`<metadata><idinfo>`:                             {ErrMalformedXML, "line 1"},
		`<metadata></idinfo></metadata>`:                 {ErrMalformedXML, "line 1"},
		"<?xml version='1.0'?><metadata>\x92</metadata>": {ErrEncoding, "byte 0x92 at offset 31"},
		"": {ErrMalformedXML, "no root element"},
	} {
		_, _, err := Transform([]byte(doc), "id", "org")
		require.ErrorIs(t, err, tc.kind, doc)
		require.ErrorContains(t, err, tc.msg, doc)
	}
}

// A bare record gets Data.gov's placeholders, each with a warning, and the source's
// organization as publisher; an abstract-less record its purpose.
func TestPlaceholders(t *testing.T) {
	t.Parallel()
	got, warnings := transformMap(t, []byte(`<metadata><idinfo><citation><citeinfo><title>T</title></citeinfo></citation></idinfo></metadata>`))
	require.Equal(t, iso.PlaceholderDescription, got["description"])
	require.Equal(t, []any{iso.PlaceholderKeyword}, got["keyword"])
	require.Equal(t, map[string]any{"@type": "org:Organization", "name": "Source Org"}, got["publisher"])
	require.Equal(t, map[string]any{"@type": "vcard:Contact", "fn": iso.PlaceholderContactName, "hasEmail": iso.PlaceholderContactEmail}, got["contactPoint"])
	for _, f := range []string{"description", "keyword", "publisher", "contactPoint", "modified"} {
		require.True(t, warned(warnings, f), "warning for %s: %v", f, warnings)
	}
	got, warnings = transformMap(t, record("<descript><purpose>\n   Why.\n</purpose></descript>"))
	require.Equal(t, "Why.", got["description"])
	require.True(t, warned(warnings, "description"))
}

// CSDGM calendar dates and times of day, at their precision.
func TestDates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ date, time, want string }{
		{"2017", "", "2017"},
		{"201704", "", "2017-04"},
		{"20170401", "", "2017-04-01"},
		{"2017-04-01", "", "2017-04-01"},
		{"20170401", "1430", "2017-04-01T14:30:00Z"},
		{"20170401", "14:30:05.5Z", "2017-04-01T14:30:05Z"},
		{"20170401", "unknown", "2017-04-01"},
		{"201704", "1430", "2017-04"},
	} {
		d, ok := parseDate(tc.date, tc.time, true)
		require.True(t, ok, tc.date)
		require.Equal(t, tc.want, d.String(), tc.date+" "+tc.time)
	}
	for _, bad := range []string{"Unknown", "Unpublished material", "Present", "201713", "17", "2017041", "0000"} {
		_, ok := parseDate(bad, "", true)
		require.False(t, ok, bad)
	}
	got, _ := transformMap(t, []byte(`<metadata><idinfo><citation><citeinfo><title>T</title><pubdate>20200102</pubdate><pubtime>0930</pubtime></citeinfo></citation>
		<timeperd><timeinfo><rngdates><begdate>2019</begdate><enddate>2018</enddate></rngdates></timeinfo></timeperd></idinfo>
		<metainfo><mettc>local time</mettc></metainfo></metadata>`))
	require.Equal(t, "2020-01-02T09:30:00", got["modified"], "local time: no zone")
	require.NotContains(t, got, "temporal", "a range that ends before it begins")
}

// Time periods whose ends have different precisions come out in a form DCAT-US validates:
// the non-federal schema's interval pattern wants an end with a day to follow a begin with a
// month ("1990/2026-12-03" fails it).
func TestTemporalMixedPrecision(t *testing.T) {
	t.Parallel()
	today := time.Now().UTC().Format("2006-01-02")
	for _, tc := range []struct{ inner, want string }{
		{"<rngdates><begdate>1990</begdate><enddate>Present</enddate></rngdates>", "1990-01-01/" + today},
		{"<rngdates><begdate>1990</begdate><enddate>20050601</enddate></rngdates>", "1990-01-01/2005-06-01"},
		{"<rngdates><begdate>2001</begdate><begtime>unknown</begtime><enddate>present</enddate></rngdates>", "2001-01-01/" + today},
		{"<rngdates><begdate>1990</begdate><enddate>200506</enddate></rngdates>", "1990/2005-06"},
		{"<rngdates><begdate>1990</begdate><enddate>2005</enddate></rngdates>", "1990/2005"},
		{"<rngdates><begdate>199003</begdate><enddate>20050601</enddate></rngdates>", "1990-03/2005-06-01"},
		{"<rngdates><begdate>19900315</begdate><enddate>2005</enddate></rngdates>", "1990-03-15/2005"},
		{"<rngdates><begdate>1990</begdate><enddate>20050601</enddate><endtime>1200</endtime></rngdates>", "1990-01-01/2005-06-01"},
		{"<rngdates><begdate>19900101</begdate><begtime>0800</begtime><enddate>20050601</enddate><endtime>1200</endtime></rngdates>", "1990-01-01T08:00:00Z/2005-06-01T12:00:00Z"},
		{"<mdattim><sngdate><caldate>1990</caldate></sngdate><sngdate><caldate>20050601</caldate></sngdate></mdattim>", "1990-01-01/2005-06-01"},
	} {
		ds, _ := transformValid(t, record("<timeperd><timeinfo>"+tc.inner+"</timeinfo></timeperd>"), "https://example.gov/r.xml")
		require.Equal(t, tc.want, ds.Temporal, tc.inner)
	}
}

// Encodings as Windows and hand-edited files have them: a Latin-1 declaration over UTF-8
// bytes is read as UTF-8 with a warning (declared Latin-1, "é" would be "Ã©" and "’" carry
// C1 controls); real Latin-1 bytes as declared, without one; UTF-16 with a byte order mark is
// decoded; a UTF-16 declaration over 8-bit bytes is an error that names UTF-16.
func TestCharsetMislabels(t *testing.T) {
	t.Parallel()
	const title = "Qualité de l’eau Montréal"
	doc := func(decl, title string) []byte {
		return []byte(`<?xml version="1.0" encoding="` + decl + `"?><metadata><idinfo><citation><citeinfo><title>` +
			title + `</title><pubdate>2020</pubdate></citeinfo></citation></idinfo></metadata>`)
	}
	for _, decl := range []string{"ISO-8859-1", "windows-1252"} {
		got, warnings := transformMap(t, doc(decl, title))
		require.Equal(t, title, got["title"], decl)
		require.True(t, warned(warnings, "encoding"), "%s: %v", decl, warnings)
		require.Contains(t, fmt.Sprint(warnings), fmt.Sprintf("declares encoding %q, but its bytes are UTF-8", strings.ToLower(decl)))
	}
	got, warnings := transformMap(t, doc("ISO-8859-1", "Qualit\xe9 Montr\xe9al"))
	require.Equal(t, "Qualité Montréal", got["title"])
	require.False(t, warned(warnings, "encoding"), "%v", warnings)

	got, _ = transformMap(t, encodeUTF16LE(string(doc("UTF-16", title))))
	require.Equal(t, title, got["title"], "UTF-16 with a byte order mark")
	_, _, err := Transform(doc("UTF-16", "T"), "id", "org")
	require.ErrorIs(t, err, ErrEncoding)
	require.ErrorContains(t, err, `declares encoding "utf-16", but its bytes are not UTF-16`)
}

// encodeUTF16LE is s in UTF-16LE with a byte order mark.
func encodeUTF16LE(s string) []byte {
	out := []byte{0xFF, 0xFE}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

// A link with a non-ASCII character is percent-encoded as UTF-8, as a space is, and the record
// validates (it failed on $.distribution[…].downloadURL).
func TestNonASCIILinks(t *testing.T) {
	t.Parallel()
	b := []byte(`<metadata><idinfo><citation><citeinfo><title>T</title><pubdate>2020</pubdate>
		<onlink>https://example.gov/landing page/Qualité</onlink></citeinfo></citation></idinfo>
		<distinfo><stdorder><digform><digtinfo><formname>PDF</formname></digtinfo><digtopt><onlinopt><computer><networka>
		<networkr>https://example.gov/docs/Qualité report.pdf</networkr></networka></computer></onlinopt></digtopt></digform></stdorder></distinfo></metadata>`)
	ds, _ := transformValid(t, b, "https://example.gov/r.xml")
	require.Equal(t, "https://example.gov/landing%20page/Qualit%C3%A9", ds.LandingPage)
	require.Contains(t, fmt.Sprint(ds.raw["distribution"]), "https://example.gov/docs/Qualit%C3%A9%20report.pdf")
}

// An abstract over DCAT-US's 10,000 characters (long USGS abstracts are real) is cut at a
// word, with a warning giving its length, so the record validates.
func TestLongAbstractCut(t *testing.T) {
	t.Parallel()
	abstract := strings.Repeat("Streamflow at the gage. ", 520) // 12,480 characters
	ds, warnings := transformValid(t, record("<descript><abstract>"+abstract+"</abstract></descript>"), "https://example.gov/r.xml")
	require.LessOrEqual(t, len([]rune(ds.Description)), 10000)
	require.True(t, strings.HasPrefix(abstract, strings.TrimSuffix(ds.Description, "…")+" "), "cut at a word")
	require.Contains(t, fmt.Sprint(warnings), "the text is 12479 characters, over the 10000 DCAT-US allows")
}

// An abstract that is wholly HTML markup, escaped as ArcGIS 10.x exports write it, becomes its
// text, a line per paragraph, with a warning; prose with a "<" in it is left alone.
func TestHTMLAbstract(t *testing.T) {
	t.Parallel()
	esri := `&lt;DIV STYLE="text-align:Left;"&gt;&lt;DIV&gt;&lt;P&gt;&lt;SPAN&gt;Roads of the county, updated weekly.&lt;/SPAN&gt;&lt;/P&gt;` +
		`&lt;P&gt;&lt;SPAN STYLE="font-weight:bold;"&gt;Sources:&lt;/SPAN&gt;&lt;SPAN&gt; county &amp;amp; state&lt;/SPAN&gt;&lt;/P&gt;&lt;/DIV&gt;&lt;/DIV&gt;`
	ds, warnings := transformValid(t, record("<descript><abstract>"+esri+"</abstract></descript>"), "https://example.gov/r.xml")
	require.Equal(t, "Roads of the county, updated weekly.\nSources: county & state", ds.Description)
	require.Contains(t, fmt.Sprint(warnings), "the abstract is HTML markup")

	for _, prose := range []string{"Depths &lt;1 km and &gt;5 km.", "&lt;Unknown&gt;", "See &lt;b&gt;bold&lt;/b&gt; text."} {
		ds, warnings := transformValid(t, record("<descript><abstract>"+prose+"</abstract></descript>"), "https://example.gov/r.xml")
		require.NotContains(t, ds.Description, "&", prose)
		require.False(t, warned(warnings, "description"), "%s: %v", prose, warnings)
	}
}

// Warnings quote what the record has, or say "none": a geologic age's text, "Unknown", a
// record with no dates at all.
func TestWarningsQuoteValues(t *testing.T) {
	t.Parallel()
	_, warnings := transformMap(t, record(`<timeperd><timeinfo><sngdate><geolage><geolscal>International Commission on Stratigraphy</geolscal>`+
		`<geolest>Late Cretaceous</geolest></geolage></sngdate></timeinfo></timeperd>`))
	require.Contains(t, fmt.Sprint(warnings), `time period of content "International Commission on Stratigraphy Late Cretaceous" is not`)
	_, warnings = transformMap(t, record(`<timeperd><timeinfo><rngdates><begdate>Unknown</begdate><enddate>Present</enddate></rngdates></timeinfo></timeperd>`))
	require.Contains(t, fmt.Sprint(warnings), `time period of content "Unknown Present" is not`)
	_, warnings = transformMap(t, []byte(`<metadata><idinfo><citation><citeinfo><title>T</title></citeinfo></citation></idinfo></metadata>`))
	require.Contains(t, fmt.Sprint(warnings), "no usable publication date or metadata date (none, none)")
}
