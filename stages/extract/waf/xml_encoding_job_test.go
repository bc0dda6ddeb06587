package waf_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline/pipelinetest"
	"github.com/harvester-dev/harvester/store"
)

// encodeUTF16 is s as UTF-16 in the byte order given, with a byte order mark when bom.
func encodeUTF16(s string, bigEndian, bom bool) []byte {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xFEFF}, units...)
	}
	out := make([]byte, 2*len(units))
	for i, u := range units {
		if bigEndian {
			binary.BigEndian.PutUint16(out[2*i:], u)
		} else {
			binary.LittleEndian.PutUint16(out[2*i:], u)
		}
	}
	return out
}

// A WAF of FGDC records as Windows tools write them (UTF-16, with and without a byte order
// mark), one with a NUL byte, one in UTF-32 and one UTF-16 after a stray space, harvested on
// Postgres: the UTF-16 records are decoded and added, the others are InvalidEncoding rows
// that say why, and no stage gives up on a record (Postgres text cannot hold U+0000: storing
// it failed COMPARE). Then as document sources.
func TestHarvestWAFOfUTF16AndNULRecords(t *testing.T) {
	t.Parallel()
	rec := func(title, decl string) string {
		return `<?xml version="1.0" encoding="` + decl + `"?>` + "\n<metadata><idinfo><citation><citeinfo><title>" + title +
			"</title><pubdate>2020</pubdate></citeinfo></citation><descript><abstract>Qualité de l’eau</abstract></descript></idinfo></metadata>"
	}
	utf32 := []byte{0xFF, 0xFE, 0x00, 0x00}
	for _, r := range rec("UTF-32", "UTF-32") {
		utf32 = binary.LittleEndian.AppendUint32(utf32, uint32(r))
	}
	bodies := map[string][]byte{
		"utf16le-bom.xml":  encodeUTF16(rec("Little-endian Montréal", "UTF-16"), false, true),
		"utf16be-bom.xml":  encodeUTF16(rec("Big-endian Montréal", "UTF-16"), true, true),
		"utf16le-none.xml": encodeUTF16(rec("No mark Montréal", "UTF-16"), false, false),
		"nul.xml":          []byte(strings.Replace(rec("NUL", "UTF-8"), "Qualité", "Qual\x00ité", 1)),
		"utf32.xml":        utf32,
		"good.xml":         []byte(rec("Good", "UTF-8")),
		"utf16-spaced.xml": append([]byte{' ', 0}, encodeUTF16(rec("Spaced", "UTF-16"), false, false)...),
	}
	dir := t.TempDir()
	files := map[string]string{}
	listing := "<html><body><pre>\n"
	for name, body := range bodies {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, body, 0o644))
		files["/enc/"+name] = p
		listing += fmt.Sprintf("<a href=%q>%s</a>  2024-01-01 00:00  1K\n", name, name)
	}
	url := fileWAF(t, "/enc/", listing+"</pre></body></html>", files).URL + "/enc/"

	h := pipelinetest.New(t)
	ctx := context.Background()
	rep := h.Harvest(t, pipelinetest.Source{URL: url, SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaFGDC})
	pipelinetest.MustComplete(t, rep)
	require.Equal(t, [3]int{7, 4, 3}, [3]int{rep.Total, rep.Added, rep.Errored}, "total, added, errored")

	errs, _, err := h.Store.RecordErrorList(ctx, &store.RecordErrorListParams{JobID: rep.JobID,
		Severity: harvest.SeverityError, PageParams: store.PageParams{Limit: 100}})
	require.NoError(t, err)
	reasons := map[string]string{}
	for _, e := range errs {
		reasons[strings.TrimPrefix(e.Identifier, url)] = e.Type + ": " + e.Message
	}
	require.Len(t, reasons, 3, "%v", reasons)
	require.Contains(t, reasons["utf16-spaced.xml"], "may be UTF-16 or UTF-32 without a byte order mark")
	require.Contains(t, reasons["nul.xml"], "InvalidEncoding: ")
	require.Contains(t, reasons["nul.xml"], "U+0000")
	require.Contains(t, reasons["utf32.xml"], "InvalidEncoding: ")
	require.Contains(t, reasons["utf32.xml"], "UTF-32")

	titles := map[string]string{}
	datasets, err := h.Store.DatasetList(ctx, &store.DatasetListParams{SourceID: rep.SourceID})
	require.NoError(t, err)
	for _, d := range datasets {
		titles[strings.TrimPrefix(d.Identifier, url)] = string(d.DCAT)
	}
	require.Contains(t, titles["utf16le-bom.xml"], `"title": "Little-endian Montréal"`)
	require.Contains(t, titles["utf16be-bom.xml"], `"title": "Big-endian Montréal"`)
	require.Contains(t, titles["utf16le-none.xml"], `"title": "No mark Montréal"`)
	require.Contains(t, titles["utf16le-none.xml"], `Qualité de l’eau`)
	raw := h.RecordBodies(t, rep.SourceID)[url+"utf16le-bom.xml"]
	require.True(t, strings.HasPrefix(raw, `<?xml version="1.0" encoding="UTF-8"?>`), "stored as UTF-8, saying so: %.60q", raw)

	// The same files as document sources (harvester harvest --file).
	doc := h.Harvest(t, pipelinetest.Source{URL: files["/enc/utf16be-bom.xml"], SchemaType: harvest.SchemaFGDC})
	pipelinetest.MustComplete(t, doc)
	require.Equal(t, 1, doc.Added)
	doc = h.Harvest(t, pipelinetest.Source{URL: files["/enc/nul.xml"], SchemaType: harvest.SchemaFGDC})
	pipelinetest.MustComplete(t, doc)
	require.Equal(t, 1, doc.Errored)
	require.Contains(t, strings.Join(h.ErrorMessages(t, doc.JobID, harvest.SeverityError), "\n"), "U+0000")
}
