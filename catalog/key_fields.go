package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// decodeKeyFields decodes a dataset's keyFields from raw, as json.Unmarshal(raw, d) does, and
// returns json.Unmarshal's error.
//
// It streams the record's top-level members through a JSON tokenizer (jsontext, the upstream
// of Go's encoding/json/v2), skipping every member but "identifier" and "title", instead of
// encoding/json's two passes over the whole record (validate, then decode). Member names match
// as encoding/json matches field names, without regard to case (bytes.EqualFold), the last
// match winning. A record the stream refuses (not an object, invalid UTF-8, a lone surrogate
// escape, anything not JSON) is decoded by json.Unmarshal, the reference, whose value and error
// for it the stream does not try to copy; so is a record whose title is a number, an object or
// an array (a number out of float64's range is an error there). For every record the stream
// accepts, d is the reference's, but for a title of true or false, which the stream leaves nil
// (identify reads only a string title), and identify makes the same Entry of both
// (TestKeyFieldsStreamMatchesReference over the corpus, FuzzKeyFieldsStream).
func decodeKeyFields(raw []byte, d *keyFields) error {
	if streamKeyFields(raw, d) == nil {
		return nil
	}
	*d = keyFields{}
	return json.Unmarshal(raw, d)
}

// keyFieldsReader is a pooled tokenizer and the buffer it reads a record from in place.
type keyFieldsReader struct {
	dec jsontext.Decoder
	buf bytes.Buffer
}

var keyFieldsReaders = sync.Pool{New: func() any { return new(keyFieldsReader) }}

// The stream's refusals, which send a record to the reference.
var (
	errNotObject    = errors.New("not a JSON object")
	errTitleShape   = errors.New("title is a number, an object or an array")
	errTrailingData = errors.New("data after the JSON value")
)

// streamKeyFields is decodeKeyFields by streaming tokens; it fails on anything the tokenizer
// refuses, and on a record that is not an object.
func streamKeyFields(raw []byte, d *keyFields) error {
	r := keyFieldsReaders.Get().(*keyFieldsReader)
	defer func() {
		r.buf = bytes.Buffer{} // keep no reference to raw
		r.dec.Reset(&r.buf)
		keyFieldsReaders.Put(r)
	}()
	r.buf = *bytes.NewBuffer(raw) // a bytes.Buffer is read in place, not copied
	r.dec.Reset(&r.buf, jsontext.AllowDuplicateNames(true))
	dec := &r.dec
	if dec.PeekKind() != '{' {
		return errNotObject
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var identifier jsontext.Value
	var title any
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		switch key := name.String(); { // read before the next token invalidates name
		case strings.EqualFold(key, "identifier"):
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			identifier = bytes.Clone(v)
		case strings.EqualFold(key, "title"):
			switch dec.PeekKind() {
			case '"':
				v, err := dec.ReadToken()
				if err != nil {
					return err
				}
				title = v.String()
			case 'n', 't', 'f': // not a string: identify does not read it
				if err := dec.SkipValue(); err != nil {
					return err
				}
				title = nil
			default: // a number, or one inside, may be out of float64's range: an error to the reference
				return errTitleShape
			}
		default:
			if err := dec.SkipValue(); err != nil {
				return err
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return errTrailingData
	}
	d.Identifier, d.Title = json.RawMessage(identifier), title
	return nil
}
