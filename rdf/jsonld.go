package rdf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/piprate/json-gold/ld"
)

// ErrRemoteContext is returned (wrapped in a *SyntaxError's reason) for a JSON-LD document
// whose @context names a URL: Harvester never fetches remote contexts at harvest time
// (corpus NOTES §12), since that would make every harvest depend on, and trust, a third host.
var ErrRemoteContext = errors.New("remote JSON-LD context not fetched")

// noRemoteLoader is a json-gold DocumentLoader that refuses every URL.
type noRemoteLoader struct{}

func (noRemoteLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	return nil, ld.NewJsonLdError(ld.LoadingRemoteContextFailed, fmt.Errorf("%w: %s (inline the context)", ErrRemoteContext, u))
}

// maxJSONLD caps the JSON-LD document read into memory (json-gold needs the whole tree).
const maxJSONLD = 256 << 20

// parseJSONLD parses a JSON-LD 1.1 document (expanded, compacted with an inline @context, or
// with @graph) with github.com/piprate/json-gold's toRdf (JSON-LD 1.1 API §8.4). JSON-LD cannot
// be streamed: the document is read whole (up to 256 MiB) and the triples are delivered after.
// A JSON syntax error is a *SyntaxError with the line and column of the offending byte; a
// JSON-LD error (an invalid context, a remote context) is a *SyntaxError at line 0.
func parseJSONLD(r io.Reader, base string, fn func(Triple) error) error {
	data, err := io.ReadAll(io.LimitReader(r, maxJSONLD+1))
	if err != nil {
		return fmt.Errorf("rdf: reading JSON-LD: %w", err)
	}
	if len(data) > maxJSONLD {
		return &SyntaxError{Format: JSONLD, Msg: fmt.Sprintf("JSON-LD document over %d MiB", maxJSONLD>>20)}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return jsonError(data, dec, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		off := int(dec.InputOffset())
		l, c := lineCol(data, off)
		return &SyntaxError{Format: JSONLD, Line: l, Col: c, Msg: "data after the JSON document"}
	}
	opts := ld.NewJsonLdOptions(base)
	opts.DocumentLoader = noRemoteLoader{}
	opts.ProcessingMode = ld.JsonLd_1_1
	out, err := func() (out any, err error) {
		defer func() {
			if r := recover(); r != nil { // json-gold panics on some malformed input
				err = fmt.Errorf("json-gold: %v", r)
			}
		}()
		return ld.NewJsonLdProcessor().ToRDF(doc, opts)
	}()
	if err != nil {
		msg := err.Error()
		if errors.Is(err, ErrRemoteContext) || strings.Contains(msg, ErrRemoteContext.Error()) {
			msg = "remote @context not fetched: " + msg
		}
		return &SyntaxError{Format: JSONLD, Msg: "JSON-LD: " + msg}
	}
	ds, ok := out.(*ld.RDFDataset)
	if !ok {
		return fmt.Errorf("rdf: json-gold returned %T", out)
	}
	blanks := newBlankScope()
	for _, quads := range ds.Graphs {
		for _, q := range quads {
			s, p, o := termFromLD(q.Subject, blanks), termFromLD(q.Predicate, blanks), termFromLD(q.Object, blanks)
			if s.IsZero() || p.IsZero() || o.IsZero() {
				continue
			}
			if err := fn(Triple{S: s, P: p, O: o}); err != nil {
				return err
			}
		}
	}
	return nil
}

func termFromLD(n ld.Node, blanks *blankScope) Term {
	switch v := n.(type) {
	case ld.IRI:
		return IRI(v.Value)
	case *ld.IRI:
		return IRI(v.Value)
	case ld.BlankNode:
		return blanks.label(strings.TrimPrefix(v.Attribute, "_:"))
	case *ld.BlankNode:
		return blanks.label(strings.TrimPrefix(v.Attribute, "_:"))
	case ld.Literal:
		return Literal(v.Value, v.Datatype, v.Language)
	case *ld.Literal:
		return Literal(v.Value, v.Datatype, v.Language)
	}
	return Term{}
}

func jsonError(data []byte, dec *json.Decoder, err error) error {
	off := int(dec.InputOffset())
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = int(se.Offset) - 1
	case errors.As(err, &te):
		off = int(te.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		off = len(data)
		err = errors.New("unexpected end of JSON input")
	}
	if off < 0 {
		off = 0
	}
	l, c := lineCol(data, off)
	return &SyntaxError{Format: JSONLD, Line: l, Col: c, Msg: "JSON: " + err.Error()}
}

// lineCol turns a byte offset into a 1-based line and column (in characters).
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	return line, 1 + len([]rune(string(data[start:off])))
}
