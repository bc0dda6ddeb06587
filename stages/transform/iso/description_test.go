package iso

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/dcatus"
)

// An abstract over DCAT-US's 10,000 characters is cut at a word with a warning giving its
// length, so the record validates.
func TestLongAbstractCut(t *testing.T) {
	t.Parallel()
	abstract := strings.Repeat("Sea surface temperature. ", 500) // 12,500 characters
	body := `<x:identificationInfo><x:MD_DataIdentification><x:citation><x:CI_Citation><x:title><gco:CharacterString>T</gco:CharacterString></x:title>` +
		`</x:CI_Citation></x:citation><x:abstract><gco:CharacterString>` + abstract + `</gco:CharacterString></x:abstract></x:MD_DataIdentification></x:identificationInfo>`
	out, warnings, err := Transform(isoRecord("gmd:MD_Metadata", body), "https://example.gov/a.xml", "Org")
	require.NoError(t, err)
	var ds dcatus.Dataset
	require.NoError(t, json.Unmarshal(out, &ds))
	require.LessOrEqual(t, utf8.RuneCountInString(ds.Description), dcatus.MaxDescription)
	require.True(t, strings.HasPrefix(abstract, strings.TrimSuffix(ds.Description, "…")+" "), "cut at a word")
	require.Contains(t, fmt.Sprint(warnings), "the text is 12499 characters, over the 10000 DCAT-US allows")
}

// An ISO record declared ISO-8859-1 whose bytes are UTF-8 is read as UTF-8, with a warning
// (decoded as declared, "é" would be "Ã©").
func TestCharsetWarning(t *testing.T) {
	t.Parallel()
	body := `<x:identificationInfo><x:MD_DataIdentification><x:citation><x:CI_Citation><x:title><gco:CharacterString>Qualité de l’eau</gco:CharacterString></x:title>` +
		`</x:CI_Citation></x:citation></x:MD_DataIdentification></x:identificationInfo>`
	doc := append([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?>`), isoRecord("gmd:MD_Metadata", body)...)
	out, warnings, err := Transform(doc, "https://example.gov/a.xml", "Org")
	require.NoError(t, err)
	var ds dcatus.Dataset
	require.NoError(t, json.Unmarshal(out, &ds))
	require.Equal(t, "Qualité de l’eau", ds.Title)
	require.Contains(t, fmt.Sprint(warnings), `{encoding the document declares encoding "iso-8859-1", but its bytes are UTF-8`)
}
