package harvest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// A Record or Settled message that carries a body travels framed: its JSON envelope without
// the bodies (Body, Transformed, XML left out), one newline, then the bodies byte for byte in
// that order, their lengths in the envelope's "frames" field:
//
//	{"v":1,"job_id":…,"frames":{"body":1834}}\n{"identifier":"x",…}
//
// so no hop escapes a body into a JSON string or unescapes it again, and a decoded body is a
// slice of the message's payload, not a copy. The envelope holds no raw newline (encoding/json
// never writes one), so it ends at the first. A message without bodies, or with a Body or
// Transformed that is not valid UTF-8, is plain JSON as before (encoding/json then replaces the
// invalid bytes with U+FFFD, which keeps source_raw storable in a text column); Decode reads
// both forms, so messages written before framing (kept on the failed subjects for replay)
// still decode.
type frames struct {
	Body        int `json:"body,omitempty"`
	Transformed int `json:"transformed,omitempty"`
	XML         int `json:"xml,omitempty"`
}

func (f *frames) total() int { return f.Body + f.Transformed + f.XML }

// recordWire and settledWire are the envelopes of framed Record and Settled messages.
type recordWire struct {
	Record
	Frames *frames `json:"frames,omitempty"`
}

type settledWire struct {
	Settled
	Frames *frames `json:"frames,omitempty"`
}

// framable reports whether bodies may travel framed: at least one is set, and the text ones
// (body, transformed) are valid UTF-8.
func framable(body, transformed, xml []byte) bool {
	if len(body)+len(transformed)+len(xml) == 0 {
		return false
	}
	return utf8.Valid(body) && utf8.Valid(transformed)
}

// encodeFramed writes the envelope w (whose Frames point at fr) without HTML escaping, a
// newline, and the bodies, in one buffer sized for all of it.
func encodeFramed(w any, fr *frames, body, transformed, xml []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(512 + fr.total())
	if err := jsonv2.MarshalWrite(&buf, w, v1Envelope); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	buf.Write(body)
	buf.Write(transformed)
	buf.Write(xml)
	return buf.Bytes(), nil
}

// v1Envelope are the options under which marshalEnvelope writes what encoding/json's Encoder
// with SetEscapeHTML(false) writes: jsonv1.DefaultOptionsV1 (its omitempty, nil slices as null,
// invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped, …) without HTML escaping.
var v1Envelope = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsontext.EscapeForHTML(false))

// marshalEnvelope is Marshal(v), byte for byte (TestEnvelopeAsEncodingJSON), with the encoder of
// github.com/go-json-experiment/json (the upstream of encoding/json/v2) under encoding/json's
// semantics (v1Envelope), which takes less time and fewer allocations than encoding/json's
// Encoder (BenchmarkSettledHop).
func marshalEnvelope(v any) ([]byte, error) {
	return jsonv2.Marshal(v, v1Envelope)
}

func encodeRecord(r *Record) ([]byte, error) {
	if !framable(r.Body, r.Transformed, r.XML) {
		return Marshal(r)
	}
	w := recordWire{Record: *r}
	w.Body, w.Transformed, w.XML = nil, nil, nil
	w.Frames = &frames{Body: len(r.Body), Transformed: len(r.Transformed), XML: len(r.XML)}
	return encodeFramed(&w, w.Frames, r.Body, r.Transformed, r.XML)
}

func encodeSettled(s *Settled) ([]byte, error) {
	if !framable(nil, s.Transformed, nil) {
		return marshalEnvelope(s)
	}
	w := settledWire{Settled: *s}
	w.Transformed = nil
	w.Frames = &frames{Transformed: len(s.Transformed)}
	return encodeFramed(&w, w.Frames, nil, s.Transformed, nil)
}

