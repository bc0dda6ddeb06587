package dublincore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

const open = `<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/" xmlns:ows="http://www.opengis.net/ows">`

// A huge value (an 8 MB title, a 1 MB rights statement) maps whole where DCAT-US has no limit
// and is cut where it has one (rights: 255 characters), with a warning.
func TestHugeValues(t *testing.T) {
	title := strings.Repeat("Gulf of Maine ", 8<<20/14)
	rights := strings.Repeat("é", 1<<20)
	doc := open + `<dc:title>` + title + `</dc:title><dc:rights>` + rights + `</dc:rights><dc:subject>x</dc:subject></csw:Record>`
	out, warnings, err := Transform([]byte(doc), "id", "Org")
	require.NoError(t, err)
	d := decode(t, out)
	require.Equal(t, strings.TrimSpace(title), d["title"])
	require.Equal(t, 255, utf8.RuneCountInString(d["rights"].(string)))
	require.Contains(t, fields(warnings), "rights: rights cut to 255 characters")
	require.Empty(t, validate(t, out))
}

// 10,000 dc:subject elements: the distinct ones are the keywords, in order, the first 1,000
// of them (DCAT-US's most) with a warning, as the ISO and FGDC mappers keep them (issue 34
// item 17); 10,000 copies of one subject give one keyword. 10,000 bad references, dates, languages and boxes
// give one warning each, not 10,000.
func TestRepeatedElements(t *testing.T) {
	var b strings.Builder
	b.WriteString(open + `<dc:title>T</dc:title>`)
	for i := range 10000 {
		fmt.Fprintf(&b, `<dc:subject>k%d</dc:subject><dc:subject>same</dc:subject>`, i)
		b.WriteString(`<dct:references>not a url</dct:references><dct:modified>yesterday</dct:modified><dc:language>klingon</dc:language>`)
		b.WriteString(`<ows:WGS84BoundingBox><ows:LowerCorner>500 500</ows:LowerCorner><ows:UpperCorner>600 600</ows:UpperCorner></ows:WGS84BoundingBox>`)
	}
	b.WriteString(`</csw:Record>`)
	out, warnings, err := Transform([]byte(b.String()), "id", "Org")
	require.NoError(t, err)
	kw := decode(t, out)["keyword"].([]any)
	require.Equal(t, 1000, len(kw))
	require.Equal(t, "k0", kw[0])
	require.Equal(t, "same", kw[1])
	require.Equal(t, "k998", kw[999])
	require.Contains(t, fields(warnings), "keyword: the record has 10001 keywords, over the 1000 DCAT-US allows; kept the first 1000")
	require.Contains(t, fields(warnings), `distribution: dct:references "not a url" is not a valid URL; dropped (and 9999 more like it)`)
	require.Contains(t, fields(warnings), `modified: dct:modified "yesterday" is not a W3C-DTF (ISO 8601) date; ignored (and 9999 more like it)`)
	require.Contains(t, fields(warnings), `language: dc:language "klingon" is not a language tag; dropped`, "repeats of one value are one value")
	require.Contains(t, fields(warnings), `spatial: bounding box "500 500" / "600 600" (crs "") is not a valid longitude/latitude box; dropped (and 9999 more like it)`)
	require.Less(t, len(warnings), 20)
	require.Empty(t, validate(t, out))
}

// Nesting: elements nested inside a property are skipped (their text is not the property's);
// a document nested deeper than MaxDepth is malformed, whatever its depth (a million levels
// costs no recursion: the decoder's stack is a slice and the walk stops at MaxDepth+1).
func TestDeepNesting(t *testing.T) {
	doc := open + `<dc:title>Kept<x:a xmlns:x="urn:x"><x:b>not part of it</x:b></x:a></dc:title><dc:subject>s</dc:subject></csw:Record>`
	out, _, err := Transform([]byte(doc), "id", "Org")
	require.NoError(t, err)
	require.Equal(t, "Kept", decode(t, out)["title"])

	for _, depth := range []int{MaxDepth + 1, 1_000_000} {
		deep := open + strings.Repeat("<dc:description>", depth) + strings.Repeat("</dc:description>", depth) + `</csw:Record>`
		out, _, err := Transform([]byte(deep), "id", "Org")
		require.Nil(t, out)
		require.True(t, errors.Is(err, ErrMalformedXML), "%v", err)
		require.ErrorContains(t, err, fmt.Sprintf("nested deeper than %d", MaxDepth))
	}
	ok := open + strings.Repeat("<dc:description>", MaxDepth-1) + "x" + strings.Repeat("</dc:description>", MaxDepth-1) + `</csw:Record>`
	_, _, err = Transform([]byte(ok), "id", "Org")
	require.NoError(t, err)
}

// A record that lies: a WGS84 box given latitude first, a dct:modified in the year 20240, a
// temporal period ending before it starts, a dc:rights claiming public in a record whose
// dct:accessRights says non-public (the stricter level wins).
func TestLyingRecord(t *testing.T) {
	doc := open + `<dc:title>T</dc:title><dc:subject>s</dc:subject>
	<dct:modified>20240-01-01</dct:modified><dc:date>2021-05-06</dc:date>
	<dct:temporal>2020-01-01/2019-01-01</dct:temporal>
	<dc:rights>Public</dc:rights><dct:accessRights>Non-public: internal use</dct:accessRights>
	<ows:WGS84BoundingBox><ows:LowerCorner>41.2 -171.1</ows:LowerCorner><ows:UpperCorner>45.1 -166.9</ows:UpperCorner></ows:WGS84BoundingBox>
	</csw:Record>`
	out, warnings, err := Transform([]byte(doc), "id", "Org")
	require.NoError(t, err)
	d := decode(t, out)
	require.Equal(t, "2021-05-06T00:00:00.000+00:00", d["modified"], "dc:date when dct:modified is no date")
	require.NotContains(t, d, "temporal")
	require.Equal(t, "non-public", d["accessLevel"])
	require.Equal(t, "Non-public: internal use; Public", d["rights"])
	require.Equal(t, "-171.1,41.2,-166.9,45.1", d["spatial"])
	require.Contains(t, fields(warnings), `temporal: dct:temporal "2020-01-01/2019-01-01" is not an interval of two W3C-DTF dates; dropped`)
	require.Empty(t, validate(t, out))
}

// An abstract over DCAT-US's 10,000 characters is cut at a word, with a warning giving its
// length, so the record validates (it failed on $.description).
func TestLongAbstractCut(t *testing.T) {
	t.Parallel()
	abstract := strings.Repeat("Tidal wetland survey. ", 600) // 13,200 characters
	doc := open + `<dc:title>T</dc:title><dc:subject>x</dc:subject><dct:abstract>` + abstract + `</dct:abstract></csw:Record>`
	out, warnings, err := Transform([]byte(doc), "id", "Org")
	require.NoError(t, err)
	require.Empty(t, validate(t, out))
	d := decode(t, out)["description"].(string)
	require.LessOrEqual(t, utf8.RuneCountInString(d), 10000)
	require.True(t, strings.HasSuffix(d, "…"))
	require.Contains(t, strings.Join(fields(warnings), "\n"), "description: the text is 13199 characters, over the 10000 DCAT-US allows")
}
