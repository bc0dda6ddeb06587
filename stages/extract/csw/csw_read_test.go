package csw

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// pageFile writes an answer to a temporary file, as fetch would hand it over.
func pageFile(t *testing.T, body string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "page.xml"))
	require.NoError(t, err)
	_, err = io.WriteString(f, body)
	require.NoError(t, err)
	_, err = f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

const pageHead = `<?xml version="1.0" encoding="UTF-8"?>
<csw:GetRecordsResponse xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:gmd="http://www.isotc211.org/2005/gmd"
  xmlns:gco="http://www.isotc211.org/2005/gco" xmlns:dc="http://purl.org/dc/elements/1.1/">
<csw:SearchStatus timestamp="2026-11-30T10:00:00"/>
<csw:SearchResults numberOfRecordsMatched="%d" numberOfRecordsReturned="%d" nextRecord="%d" elementSet="full">
`

const pageTail = "</csw:SearchResults></csw:GetRecordsResponse>"

// TestReadCSWPageRecordsStandalone: each record of a page is cut out byte for byte and made a
// document of its own that declares the namespaces it inherited; its identifier is read by
// its kind (ISO fileIdentifier, dc:identifier).
func TestReadCSWPageRecordsStandalone(t *testing.T) {
	t.Parallel()
	body := fmt.Sprintf(pageHead, 2, 2, 0) +
		`<gmd:MD_Metadata><gmd:fileIdentifier><gco:CharacterString> iso-1 </gco:CharacterString></gmd:fileIdentifier>` +
		`<gmd:contact><gco:CharacterString>not the id</gco:CharacterString></gmd:contact></gmd:MD_Metadata>` +
		`<csw:Record xmlns:dct="http://purl.org/dc/terms/"><dc:title>T &amp; U</dc:title><dc:identifier>dc-1</dc:identifier>` +
		`<dc:identifier>dc-2</dc:identifier></csw:Record>` +
		`<gmi:MI_Metadata xmlns:gmi="http://www.isotc211.org/2005/gmi"><gmd:fileIdentifier><gco:CharacterString>iso-2` +
		`</gco:CharacterString></gmd:fileIdentifier></gmi:MI_Metadata>` + pageTail
	p, err := readCSWPage(pageFile(t, body), 1<<20, cswAsked{})
	require.NoError(t, err)
	require.Equal(t, 2, p.matched)
	require.Equal(t, 0, p.next)
	require.Len(t, p.records, 3)
	require.Equal(t, "iso-1", p.records[0].identifier)
	require.Equal(t, "iso-2", p.records[2].identifier, "ISO 19115-2")
	require.Equal(t, "dc-1", p.records[1].identifier, "the first dc:identifier")
	for _, r := range p.records {
		var v struct{ XMLName xml.Name }
		require.NoError(t, xml.Unmarshal(r.xml, &v), "%s", r.xml)
		require.Equal(t, r.root, v.XMLName, "the record reads on its own")
	}
	require.Contains(t, string(p.records[0].xml), `<gmd:MD_Metadata xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"`)
	require.Contains(t, string(p.records[1].xml), `xmlns:dct="http://purl.org/dc/terms/"><dc:title>T &amp; U</dc:title>`,
		"the record's bytes as served")
}

// TestReadCSWPageHostile: an ExceptionReport, a billion-laughs DOCTYPE (entities are never
// expanded), elements nested past the cap, a 100 MB text node (cut at the record cap: the record
// is too large, the next one read, memory bounded) and a huge attribute value.
func TestReadCSWPageHostile(t *testing.T) {
	t.Parallel()
	exc := `<?xml version="1.0"?><ows:ExceptionReport xmlns:ows="http://www.opengis.net/ows" version="1.2.0">
<ows:Exception exceptionCode="InvalidParameterValue" locator="outputSchema"><ows:ExceptionText>Invalid outputSchema</ows:ExceptionText></ows:Exception></ows:ExceptionReport>`
	_, err := readCSWPage(pageFile(t, exc), 1<<20, cswAsked{})
	var ce *CSWExceptionError
	require.True(t, errors.As(err, &ce), "%v", err)
	require.EqualError(t, err, `the server answered with an OWS ExceptionReport: exceptionCode "InvalidParameterValue" `+
		`(locator "outputSchema"): "Invalid outputSchema"`)

	laughs := `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">` +
		`<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;"><!ENTITY lol9 "&lol2;&lol2;&lol2;&lol2;">]>` +
		fmt.Sprintf(strings.TrimPrefix(pageHead, `<?xml version="1.0" encoding="UTF-8"?>`), 1, 1, 0) +
		`<csw:Record><dc:identifier>&lol9;</dc:identifier></csw:Record>` + pageTail
	_, err = readCSWPage(pageFile(t, laughs), 1<<20, cswAsked{})
	require.ErrorContains(t, err, "invalid character entity &lol9;", "never expanded")

	deep := fmt.Sprintf(pageHead, 1, 1, 0) + `<csw:Record>` + strings.Repeat("<a>", 100_000) + strings.Repeat("</a>", 100_000) +
		`</csw:Record>` + pageTail
	_, err = readCSWPage(pageFile(t, deep), 1<<20, cswAsked{})
	require.EqualError(t, err, "elements nest deeper than 256 levels")

	attrBomb := fmt.Sprintf(pageHead, 1, 1, 0) + `<csw:Record a="` + strings.Repeat("x", 2<<20) + `"/>` + pageTail
	_, err = readCSWPage(pageFile(t, attrBomb), 1<<20, cswAsked{})
	require.ErrorContains(t, err, "over the record size cap")

	_, err = readCSWPage(pageFile(t, "<html><body>Service unavailable</body></html>"), 1<<20, cswAsked{})
	require.EqualError(t, err, "not a GetRecords answer: its root element is html")
	_, err = readCSWPage(pageFile(t, "not xml at all"), 1<<20, cswAsked{})
	require.Error(t, err)
	latin1 := strings.Replace(fmt.Sprintf(pageHead, 0, 0, 0), `encoding="UTF-8"`, `encoding="ISO-8859-1"`, 1) + pageTail
	_, err = readCSWPage(pageFile(t, latin1), 1<<20, cswAsked{})
	require.ErrorContains(t, err, `the answer declares encoding "ISO-8859-1": a CSW harvest reads UTF-8 answers only`)
}

