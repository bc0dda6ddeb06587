package harvest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestMessagesKeepMarkup(t *testing.T) {
	t.Parallel()
	body := `{"identifier":"html","description":"` + strings.Repeat("<b>x</b> & ", 1000) + `"}`
	m, err := RecordMessage(SubjectCompare, &Record{JobID: "j", Identifier: "html", Body: RawText(body)})
	require.NoError(t, err)
	require.False(t, strings.Contains(string(m.Payload), `\u003c`), "< is not escaped")
	require.False(t, strings.Contains(string(m.Payload), `\u0026`), "& is not escaped")
	require.Less(t, len(m.Payload), len(body)+300, "the body travels at about its own size")
	require.False(t, strings.HasSuffix(string(m.Payload), "\n"), "no trailing newline")
	var rec Record
	require.NoError(t, Decode(m, &rec))
	require.Equal(t, body, string(rec.Body))

	raw, err := Marshal(RawText("<a href=\"x\">&</a>\n"))
	require.NoError(t, err)
	require.Equal(t, `"<a href=\"x\">&</a>\n"`, string(raw))
	var back RawText
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, "<a href=\"x\">&</a>\n", string(back))
}

// TestDecodeChecksVersion: a body of another envelope version, or with none, is refused, also
// into a value that already holds the current version; a type without V still works.
func TestDecodeChecksVersion(t *testing.T) {
	for body, ok := range map[string]bool{
		`{"v": 1, "job_id": "j"}`:  Version == 1,
		`{"v": 99, "job_id": "j"}`: false,
		`{"job_id": "j"}`:          false,
	} {
		rec := Record{V: Version}
		err := Decode(NewRawMessage("m", []byte(body)), &rec)
		if ok {
			require.NoError(t, err, body)
			require.Equal(t, "j", rec.JobID)
		} else {
			require.ErrorContains(t, err, "envelope version", body)
		}
		var loose map[string]any
		err = Decode(NewRawMessage("m", []byte(body)), &loose)
		if ok {
			require.NoError(t, err, body)
		} else {
			require.ErrorContains(t, err, "envelope version", body)
		}
	}
}

// TestRawTextWire: a RawText goes on the wire exactly as the JSON string of its bytes written
// by marshal (what its MarshalJSON wrote before it became a MarshalText), markup, line
// separators, control characters and bytes that are not UTF-8 included; a Record message
// carries valid UTF-8 bodies framed after its envelope, byte for byte, and others in the
// envelope as JSON strings, as before framing.
func TestRawTextWire(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		"", `{"a": 1}`, "<b>x</b> & y", "line\u2028sep\u2029para", "tab\tnl\ncr\r\x00\x1f\x7f",
		`quote " backslash \\ slash /`, "caf\xe9 \xff\xfe", "ü ☃ 𝄞", "{\n  \"identifier\": \"x\"\n}\n",
	} {
		want, err := Marshal(string(body))
		require.NoError(t, err)
		got, err := Marshal(RawText(body))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%q", body)

		m, err := RecordMessage(SubjectCompare, &Record{JobID: "j", Identifier: "i", Body: RawText(body),
			Transformed: RawText(body)})
		require.NoError(t, err)
		wantRec := `{"v":1,"job_id":"j","source_id":"","record_id":"","job_type":"","schema_type":"",` +
			`"identifier":"i","position":0`
		switch {
		case body == "":
			wantRec += "}"
		case utf8.ValidString(body):
			wantRec += fmt.Sprintf(`,"frames":{"body":%d,"transformed":%d}}`, len(body), len(body)) + "\n" + body + body
		default:
			wantRec += `,"body":` + string(want) + `,"transformed":` + string(want) + "}"
		}
		require.Equal(t, wantRec, string(m.Payload))

		var rec Record
		require.NoError(t, Decode(m, &rec))
		var wantBody string
		require.NoError(t, json.Unmarshal(want, &wantBody)) // what the plain form reads back: U+FFFD for bad bytes
		require.Equal(t, wantBody, string(rec.Body), "%q", body)
		require.Equal(t, wantBody, string(rec.Transformed), "%q", body)
	}
}

