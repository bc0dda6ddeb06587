package transform_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/corpustest"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/transform"
	"github.com/harvester-dev/harvester/store"
	"github.com/harvester-dev/harvester/store/dbtest"
	"github.com/harvester-dev/harvester/store/sqlite"
)

// minimalISO is an ISO 19115-1 record with a title and an abstract only: TRANSFORM fills the
// required DCAT-US fields it lacks with Data.gov's placeholders, each with a warning.
const minimalISO = `<?xml version="1.0" encoding="UTF-8"?>
<gmd:MD_Metadata xmlns:gmd="http://www.isotc211.org/2005/gmd" xmlns:gco="http://www.isotc211.org/2005/gco">
 <gmd:identificationInfo><gmd:MD_DataIdentification>
  <gmd:citation><gmd:CI_Citation><gmd:title><gco:CharacterString>Stream gauges</gco:CharacterString></gmd:title></gmd:CI_Citation></gmd:citation>
  <gmd:abstract><gco:CharacterString>Daily flow.</gco:CharacterString></gmd:abstract>
 </gmd:MD_DataIdentification></gmd:identificationInfo>
</gmd:MD_Metadata>`

// backends opens a migrated store of each kind: SQLite in a temporary file, and Postgres on a
// schema of its own (skipped when no test Postgres is configured, required in CI).
var backends = map[string]func(t *testing.T) store.Store{
	"sqlite": func(t *testing.T) store.Store {
		st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "h.db"))
		require.NoError(t, err)
		t.Cleanup(st.Close)
		require.NoError(t, st.Migrate(t.Context()))
		return st
	},
	"postgres": func(t *testing.T) store.Store { return dbtest.Store(t) },
}

// testBundle is TRANSFORM on a real store, with a WAF source and a job of jobType.
type testBundle struct {
	st  store.Store
	h   *transform.Handler
	src *store.Source
	job *store.HarvestJob
}

func setup(t *testing.T, st store.Store, jobType harvest.JobType) *testBundle {
	t.Helper()
	src, err := st.SourceEnsure(t.Context(), &store.SourceEnsureParams{Name: "waf", URL: "https://example.gov/waf/",
		SourceType: harvest.SourceWAF, SchemaType: harvest.SchemaISO19115_1})
	require.NoError(t, err)
	job, err := st.JobInsert(t.Context(), &store.JobInsertParams{SourceID: src.ID, JobType: jobType})
	require.NoError(t, err)
	return &testBundle{st: st, h: transform.New(), src: src, job: job}
}

// record returns a record of the bundle's job as COMPARE sends it on, with its harvest_record
// row written unless the job is a validate job (which writes none).
func (b *testBundle) record(t *testing.T, schema harvest.SchemaType, identifier string, xml []byte, body string) *harvest.Record {
	t.Helper()
	rec := &harvest.Record{JobID: b.job.ID, SourceID: b.src.ID, RecordID: harvest.RecordID(b.job.ID, identifier),
		JobType: b.job.JobType, SchemaType: schema, Identifier: identifier, Action: harvest.ActionCreate,
		SourceHash: "h", XML: xml, Body: harvest.RawText(body), PublisherName: "Example Agency"}
	if rec.StoredRecordID() != "" {
		raw := body
		if xml != nil {
			raw = string(xml)
		}
		_, err := b.st.RecordInsert(t.Context(), &store.RecordInsertParams{ID: rec.RecordID, JobID: b.job.ID,
			SourceID: b.src.ID, Identifier: identifier, Action: harvest.ActionCreate, SourceHash: "h", SourceRaw: raw})
		require.NoError(t, err)
	}
	return rec
}

// handle runs TRANSFORM on rec and returns its one output message's subject and body.
func (b *testBundle) handle(t *testing.T, rec *harvest.Record) (subject string, out *harvest.Message) {
	t.Helper()
	msg, err := harvest.RecordMessage(harvest.SubjectTransform, rec)
	require.NoError(t, err)
	msg.SetContext(t.Context())
	msgs, err := b.h.Handle(msg)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "TRANSFORM emits exactly one message per record")
	return msgs[0].Metadata.Get(harvest.MetaSubject), msgs[0]
}

