package csw

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
)

// corpusFGDC is a corpus FGDC record from its <metadata> element on (no XML declaration, BOM
// or DOCTYPE), as a CSW server serves it inside a GetRecords answer, with the replacements
// made (old, new pairs).
func corpusFGDC(t *testing.T, name string, replace ...string) string {
	t.Helper()
	b, err := os.ReadFile(corpustest.Path(t, filepath.Join("iso19115", name)))
	require.NoError(t, err)
	i := bytes.Index(b, []byte("<metadata"))
	require.GreaterOrEqual(t, i, 0)
	return strings.NewReplacer(replace...).Replace(string(b[i:]))
}

// TestCSWFGDCRecordKeys (issue 34 item 9): an FGDC record of a CSW answer is keyed by the
// identifier the server gives it (idinfo/datasetid, as pycsw writes it), else by its
// citation's own link (the first idinfo/citation/citeinfo/onlink that is not a distribution:
// not one of its network addresses, not a typed link), never by a download URL; a record that
// has neither has no key (a MissingIdentifier row). Real records of the corpus.
func TestCSWFGDCRecordKeys(t *testing.T) {
	t.Parallel()
	const goose = "fgdc-usgs-white-fronted-goose.xml"
	records := []struct{ name, record, key string }{
		{"the citation's link", corpusFGDC(t, goose), "https://doi.org/10.5066/F71G0JGN"},
		{"the server's id", corpusFGDC(t, goose, "<idinfo>", "<idinfo>\n<datasetid> usgs-goose-1989 </datasetid>"), "usgs-goose-1989"},
		{"the citation's link is also its download", corpusFGDC(t, goose,
			"<networkr>http://dx.doi.org/10.5066/F71G0JGN</networkr>", "<networkr>https://doi.org/10.5066/F71G0JGN</networkr>"), ""},
		{"the first of two links", corpusFGDC(t, "fgdc-catalog-data-gov-metadata-1.xml"), "https://viewer.nationalmap.gov"},
		{"a pycsw record's typed links are its distributions", `<metadata><idinfo><citation><citeinfo><title>T</title><onlink></onlink>` +
			`<onlink type="WWW:DOWNLOAD-1.0-http--download">https://data.example.org/wetlands/gom.zip</onlink>` +
			`</citeinfo></citation></idinfo></metadata>`, ""},
	}
	var body strings.Builder
	fmt.Fprintf(&body, pageHead, len(records), len(records), 0)
	for _, r := range records {
		body.WriteString(r.record)
	}
	body.WriteString(pageTail)
	p, err := readCSWPage(pageFile(t, body.String()), 1<<20, cswAsked{})
	require.NoError(t, err)
	require.Len(t, p.records, len(records))
	for i, r := range records {
		require.Equal(t, r.key, p.records[i].identifier, r.name)
	}
	items := cswItems(p.records)
	require.ErrorContains(t, items[2].Err, "a metadata record has no identifier (idinfo/datasetid, or an "+
		"idinfo/citation/citeinfo/onlink that is not a distribution's")
}

// TestCSWFGDCKeyBounds: a record of 100,000 onlinks and network addresses is keyed with the
// bounded memory of maxKeyValues onlinks and maxNetworkAddresses hashes; an onlink past the
// first maxKeyValues is not looked at.
func TestCSWFGDCKeyBounds(t *testing.T) {
	t.Parallel()
	var rec strings.Builder
	rec.WriteString("<metadata><idinfo><citation><citeinfo><title>T</title>")
	for i := range 100_000 {
		fmt.Fprintf(&rec, "<onlink>https://example.gov/file-%d.zip</onlink>", i)
	}
	rec.WriteString("</citeinfo></citation></idinfo><distinfo><stdorder><digform><digtopt><onlinopt><computer><networka>")
	for i := range 100_000 {
		fmt.Fprintf(&rec, "<networkr>https://example.gov/file-%d.zip</networkr>", i)
	}
	rec.WriteString("</networka></computer></onlinopt></digtopt></digform></stdorder></distinfo></metadata>")
	p, err := readCSWPage(pageFile(t, fmt.Sprintf(pageHead, 1, 1, 0)+rec.String()+pageTail), 64<<20, cswAsked{})
	require.NoError(t, err)
	require.Empty(t, p.records[0].identifier, "each of the first onlinks is a network address")
}
