package dcatus

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// decodeInstance decodes record into the value the JSON Schema library validates, the shape
// of jsonschema.UnmarshalJSON (encoding/json with UseNumber): map[string]any, []any, string,
// json.Number (the number as written), bool and nil.
//
// It streams the record through a JSON tokenizer (jsontext, the upstream of Go's
// encoding/json/v2) instead of encoding/json's decoder, which scans every value twice (once
// to find its end, once to decode it), and takes the DCAT-US member names from one table
// instead of allocating each. The tokenizer is strict: a record it refuses (invalid UTF-8, a
// lone surrogate escape, trailing data, anything not JSON) is decoded by
// jsonschema.UnmarshalJSON, the reference, whose value for those inputs (U+FFFD for bad
// bytes) and whose errors the stream does not try to copy. A repeated member name is let
// through, and the last one wins, as in the reference. For every record the stream accepts,
// its value is the reference's (TestInstanceStreamMatchesReference over the corpus,
// FuzzInstanceStream), so every record gets the same problems and messages as before; the
// stream costs about half of the reference (BenchmarkDecodeInstance).
func decodeInstance(record []byte) (any, error) {
	if v, err := streamInstance(record); err == nil {
		return v, nil
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(record))
}

// errInstanceTrailing is streamInstance's refusal of data after the value.
var errInstanceTrailing = errors.New("data after the JSON value")

// instanceReader is a pooled tokenizer and the buffer it reads a record from in place.
type instanceReader struct {
	dec jsontext.Decoder
	buf bytes.Buffer
}

var instanceReaders = sync.Pool{New: func() any { return new(instanceReader) }}

// streamInstance is decodeInstance by streaming tokens; it fails on anything the tokenizer
// refuses.
func streamInstance(record []byte) (any, error) {
	r := instanceReaders.Get().(*instanceReader)
	defer func() {
		r.buf = bytes.Buffer{} // keep no reference to record
		r.dec.Reset(&r.buf)
		instanceReaders.Put(r)
	}()
	r.buf = *bytes.NewBuffer(record)
	// A bytes.Buffer is read in place, not copied. Repeated names are the reference's to
	// resolve (the last wins), which the map assignment below does too.
	r.dec.Reset(&r.buf, jsontext.AllowDuplicateNames(true))
	v, err := instanceValue(&r.dec)
	if err != nil {
		return nil, err
	}
	if _, err := r.dec.ReadToken(); err != io.EOF {
		return nil, errInstanceTrailing
	}
	return v, nil
}

// instanceValue decodes the next value of dec.
func instanceValue(dec *jsontext.Decoder) (any, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		obj := map[string]any{}
		for dec.PeekKind() != '}' {
			key, err := memberName(dec)
			if err != nil {
				return nil, err
			}
			v, err := instanceValue(dec)
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return obj, nil
	case '[':
		arr := []any{} // encoding/json gives an empty array as a non-nil slice too
		for dec.PeekKind() != ']' {
			v, err := instanceValue(dec)
			if err != nil {
				return nil, err
			}
			arr = append(arr, v)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		return arr, nil
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil // the number as written, as UseNumber keeps it
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return nil, errors.New("unexpected JSON token") // not reached: ReadToken gives only the kinds above
}

// memberName reads an object member's name from dec: a DCAT-US property's from
// dcatusNames, without allocating it.
func memberName(dec *jsontext.Decoder) (string, error) {
	raw, err := dec.ReadValue()
	if err != nil {
		return "", err
	}
	if raw.Kind() != '"' {
		return "", errors.New("object member name is not a string") // not reached: the tokenizer refuses it
	}
	if quoted := raw[1 : len(raw)-1]; bytes.IndexByte(quoted, '\\') < 0 {
		if name, ok := dcatusNames[string(quoted)]; ok {
			return name, nil
		}
		return string(quoted), nil
	}
	name, err := jsontext.AppendUnquote(nil, raw)
	return string(name), err
}

// dcatusNames holds the member names of DCAT-US 1.1 records (the schemas' properties).
var dcatusNames = map[string]string{}

func init() {
	for _, name := range []string{"@type", "accessLevel", "accessURL", "accrualPeriodicity", "bureauCode",
		"conformsTo", "contactPoint", "coordinates", "dataQuality", "describedBy", "describedByType",
		"description", "distribution", "downloadURL", "fn", "format", "hasEmail", "identifier", "isPartOf",
		"issued", "keyword", "landingPage", "language", "license", "mediaType", "modified", "name",
		"primaryITInvestmentUII", "programCode", "publisher", "references", "rights", "spatial",
		"subOrganizationOf", "systemOfRecords", "temporal", "theme", "title", "type"} {
		dcatusNames[name] = name
	}
}