// stored returns the record's harvest_record row.
func (b *testBundle) stored(t *testing.T, recordID string) *store.HarvestRecord {
	t.Helper()
	r, err := b.st.RecordGet(t.Context(), recordID)
	require.NoError(t, err)
	return r
}

func decodeRecord(t *testing.T, m *harvest.Message) harvest.Record {
	t.Helper()
	var rec harvest.Record
	require.NoError(t, harvest.Decode(m, &rec))
	return rec
}

func decodeSettled(t *testing.T, m *harvest.Message) harvest.Settled {
	t.Helper()
	var s harvest.Settled
	require.NoError(t, harvest.Decode(m, &s))
	return s
}

// TestISORecordIsTransformed: an ISO record goes on to VALIDATE as DCAT-US, with a warning row
// for each placeholder, carrying the DCAT-US on (the aggregator stores it as its source_transform);
// the harvest_record row COMPARE inserted is not touched.
func TestISORecordIsTransformed(t *testing.T) {
	t.Parallel()
	for name, open := range backends {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := setup(t, open(t), harvest.JobHarvest)
			const id = "https://example.gov/waf/gauges.xml"
			rec := b.record(t, harvest.SchemaISO19115_1, id, []byte(minimalISO), "")

			subject, m := b.handle(t, rec)
			require.Equal(t, harvest.SubjectValidate, subject)
			require.Equal(t, b.job.ID, m.Metadata.Get(harvest.MetaJobID))
			require.Equal(t, rec.RecordID, m.Metadata.Get(harvest.MetaRecordID))
			out := decodeRecord(t, m)
			require.Equal(t, id, out.Identifier)
			require.Equal(t, []byte(minimalISO), out.XML, "the XML travels on byte for byte")
			var dcat map[string]any
			require.NoError(t, json.Unmarshal(out.Transformed, &dcat))
			require.Equal(t, "Stream gauges", dcat["title"])
			require.Equal(t, "Daily flow.", dcat["description"])
			require.Equal(t, id, dcat["identifier"])
			require.NotContains(t, dcat, "isPartOf", "only a waf-collection child is part of something")

			require.NotEmpty(t, out.Warnings)
			var fields []string
			for _, w := range out.Warnings {
				require.Equal(t, harvest.TypeTransformWarning, w.Type)
				require.Equal(t, harvest.SeverityWarning, w.Severity)
				fields = append(fields, w.Message)
			}
			require.Contains(t, fields, `keyword: the record has no keywords; used the placeholder "__"`)

			row := b.stored(t, rec.RecordID)
			require.Nil(t, row.SourceTransform, "TRANSFORM writes nothing: the aggregator stores it with the outcome")
			require.Equal(t, minimalISO, row.SourceRaw)
		})
	}
}

