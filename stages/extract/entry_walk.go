package extract

import (
	"encoding/json"
	"errors"
	"io"
	"slices"
)

// checkCatalog walks the catalog document in r as WalkCatalog does, only to find what is wrong
// with it: each record is scanned, not copied. Unlike WalkCatalog, it refuses a DCAT-US 3.0
// catalog (ErrDCATUS3): a job reads DCAT-US 1.1 only.
func checkCatalog(r io.Reader) error {
	return walkDocument(r, nil, newShapeGuard(nil, false), true, func(dec *json.Decoder, _ int) error {
		if err := dec.Decode(new(skipValue)); err != nil {
			return parseErr(err)
		}
		return nil
	})
}

// skipValue is a JSON value decoded only to be checked.
type skipValue struct{}

func (*skipValue) UnmarshalJSON([]byte) error { return nil }

// walkEntries walks the catalog document in r as WalkCatalog does, calling fn with each element
// identified (Identify): it decodes each element once into its keyFields, and takes its raw
// bytes from what the decoder read, instead of decoding it into a json.RawMessage and decoding
// that again (half the passes over every record). An element that repeats a key or nests too
// deeply has Entry.Structure set. fn may keep the Entry.
func walkEntries(r io.Reader, fn func(e Entry) error) error {
	rec := new(recorder)
	g := newShapeGuard(nil, true)
	return walkDocument(r, rec, g, false, func(dec *json.Decoder, pos int) error {
		from := dec.InputOffset()
		var d keyFields
		err := dec.Decode(&d)
		var typeErr *json.UnmarshalTypeError
		if err != nil && !errors.As(err, &typeErr) { // a type error is the record's, past its end
			return parseErr(err)
		}
		to := dec.InputOffset()
		raw := json.RawMessage(slices.Clone(trimSeparator(rec.bytes(from, to))))
		rec.forget(to)
		e := identify(pos, raw, &d, err)
		e.Structure = g.problem(from, to)
		return fn(e)
	})
}

// trimSeparator returns b without the white space and the comma that separate an array's
// elements before it.
func trimSeparator(b []byte) []byte {
	for len(b) > 0 && (b[0] == ',' || b[0] == ' ' || b[0] == '\t' || b[0] == '\n' || b[0] == '\r') {
		b = b[1:]
	}
	return b
}

// recorder is the reader of a json.Decoder that keeps what the decoder read, from the last
// offset it was told to forget up to, so that the bytes of a value just decoded can be had
// (InputOffset before and after). A nil recorder keeps nothing.
type recorder struct {
	r    io.Reader
	buf  []byte
	base int64 // offset in the stream of buf[0]
}

func (rc *recorder) Read(p []byte) (int, error) {
	n, err := rc.r.Read(p)
	rc.buf = append(rc.buf, p[:n]...)
	return n, err
}

// bytes returns the stream from offset from to offset to, which must not be forgotten yet; they
// stay valid until the next Read or forget.
func (rc *recorder) bytes(from, to int64) []byte {
	return rc.buf[from-rc.base : to-rc.base]
}

// forget drops what comes before offset, keeping what the decoder read beyond it.
func (rc *recorder) forget(offset int64) {
	if rc == nil {
		return
	}
	n := copy(rc.buf, rc.buf[offset-rc.base:])
	rc.buf = rc.buf[:n]
	rc.base = offset
}