// TestFramedMessages: Record and Settled messages read back field for field, framed or not
// (XML byte for byte, whatever its encoding); messages written before framing still decode; a
// framed message whose bodies do not add up is refused; the give-up hook reads a framed
// message's ids and Transformed.
func TestFramedMessages(t *testing.T) {
	t.Parallel()
	rec := Record{JobID: "j", SourceID: "s", RecordID: "r", Identifier: "id\nwith newline", Position: 3,
		Action: ActionCreate, SourceHash: "h", Body: RawText(`{"title": "<b>x</b>\n"}`),
		Transformed: RawText(`{"t": 1}`), XML: []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a>\xe9</a>"),
		Warnings: []RecordError{{Type: "W", Message: "m\n", Severity: SeverityWarning}}}
	m, err := RecordMessage(SubjectValidate, &rec)
	require.NoError(t, err)
	require.Contains(t, string(m.Payload), `"frames":`)
	var back Record
	require.NoError(t, Decode(m, &back))
	require.Equal(t, rec, back)

	old, err := Marshal(&rec) // the plain form, as before framing
	require.NoError(t, err)
	back = Record{}
	require.NoError(t, Decode(NewRawMessage("old", old), &back))
	require.Equal(t, rec, back)

	s := Settled{Kind: SettledOutcome, JobID: "j", Key: "id:x", Identifier: "x", Outcome: OutcomeErrored,
		Transformed: RawText(`{"t": "é"}`), Errors: []RecordError{{Type: "E", Message: "bad"}}}
	sm, err := SettledMessage(&s)
	require.NoError(t, err)
	require.Contains(t, string(sm.Payload), `"frames":{"transformed":11}`)
	var sback Settled
	require.NoError(t, Decode(sm, &sback))
	require.Equal(t, s, sback)

	cut := NewRawMessage("cut", m.Payload[:len(m.Payload)-1])
	require.ErrorContains(t, Decode(cut, &back), "after the envelope")
	other := bytes.Replace(m.Payload, []byte(`"v":1`), []byte(`"v":7`), 1)
	require.ErrorContains(t, Decode(NewRawMessage("v7", other), &back), "envelope version 7")

	noFail := func(context.Context, string, string) error { return errors.New("no job fails here") }
	out, err := GiveUp{Stage: "sync", FailJob: noFail}.Settle(m, errors.New("boom"))
	require.NoError(t, err)
	require.Len(t, out, 1)
	var settled Settled
	require.NoError(t, Decode(out[0], &settled))
	require.Equal(t, "r", settled.RecordID)
	require.Equal(t, "id\nwith newline", settled.Identifier)
	require.Equal(t, `{"t": 1}`, string(settled.Transformed))
}

// TestRawTextDecode: a RawText reads back the exact bytes of its JSON string; null leaves it
// empty; a JSON value that is not a string is refused.
func TestRawTextDecode(t *testing.T) {
	t.Parallel()
	var rec Record
	require.NoError(t, json.Unmarshal([]byte(`{"body": "<b>\"x\"</b>\n\u00e9", "transformed": null}`), &rec))
	require.Equal(t, "<b>\"x\"</b>\n\u00e9", string(rec.Body))
	require.Empty(t, rec.Transformed)
	require.Error(t, json.Unmarshal([]byte(`{"body": {"title": "x"}}`), &rec))
	require.Error(t, json.Unmarshal([]byte(`{"body": 7}`), &rec))
}