// TestCSWPageCheck: nextRecord and the counts of a page, against its startPosition.
func TestCSWPageCheck(t *testing.T) {
	t.Parallel()
	recs := func(n int) []cswRecord { return make([]cswRecord, n) }
	for _, tc := range []struct {
		name  string
		p     cswPage
		start int
		last  bool
		err   string
	}{
		{"middle page", cswPage{matched: 25, returned: 10, next: 11, records: recs(10)}, 1, false, ""},
		{"last page, nextRecord 0", cswPage{matched: 25, returned: 5, next: 0, records: recs(5)}, 21, true, ""},
		{"last page, nextRecord past the count (GeoNetwork)", cswPage{matched: 25, returned: 5, next: 26, records: recs(5)}, 21, true, ""},
		{"no nextRecord", cswPage{matched: 25, returned: -1, next: -1, records: recs(5)}, 21, true, ""},
		{"empty catalog", cswPage{matched: 0, returned: 0, next: 0}, 1, true, ""},
		{"no count", cswPage{matched: -1, next: 0, records: recs(1)}, 1, false, "no numberOfRecordsMatched"},
		{"returned lies", cswPage{matched: 25, returned: 10, next: 11, records: recs(9)}, 1, false,
			"numberOfRecordsReturned=10, but the page holds 9 records"},
		{"cycle back to 1", cswPage{matched: 25, returned: 10, next: 1, records: recs(10)}, 11, false,
			"nextRecord=1 goes back before startPosition=11"},
		{"not advancing", cswPage{matched: 25, returned: 10, next: 11, records: recs(10)}, 11, false,
			"nextRecord=11 does not advance past startPosition=11"},
		{"skipping", cswPage{matched: 25, returned: 10, next: 15, records: recs(10)}, 1, false,
			"nextRecord=15, but startPosition=1 and 10 records returned make it 11"},
		{"ends short", cswPage{matched: 25, returned: 10, next: 0, records: recs(10)}, 1, false,
			"nextRecord=0 says no record follows record 10, but numberOfRecordsMatched=25"},
	} {
		last, err := cswPageCheck(&tc.p, tc.start)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.last, last, tc.name)
	}
}

// TestReadCSWPageHugeTextNode: a record's text node of ~100 MB is never held: the record is
// cut as too large, its size as served is known, the next record is read whole. Not parallel,
// so that the allocations it counts are mostly its own.
func TestReadCSWPageHugeTextNode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.xml")
	f, err := os.Create(path)
	require.NoError(t, err)
	fmt.Fprintf(f, pageHead, 2, 2, 0)
	fmt.Fprint(f, `<csw:Record><dc:identifier>huge</dc:identifier><dc:description>`)
	chunk := bytes.Repeat([]byte("lorem ipsum "), 1<<16) // 768 KiB
	for range 130 {                                      // ~100 MB
		_, err = f.Write(chunk)
		require.NoError(t, err)
	}
	fmt.Fprint(f, `&amp;</dc:description></csw:Record><csw:Record><dc:identifier>small</dc:identifier></csw:Record>`+pageTail)
	defer f.Close()
	// TotalAlloc counts the whole process's allocations: another goroutine's only add to it, so
	// the bound is checked on the lowest of three reads (holding the node takes 100 MB each time).
	var p *cswPage
	var least uint64
	for attempt := range 3 {
		_, err = f.Seek(0, io.SeekStart)
		require.NoError(t, err)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		p, err = readCSWPage(f, 1<<20, cswAsked{})
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		if n := after.TotalAlloc - before.TotalAlloc; attempt == 0 || n < least {
			least = n
		}
		if least < 40<<20 {
			break
		}
	}
	require.Len(t, p.records, 2)
	require.Equal(t, "huge", p.records[0].identifier)
	require.True(t, p.records[0].tooLarge)
	require.Greater(t, p.records[0].size, int64(100_000_000), "its size as served")
	require.Nil(t, p.records[0].xml)
	require.Equal(t, "small", p.records[1].identifier)
	require.Contains(t, string(p.records[1].xml), "<dc:identifier>small</dc:identifier></csw:Record>", "cut at the right bytes")
	require.Less(t, least, uint64(40<<20), "the text node is never held")

}