// TestCorpusISORecords: the corpus's valid ISO 19115-1 and 19115-2 records become DCAT-US
// with their titles; the invalid ones settle as error_transform with the reason, and carry no
// transformed body.
func TestCorpusISORecords(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobHarvest)
	for _, c := range []struct {
		file   string
		schema harvest.SchemaType
		title  string // "" for a record that cannot be transformed
		reason string
	}{
		{"iso19115/datagov-valid-iso1-gmd.xml", harvest.SchemaISO19115_1,
			"Demographics for US Census Tracts - 2012 (American Community Survey 2008-2012 Derived Summary Tables)", ""},
		{"iso19115/datagov-valid-iso2-gmi.xml", harvest.SchemaISO19115_2,
			"Bringing Wetlands to Market: Expanding Blue Carbon Implementation - NERRS/NSC(NERRS Science Collaborative)", ""},
		{"iso19115/INVALID-datagov-decode-error.xml", harvest.SchemaISO19115_2, "",
			"byte 0x92 at offset 88 is not valid UTF-8"},
		{"iso19115/INVALID-ckanspatial-gemini-bad-xml.xml", harvest.SchemaISO19115_2, "",
			"malformed XML: line 16, column 1"},
	} {
		xml, err := os.ReadFile(corpustest.Path(t, c.file))
		require.NoError(t, err)
		rec := b.record(t, c.schema, "https://example.gov/waf/"+filepath.Base(c.file), xml, "")
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
		require.Equal(t, harvest.SettledOutcome, s.Kind, c.file)
		require.Equal(t, harvest.OutcomeErrored, s.Outcome, c.file)
		require.Equal(t, harvest.RecordErrorTransform, s.Status, c.file)
		require.Equal(t, rec.RecordID, s.RecordID, c.file)
		require.Equal(t, harvest.IdentifierKey(rec.Identifier), s.Key, c.file)
		require.Len(t, s.Errors, 1, c.file)
		require.Equal(t, harvest.TypeTransformError, s.Errors[0].Type, c.file)
		require.Equal(t, harvest.SeverityError, s.Errors[0].Severity, c.file)
		require.Contains(t, s.Errors[0].Message, c.reason, c.file)
		require.Empty(t, s.Transformed, c.file)
	}
}

// TestDCATUSPassesThrough: a DCAT-US record (federal or non-federal) goes to VALIDATE as it
// came, with no Transformed body and no source_transform.
func TestDCATUSPassesThrough(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobHarvest)
	for _, schema := range []harvest.SchemaType{harvest.SchemaDCATUS11Federal, harvest.SchemaDCATUS11NonFederal} {
		body := `{ "identifier": "ds-` + string(schema[len(schema)-3:]) + `",  "title": "A <b>&amp;</b> B" }`
		rec := b.record(t, schema, "ds-"+string(schema[len(schema)-3:]), nil, body)
		subject, m := b.handle(t, rec)
		require.Equal(t, harvest.SubjectValidate, subject, schema)
		out := decodeRecord(t, m)
		require.Equal(t, body, string(out.Body), "source_raw stays byte for byte what the publisher wrote")
		require.Empty(t, out.Transformed)
		require.Empty(t, out.Warnings)
		require.Equal(t, schema, out.SchemaType)
	}

	// Forwarded, not encoded again: a message in the plain form (as written before framing)
	// goes on byte for byte, with its ids and without its transport metadata.
	rec := b.record(t, harvest.SchemaDCATUS11Federal, "ds-plain", nil, `{"identifier": "ds-plain", "title": "<b>x</b>"}`)
	rec.V = harvest.Version
	plain, err := json.Marshal(rec) // escapes < and >, as no encoder of ours does
	require.NoError(t, err)
	in := harvest.NewRawMessage("in", plain)
	in.Metadata.Set(harvest.MetaJobID, rec.JobID)
	in.Metadata.Set(harvest.MetaRecordID, rec.RecordID)
	in.Metadata.Set("Harvester-Claim", "body-x")
	in.SetContext(t.Context())
	out, err := b.h.Handle(in)
	require.NoError(t, err)
	require.Len(t, out, 1)
	require.Equal(t, string(plain), string(out[0].Payload))
	require.Equal(t, harvest.SubjectValidate, out[0].Metadata.Get(harvest.MetaSubject))
	require.Equal(t, rec.RecordID, out[0].Metadata.Get(harvest.MetaRecordID))
	require.Empty(t, out[0].Metadata.Get("Harvester-Claim"))
}

// TestCollectionChildIsPartOfItsParent: a waf-collection child's DCAT-US names its parent in
// isPartOf.
func TestCollectionChildIsPartOfItsParent(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobHarvest)
	rec := b.record(t, harvest.SchemaISO19115_1, "https://example.gov/waf/child.xml", []byte(minimalISO), "")
	rec.IsPartOf = "https://example.gov/waf/cfg/series.xml"
	_, m := b.handle(t, rec)
	var dcat map[string]any
	require.NoError(t, json.Unmarshal(decodeRecord(t, m).Transformed, &dcat))
	require.Equal(t, rec.IsPartOf, dcat["isPartOf"])
}