// BenchmarkRecordHop is one hop's codec work on a record of a 1.8 KB DCAT-US body: encode the
// message, decode it. plain is the form before framing (the body as a JSON string).
func BenchmarkRecordHop(b *testing.B) {
	body := RawText(`{"@type": "dcat:Dataset", "identifier": "bench-1", "title": "A <b>title</b> & more", ` +
		`"description": "` + strings.Repeat(`Daily \"flow\" of the river, in m³/s.\n`, 40) + `", ` +
		`"keyword": ["water", "flow"], "modified": "2024-01-02", "accessLevel": "public"}`)
	rec := Record{JobID: "00000000-0000-0000-0000-000000000001", SourceID: "s", RecordID: "r",
		JobType: JobHarvest, SchemaType: SchemaDCATUS11Federal, Identifier: "bench-1", Position: 7,
		Action: ActionCreate, SourceHash: strings.Repeat("ab", 32), Body: body}
	b.Run("framed", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := RecordMessage(SubjectValidate, &rec)
			if err != nil {
				b.Fatal(err)
			}
			var back Record
			if err := Decode(m, &back); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := Marshal(&rec)
			if err != nil {
				b.Fatal(err)
			}
			var back Record
			if err := Decode(NewRawMessage("m", data), &back); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestFramedEnvelopeAsEncodingJSON: a framed envelope decodes as encoding/json decodes it:
// names match whatever their case, a repeated name's last value wins, unknown names are
// passed over; an envelope that is not valid JSON or holds invalid UTF-8 fails the message.
func TestFramedEnvelopeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	body := `{"title":"x"}`
	framed := func(env string) *Message {
		return NewRawMessage("m", []byte(env+"\n"+body))
	}
	env := `{"v":1,"JOB_ID":"j","Identifier":"first","identifier":"second","position":4,"unknown":{"a":[1]},` +
		`"frames":{"body":13}}`
	var got Record
	require.NoError(t, Decode(framed(env), &got))
	var want Record
	require.NoError(t, json.Unmarshal([]byte(env), &want), "encoding/json reads the same envelope")
	want.Body = RawText(body)
	require.Equal(t, want, got)
	require.Equal(t, "j", got.JobID)
	require.Equal(t, "second", got.Identifier)
	require.Equal(t, 4, got.Position)

	require.Error(t, Decode(framed(`{"v":1,"job_id":"j","frames":{"body":13}`), &got), "not JSON")
	require.Error(t, Decode(framed("{\"v\":1,\"identifier\":\"\xff\",\"frames\":{\"body\":13}}"), &got), "invalid UTF-8")
}

// BenchmarkSettledHop is one hop's codec work on an unchanged record's outcome (COMPARE to the
// aggregator): encode its message, decode it.
func BenchmarkSettledHop(b *testing.B) {
	s := SettleIdentifier("00000000-0000-0000-0000-000000000001", "bench-1", OutcomeUnchanged)
	s.CarriedFromRecordID = "00000000-0000-0000-0000-000000000002"
	b.ReportAllocs()
	for b.Loop() {
		m, err := SettledMessage(s)
		if err != nil {
			b.Fatal(err)
		}
		var back Settled
		if err := Decode(m, &back); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEnvelopeAsEncodingJSON: marshalEnvelope writes the bytes encoding/json's Encoder without
// HTML escaping writes (marshal), for Settled and Record envelopes with HTML, U+2028, empty and
// nil slices, zero and set omitempty fields, and the same JSON when a string holds invalid UTF-8
// (both write U+FFFD in its place, encoding/json as the escape \ufffd); and a plain Settled or Record
// message decodes (decodePlain) to what json.Unmarshal makes of it, whatever the case of its
// names, a repeated name's last value winning.
func TestEnvelopeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, odd := range []string{"a <b>&</b> \u2028 é \"q\" \\ \t", "bad \xff\xfe"} {
		envelopeAsEncodingJSON(t, odd)
	}
	for _, payload := range []string{
		`{"v":1,"KIND":"outcome","job_id":"j","Identifier":"first","identifier":"second \u2028","errors":null,` +
			`"validated":true,"unknown":{"a":[1]},"transformed":"<x>"}`,
		"{\"v\":1,\"kind\":\"outcome\",\"identifier\":\"bad \xff\"}",
	} {
		var want Settled
		require.NoError(t, json.Unmarshal([]byte(payload), &want))
		got := Settled{JobID: "left over"}
		require.NoError(t, Decode(NewRawMessage("m", []byte(payload)), &got))
		require.Equal(t, want, got)
	}
	rec := `{"v":1,"job_id":"j","IDENTIFIER":"x","position":3,"body":"{\"a\":1}","xml":"PHgvPg==","languages":["nb"]}`
	var want Record
	require.NoError(t, json.Unmarshal([]byte(rec), &want))
	var got Record
	require.NoError(t, Decode(NewRawMessage("m", []byte(rec)), &got))
	require.Equal(t, want, got)

	var s Settled
	require.ErrorContains(t, Decode(NewRawMessage("m", []byte(`{"kind":"outcome"}`)), &s), "envelope version 0")
	require.Error(t, Decode(NewRawMessage("m", []byte(`{"v":1,"expected":"x"}`)), &s), "not an int")
	require.Error(t, Decode(NewRawMessage("m", []byte(`{"v":1`)), &s), "not JSON")
}

func envelopeAsEncodingJSON(t *testing.T, odd string) {
	t.Helper()
	values := []any{
		&Settled{V: 1, Kind: SettledOutcome, JobID: "j", Key: "id:" + odd, Identifier: odd, Outcome: OutcomeUnchanged,
			CarriedFromRecordID: "r"},
		&Settled{V: 1, Kind: SettledOutcome, JobID: "j", Errors: []RecordError{}, Validated: true, Expected: 0},
		&Settled{V: 1, Kind: SettledExpected, JobID: "j", Expected: 7,
			Errors: []RecordError{{Type: "T", Message: odd, Severity: SeverityError}}},
		&Record{V: 1, JobID: "j", Identifier: odd, Position: 0, Languages: []string{}, Warnings: nil,
			XML: []byte("<x/>\xff"), Replay: true},
		&recordWire{Record: Record{V: 1, JobID: "j", Identifier: odd}, Frames: &frames{Body: 3}},
		&settledWire{Settled: Settled{V: 1, Kind: SettledOutcome, Identifier: odd}, Frames: &frames{Transformed: 2}},
	}
	for _, v := range values {
		want, err := Marshal(v)
		require.NoError(t, err)
		got, err := marshalEnvelope(v)
		require.NoError(t, err)
		if utf8.ValidString(odd) {
			require.Equal(t, string(want), string(got))
		} else {
			require.JSONEq(t, string(want), string(got))
		}
	}
}
