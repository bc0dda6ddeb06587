package transform_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
)

// TestXMLRecordsMappedByRootElement: an XML record is mapped by its root element whatever
// XML schema type its source declares: FGDC CSDGM <metadata> by package fgdc, ISO 19115 by
// package iso; anything else, or an FGDC record DCAT-US cannot take, settles as
// error_transform with the reason.
func TestXMLRecordsMappedByRootElement(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobHarvest)
	for _, c := range []struct {
		file   string
		schema harvest.SchemaType
		title  string // "" for a record that cannot be transformed
		reason string
	}{
		{"iso19115/fgdc-usgs-us-topo-collection-bom-doctype.xml", harvest.SchemaFGDC, "USGS US Topo Map Collection", ""},
		{"iso19115/fgdc-usgs-white-fronted-goose.xml", harvest.SchemaISO19115_2,
			"Greater White-Fronted Goose (Anser albifrons) Microsatellite DNA Data, Alaska, 1989-2006", ""},
		{"iso19115/datagov-valid-iso1-gmd.xml", harvest.SchemaFGDC,
			"Demographics for US Census Tracts - 2012 (American Community Survey 2008-2012 Derived Summary Tables)", ""},
		{"iso19115/census-2013-county-ea-iso19110-featurecatalogue-latin1.xml", harvest.SchemaFGDC, "", "ISO 19110 feature catalogue"},
		{"untitled", harvest.SchemaFGDC, "", "metadata/idinfo/citation/citeinfo/title is missing or empty"},
	} {
		xml := []byte("\xEF\xBB\xBF \n<!DOCTYPE metadata SYSTEM \"http://example.invalid/x.dtd\"><metadata><idinfo/></metadata>")
		if c.file != "untitled" {
			var err error
			xml, err = os.ReadFile(corpustest.Path(t, c.file))
			require.NoError(t, err)
		}
		rec := b.record(t, c.schema, "https://example.gov/waf/"+c.file, xml, "")
		subject, m := b.handle(t, rec)
		if c.title != "" {
			require.Equal(t, harvest.SubjectValidate, subject, c.file)
			var dcat map[string]any
			require.NoError(t, json.Unmarshal(decodeRecord(t, m).Transformed, &dcat), c.file)
			require.Equal(t, c.title, dcat["title"], c.file)
			continue
		}
		require.Equal(t, harvest.SubjectSettled, subject, c.file)
		s := decodeSettled(t, m)
		require.Equal(t, harvest.OutcomeErrored, s.Outcome, c.file)
		require.Equal(t, harvest.RecordErrorTransform, s.Status, c.file)
		require.Len(t, s.Errors, 1, c.file)
		require.Equal(t, harvest.TypeTransformError, s.Errors[0].Type, c.file)
		require.Contains(t, s.Errors[0].Message, c.reason, c.file)
	}
}