// TestValidateJobWritesNothing: a validate job's record has no harvest_record row: TRANSFORM
// transforms it and writes nothing.
func TestValidateJobWritesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobValidate)
	rec := b.record(t, harvest.SchemaISO19115_1, "https://example.gov/waf/v.xml", []byte(minimalISO), "")
	subject, m := b.handle(t, rec)
	require.Equal(t, harvest.SubjectValidate, subject)
	require.NotEmpty(t, decodeRecord(t, m).Transformed)
	_, err := b.st.RecordGet(t.Context(), rec.RecordID)
	require.ErrorIs(t, err, store.ErrNotFound)
}

// TestUnknownSchemaTypeIsRejected: a schema type TRANSFORM has no transform for settles the
// record as error_transform naming the type; it is not a handler error to retry.
func TestUnknownSchemaTypeIsRejected(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobHarvest)
	rec := b.record(t, "marc21", "https://example.gov/marc/1", nil, `{"@id":"x"}`)
	subject, m := b.handle(t, rec)
	require.Equal(t, harvest.SubjectSettled, subject)
	s := decodeSettled(t, m)
	require.Equal(t, harvest.RecordErrorTransform, s.Status)
	require.Equal(t, harvest.OutcomeErrored, s.Outcome)
	require.Equal(t, `no transform for schema type "marc21"`, s.Errors[0].Message)
}

// dcatapRecord is a DCAT-AP record graph as EXTRACT sends it (canonical N-Quads, the blank
// nodes skolemized under the dataset IRI).
const dcatapRecord = `<https://data.example.no/ds/1> <http://purl.org/dc/terms/description> "Daily flow."@en .
<https://data.example.no/ds/1> <http://purl.org/dc/terms/description> "Daglig vannføring."@nb .
<https://data.example.no/ds/1> <http://purl.org/dc/terms/issued> "31.12.2020" .
<https://data.example.no/ds/1> <http://purl.org/dc/terms/title> "Stream gauges"@en .
<https://data.example.no/ds/1> <http://purl.org/dc/terms/title> "Vannmålere"@nb .
<https://data.example.no/ds/1> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/ns/dcat#Dataset> .
<https://data.example.no/ds/1> <http://www.w3.org/ns/dcat#distribution> <https://data.example.no/ds/1/.well-known/genid/d1> .
<https://data.example.no/ds/1/.well-known/genid/d1> <http://www.w3.org/ns/dcat#accessURL> <https://data.example.no/gauges.csv> .
`

// TestDCATAPRecordIsTransformed: a dcat-ap record goes on to VALIDATE with its DCAT-US in
// Transformed and its record graph untouched in Body (source_raw); a lossy choice is a warning
// row; the language preference is the record's (its source's languages option), else the
// stage's (--languages), else English.
func TestDCATAPRecordIsTransformed(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobHarvest)
	const id = "https://data.example.no/ds/1"
	for _, c := range []struct {
		stage, record []string
		title         string
	}{
		{nil, nil, "Stream gauges"},
		{[]string{"nb"}, nil, "Vannmålere"},
		{nil, []string{"nb", "en"}, "Vannmålere"},
		{[]string{"nb"}, []string{"en"}, "Stream gauges"},
	} {
		b.h = transform.New(transform.WithLanguages(c.stage))
		rec := b.record(t, harvest.SchemaDCATAP, id, nil, dcatapRecord)
		rec.Languages = c.record
		subject, m := b.handle(t, rec)
		require.Equal(t, harvest.SubjectValidate, subject)
		out := decodeRecord(t, m)
		require.Equal(t, dcatapRecord, string(out.Body), "source_raw keeps the record graph")
		var dcat map[string]any
		require.NoError(t, json.Unmarshal(out.Transformed, &dcat))
		require.Equal(t, c.title, dcat["title"], "stage %v, record %v", c.stage, c.record)
		require.Equal(t, id, dcat["identifier"])
		require.Equal(t, "public", dcat["accessLevel"])
		require.Equal(t, []any{map[string]any{"@type": "dcat:Distribution", "accessURL": "https://data.example.no/gauges.csv"}}, dcat["distribution"])
		require.Len(t, out.Warnings, 1)
		require.Equal(t, harvest.RecordError{Type: harvest.TypeTransformWarning, Severity: harvest.SeverityWarning,
			Message: `issued: "31.12.2020" is not a date (xsd:date, xsd:dateTime, xsd:gYear or xsd:gYearMonth); dropped`}, out.Warnings[0])
	}
}

