package transform_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// cswRecord is a Dublin Core record as a CSW server returns it (CSW 3.0 namespace here).
const cswRecord = `<?xml version="1.0" encoding="UTF-8"?>
<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/3.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dct="http://purl.org/dc/terms/">
 <dc:identifier>urn:uuid:1</dc:identifier><dc:title>Stream gauges</dc:title><dc:subject>hydrology</dc:subject>
 <dct:abstract>Daily flow.</dct:abstract><dct:modified>2025-01-15</dct:modified>
</csw:Record>`

// TestDublinCoreRecordIsTransformed: an XML record whose root is csw:Record is mapped by
// package dublincore, whatever XML schema type the source declares (a CSW source asks for ISO
// and may get Dublin Core), and goes on to VALIDATE with its placeholder warnings; a broken
// one settles as error_transform with the reason.
func TestDublinCoreRecordIsTransformed(t *testing.T) {
	t.Parallel()
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, open(t), harvest.JobHarvest)
			rec := b.record(t, harvest.SchemaISO19115_1, "urn:uuid:1", []byte(cswRecord), "")
			subject, m := b.handle(t, rec)
			require.Equal(t, harvest.SubjectValidate, subject)
			out := decodeRecord(t, m)
			var dcat map[string]any
			require.NoError(t, json.Unmarshal(out.Transformed, &dcat))
			require.Equal(t, "Stream gauges", dcat["title"])
			require.Equal(t, "Daily flow.", dcat["description"])
			require.Equal(t, []any{"hydrology"}, dcat["keyword"])
			require.Equal(t, "2025-01-15T00:00:00.000+00:00", dcat["modified"])
			require.Equal(t, "Example Agency", dcat["publisher"].(map[string]any)["name"], "the source's organization")
			var msgs []string
			for _, w := range out.Warnings {
				require.Equal(t, harvest.TypeTransformWarning, w.Type)
				msgs = append(msgs, w.Message)
			}
			require.Contains(t, msgs, `publisher: the record has no dc:publisher; used "Example Agency"`)

			bad := b.record(t, harvest.SchemaISO19115_1, "urn:uuid:2", []byte(`<csw:Record xmlns:csw="http://www.opengis.net/cat/csw/2.0.2"><dc:title>`), "")
			subject, m = b.handle(t, bad)
			require.Equal(t, harvest.SubjectSettled, subject)
			s := decodeSettled(t, m)
			require.Equal(t, harvest.RecordErrorTransform, s.Status)
			require.Len(t, s.Errors, 1)
			require.Contains(t, s.Errors[0].Message, "malformed XML")
		})
	}
}