// splitFramed splits a framed payload whose envelope ends at nl into its bodies, as slices of
// payload. ok is false when the payload is not framed (no "frames" in what precedes nl, which
// then is no envelope of its own: plain JSON with a newline in it).
func splitFramed(payload []byte, nl int, fr *frames) (body, transformed, xml []byte, err error) {
	rest := payload[nl+1:]
	if fr.Body < 0 || fr.Transformed < 0 || fr.XML < 0 || fr.total() != len(rest) {
		return nil, nil, nil, fmt.Errorf("framed bodies of %d+%d+%d bytes, %d after the envelope",
			fr.Body, fr.Transformed, fr.XML, len(rest))
	}
	cut := func(n int) []byte {
		if n == 0 {
			return nil
		}
		b := rest[:n:n]
		rest = rest[n:]
		return b
	}
	return cut(fr.Body), cut(fr.Transformed), cut(fr.XML), nil
}

// decodeFramed decodes m's payload into v (a *Record or *Settled) when it is framed; handled
// is false when v is of another type or the payload is not framed, for Decode's plain path.
func decodeFramed(m *Message, v any) (handled bool, err error) {
	nl := bytes.IndexByte(m.Payload, '\n')
	if nl < 0 {
		return false, nil
	}
	env := m.Payload[:nl]
	switch v := v.(type) {
	case *Record:
		*v = Record{} // a body without "v" must not pass on what v held
		w := struct {
			*Record
			Frames *frames `json:"frames"`
		}{Record: v} // decoded in place: no Record to allocate and copy
		if unmarshalEnvelope(env, &w) != nil || w.Frames == nil {
			*v = Record{}
			return false, nil
		}
		if v.V != Version {
			return true, fmt.Errorf("decode message %s: envelope version %d, want %d", m.UUID, v.V, Version)
		}
		body, transformed, xml, err := splitFramed(m.Payload, nl, w.Frames)
		if err != nil {
			return true, fmt.Errorf("decode message %s: %w", m.UUID, err)
		}
		v.Body, v.Transformed, v.XML = body, transformed, xml
		return true, nil
	case *Settled:
		*v = Settled{}
		w := struct {
			*Settled
			Frames *frames `json:"frames"`
		}{Settled: v}
		if unmarshalEnvelope(env, &w) != nil || w.Frames == nil {
			*v = Settled{}
			return false, nil
		}
		if v.V != Version {
			return true, fmt.Errorf("decode message %s: envelope version %d, want %d", m.UUID, v.V, Version)
		}
		_, transformed, _, err := splitFramed(m.Payload, nl, w.Frames)
		if err != nil {
			return true, fmt.Errorf("decode message %s: %w", m.UUID, err)
		}
		v.Transformed = transformed
		return true, nil
	}
	return false, nil
}

// unmarshalEnvelope decodes a framed message's envelope into v with the decoder of
// github.com/go-json-experiment/json (the upstream of Go's encoding/json/v2), which decodes
// these envelopes in about a third of encoding/json's time (BenchmarkRecordHop). Names match
// as encoding/json matches them (case-insensitively) and duplicate names are allowed, the last
// one winning, so an envelope decodes to what encoding/json made of it; an envelope with
// invalid UTF-8 (which encoding/json never writes) is refused, and the message then takes
// Decode's plain path, which fails it as not JSON.
func unmarshalEnvelope(env []byte, v any) error {
	return jsonv2.Unmarshal(env, v, jsonv2.MatchCaseInsensitiveNames(true), jsontext.AllowDuplicateNames(true))
}

// envelopeOf returns the JSON envelope of a payload and the Transformed body a framed one
// carries after it (nil when not framed: the envelope is the whole payload then).
func envelopeOf(payload []byte) (env, transformed []byte) {
	nl := bytes.IndexByte(payload, '\n')
	if nl < 0 {
		return payload, nil
	}
	var w struct {
		Frames *frames `json:"frames"`
	}
	if json.Unmarshal(payload[:nl], &w) != nil || w.Frames == nil {
		return payload, nil
	}
	_, transformed, _, err := splitFramed(payload, nl, w.Frames)
	if err != nil {
		return payload[:nl], nil
	}
	return payload[:nl], transformed
}
