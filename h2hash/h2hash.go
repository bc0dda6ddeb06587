// Package h2hash computes the source_hash that Data.gov Harvesting 2.0 (GSA/datagov-harvester,
// "H2.0") stores, so that records imported from H2.0 (harvester import-h2) can be compared with
// what a source publishes now without a wave of updates.
//
// H2.0's hash of a JSON record is
//
//	sha256(json.dumps(json.dumps(sansjson.sort_pyobject(record))).encode("utf-8"))
//
// that is: the record sorted by sansjson 0.3.0 (object keys sorted, and arrays sorted too:
// scalars in Python's natural order, mixed arrays grouped None < bool < int < float < str <
// list < dict, arrays of objects by sansjson's own comparator, arrays directly inside arrays not
// re-sorted), dumped with Python's json.dumps defaults (", " and ": " separators, ensure_ascii,
// float repr), and the resulting string JSON-encoded a second time. JSON reproduces this
// byte for byte, including CPython's sort (count_run plus binary insertion) so that sansjson's
// comparator, which is not a consistent order in every case, decides as it does in Python on
// arrays of fewer than 64 elements. A record Python could not sort (sansjson raises, e.g.
// comparing two objects by an object-valued first key) is an error: H2.0 could not hash it
// either, so it has no H2.0 row to match.
//
// H2.0's hash of an XML record is sha256 of the JSON-encoded XML text (XML).
package h2hash

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// errType is Python's TypeError (or another exception) raised while sorting: the record cannot
// be hashed the way H2.0 does.
var errType = errors.New("not sortable as in Python")

// JSON returns H2.0's hex source_hash of the JSON record, or an error when record is not valid
// JSON or Python's sansjson could not sort it.
func JSON(record []byte) (string, error) {
	inner, err := Sorted(record)
	if err != nil {
		return "", err
	}
	var outer strings.Builder
	dumpString(&outer, inner)
	sum := sha256.Sum256([]byte(outer.String()))
	return hex.EncodeToString(sum[:]), nil
}

// Sorted returns the record as H2.0 stores it in source_raw: sansjson-sorted and dumped with
// Python's json.dumps defaults.
func Sorted(record []byte) (string, error) {
	v, err := decode(record)
	if err != nil {
		return "", err
	}
	sorted, err := sortValue(v)
	if err != nil {
		return "", fmt.Errorf("h2 hash: %w", err)
	}
	var b strings.Builder
	dumps(&b, sorted)
	return b.String(), nil
}

// XML returns H2.0's hex source_hash of an XML record's text: sha256 of json.dumps(text).
func XML(text string) string {
	var b strings.Builder
	dumpString(&b, text)
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// Values as Python's json.loads makes them: nil (None), bool, *big.Int (int), float64 (float),
// string (str), []any (list) and *dict.
type dict struct {
	keys []string // in insertion order (sorted once sansjson has sorted them)
	vals map[string]any
}

func decode(record []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(record))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("h2 hash: parse record: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("h2 hash: parse record: trailing data after the JSON value")
	}
	return convert(v)
}

func convert(v any) (any, error) {
	switch x := v.(type) {
	case map[string]any:
		d := &dict{keys: make([]string, 0, len(x)), vals: make(map[string]any, len(x))}
		for k, e := range x {
			c, err := convert(e)
			if err != nil {
				return nil, err
			}
			d.keys = append(d.keys, k)
			d.vals[k] = c
		}
		return d, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := convert(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case json.Number:
		s := x.String()
		if !strings.ContainsAny(s, ".eE") {
			i, ok := new(big.Int).SetString(s, 10)
			if !ok {
				return nil, fmt.Errorf("h2 hash: bad integer %q", s)
			}
			return i, nil
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, fmt.Errorf("h2 hash: bad number %q", s)
		}
		return f, nil // out of range is ±Inf, as Python's float() gives
	}
	return v, nil // nil, bool, string
}
