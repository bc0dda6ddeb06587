package rdf

import (
	"errors"
	"io"

	krdf "github.com/knakk/rdf"
)

// parseKnakk parses Turtle, N-Triples or N-Quads with github.com/knakk/rdf.
func parseKnakk(r io.Reader, f Format, base string, fn func(Triple) error) error {
	if f == NQuads {
		dec := krdf.NewQuadDecoder(r, krdf.NQuads)
		for {
			q, err := dec.Decode()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return &SyntaxError{Format: f, Msg: err.Error()}
			}
			if err := fn(fromKnakk(q.Triple)); err != nil {
				return err
			}
		}
	}
	kf := krdf.Turtle
	if f == NTriples {
		kf = krdf.NTriples
	}
	dec := krdf.NewTripleDecoder(r, kf)
	if base != "" {
		dec.SetOption(krdf.Base, krdf.IRI{})
		if iri, err := krdf.NewIRI(base); err == nil {
			dec.SetOption(krdf.Base, iri)
		}
	}
	for {
		t, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &SyntaxError{Format: f, Msg: err.Error()}
		}
		if err := fn(fromKnakk(t)); err != nil {
			return err
		}
	}
}

func fromKnakk(t krdf.Triple) Triple {
	return Triple{S: termFromKnakk(t.Subj), P: termFromKnakk(t.Pred), O: termFromKnakk(t.Obj)}
}

func termFromKnakk(t krdf.Term) Term {
	switch v := t.(type) {
	case krdf.IRI:
		return IRI(v.String())
	case krdf.Blank:
		return Blank(v.String()[2:])
	case krdf.Literal:
		return Literal(v.String(), v.DataType.String(), v.Lang())
	}
	return Term{}
}
