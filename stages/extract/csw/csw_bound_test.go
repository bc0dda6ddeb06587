package csw

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tinyRecords writes a GetRecords answer of n tiny Dublin Core records (p1 … pn) with the
// counts matched and returned (-1: the attribute left out) to a temporary file.
func tinyRecords(t *testing.T, matched, returned, n int) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "page.xml"))
	require.NoError(t, err)
	attrs := fmt.Sprintf(`numberOfRecordsMatched="%d"`, matched)
	if returned >= 0 {
		attrs += fmt.Sprintf(` numberOfRecordsReturned="%d"`, returned)
	}
	head := strings.Replace(fmt.Sprintf(pageHead, 0, 0, 0), `numberOfRecordsMatched="0" numberOfRecordsReturned="0" nextRecord="0"`, attrs, 1)
	var b strings.Builder
	b.WriteString(head)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "<csw:Record><dc:identifier>p%d</dc:identifier></csw:Record>\n", i)
	}
	b.WriteString(pageTail)
	_, err = io.WriteString(f, b.String())
	require.NoError(t, err)
	_, err = f.Seek(0, io.SeekStart)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

// TestReadCSWPageBoundedWhileReading: a page of 200,000 tiny records where 10 were asked for
// and 400,000 matched is refused at its 11th record, having read a bounded part of the
// answer (the file offset stays within a read buffer of that record), not after holding
// every record.
func TestReadCSWPageBoundedWhileReading(t *testing.T) {
	t.Parallel()
	f := tinyRecords(t, 400_000, -1, 200_000)
	st, err := f.Stat()
	require.NoError(t, err)
	_, err = readCSWPage(f, 1<<20, cswAsked{start: 1, size: 10})
	require.EqualError(t, err, "the page holds more than 10 records where 10 were asked for (max_records): the "+
		"catalogue ignores the page size, and a page of the whole listing of 400000 is over the cap of 1000 records "+
		"a page (reading stopped there)")
	read, err := f.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	require.Less(t, read, int64(200<<10), "read no further than the 11th record and a read buffer (of %d bytes)", st.Size())
}

// TestReadCSWPageBound: what a page may hold: maxRecords; on the first page the whole
// listing of up to cswMaxPageRecords; never more than numberOfRecordsReturned; a
// GetRecordById answer is read up to its first record.
func TestReadCSWPageBound(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                 string
		matched, returned, n int
		asked                cswAsked
		held                 int
		err                  string
	}{
		{"a page as asked", 25, 10, 10, cswAsked{start: 11, size: 10}, 10, ""},
		{"the whole listing at once", 50, 50, 50, cswAsked{start: 1, size: 10}, 50, ""},
		{"the whole listing at the cap", 1000, -1, 1000, cswAsked{start: 1, size: 10}, 1000, ""},
		{"more than the whole listing", 50, -1, 51, cswAsked{start: 1, size: 10}, 0,
			"the page holds more than 50 records where 10 were asked for (max_records): the catalogue ignores the " +
				"page size, and the page is not the whole listing of 50 (reading stopped there)"},
		{"a later page is never the whole listing", 50, -1, 50, cswAsked{start: 11, size: 10}, 0,
			"the page holds more than 10 records where 10 were asked for"},
		{"the whole listing over the cap", 1001, 1001, 1001, cswAsked{start: 1, size: 10}, 0,
			"a page of the whole listing of 1001 is over the cap of 1000 records a page"},
		{"more than returned", 25, 3, 10, cswAsked{start: 1, size: 10}, 0,
			"the page holds more records than its numberOfRecordsReturned=3 (reading stopped there)"},
		{"no bound asked", 5, 5, 20, cswAsked{}, 20, ""},
	} {
		p, err := readCSWPage(tinyRecords(t, tc.matched, tc.returned, tc.n), 1<<20, tc.asked)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		require.Len(t, p.records, tc.held, tc.name)
	}

	answer := `<?xml version="1.0" encoding="UTF-8"?><csw:GetRecordByIdResponse xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" ` +
		`xmlns:dc="http://purl.org/dc/elements/1.1/">` + strings.Repeat(`<csw:Record><dc:identifier>x</dc:identifier></csw:Record>`, 100_000) +
		`</csw:GetRecordByIdResponse>`
	f := pageFile(t, answer)
	p, err := readCSWPage(f, 1<<20, cswAsked{byID: true})
	require.NoError(t, err)
	require.Len(t, p.records, 1, "the record asked for")
	read, err := f.Seek(0, io.SeekCurrent)
	require.NoError(t, err)
	require.Less(t, read, int64(len(answer)/4), "reading stopped after the first record")
}