// TestDCATAPRecordThatCannotBeTransformed: a body that is not N-Quads, or a graph that does
// not describe the record's identifier, settles as error_transform with the reason.
func TestDCATAPRecordThatCannotBeTransformed(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobHarvest)
	for body, reason := range map[string]string{
		`{"title": "not RDF"}`: "record graph does not parse as N-Quads",
		`<https://data.example.no/ds/other> <http://purl.org/dc/terms/title> "T" .` + "\n": "record graph does not describe the dataset: no triple has <https://data.example.no/ds/2> as subject",
	} {
		rec := b.record(t, harvest.SchemaDCATAP, "https://data.example.no/ds/2", nil, body)
		subject, m := b.handle(t, rec)
		require.Equal(t, harvest.SubjectSettled, subject, body)
		s := decodeSettled(t, m)
		require.Equal(t, harvest.RecordErrorTransform, s.Status, body)
		require.Equal(t, harvest.OutcomeErrored, s.Outcome, body)
		require.Contains(t, s.Errors[0].Message, reason, body)
		require.Empty(t, s.Transformed, body)
	}
}

// TestUndecodableMessageIsPermanent: a message body that is not a Record cannot succeed on
// redelivery: Handle says so with a permanent error and emits nothing.
func TestUndecodableMessageIsPermanent(t *testing.T) {
	t.Parallel()
	h := transform.New()
	for _, body := range []string{`not json`, `{"v": 999, "identifier": "x"}`} {
		msg := harvest.NewRawMessage("1", []byte(body))
		msg.SetContext(context.Background())
		out, err := h.Handle(msg)
		require.Error(t, err, body)
		require.True(t, harvest.IsPermanent(err), "%s: %v", body, err)
		require.Empty(t, out)
	}
}

// TestDCATAPRecordTakesItsCatalogsPublisher: a dataset that names no publisher gets its
// catalog's (Record.PublisherName, from EXTRACT); one that names its own keeps it.
func TestDCATAPRecordTakesItsCatalogsPublisher(t *testing.T) {
	t.Parallel()
	b := setup(t, backends["sqlite"](t), harvest.JobHarvest)
	const id = "https://data.example.no/ds/1"
	rec := b.record(t, harvest.SchemaDCATAP, id, nil, dcatapRecord)
	rec.PublisherName = "Statens vegvesen"
	_, m := b.handle(t, rec)
	var dcat map[string]any
	require.NoError(t, json.Unmarshal(decodeRecord(t, m).Transformed, &dcat))
	require.Equal(t, map[string]any{"@type": "org:Organization", "name": "Statens vegvesen"}, dcat["publisher"])

	own := dcatapRecord + `<` + id + `> <http://purl.org/dc/terms/publisher> "Its own agency" .` + "\n"
	rec = b.record(t, harvest.SchemaDCATAP, id, nil, own)
	rec.PublisherName = "Statens vegvesen"
	_, m = b.handle(t, rec)
	require.NoError(t, json.Unmarshal(decodeRecord(t, m).Transformed, &dcat))
	require.Equal(t, map[string]any{"@type": "org:Organization", "name": "Its own agency"}, dcat["publisher"])
}
