package portal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/harvester-dev/harvester/dcatus"
)

// DKAN maps one DKAN 2 metastore dataset (a DCAT-US 1.1 dataset as DKAN serves it) to a
// DCAT-US 1.1 dataset object: the dataset itself with DKAN's additions undone. With
// show-reference-ids DKAN wraps keyword, theme, publisher and each distribution (and any other
// referenced value) as {identifier, data}: each wrapper is replaced by its data. Members DKAN
// adds whose names start with "%" ("%modified", "%Ref:downloadURL") are dropped. identifier,
// the record's harvest identifier ("<portal base URL>/dataset/<identifier>"), replaces the
// dataset's identifier, and the portal page is its landingPage when it has none; accessLevel
// "public" is set when missing. Keys are written sorted.
func DKAN(body []byte, identifier string) ([]byte, []Warning, error) {
	var d map[string]json.RawMessage
	if err := json.Unmarshal(body, &d); err != nil || d == nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNotItem, err)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNotItem, err)
	}
	obj := unwrapDKAN(v).(map[string]any)
	obj["identifier"] = identifier
	if _, ok := obj["accessLevel"]; !ok {
		obj["accessLevel"] = "public"
	}
	if _, ok := obj["landingPage"]; !ok && isURL(identifier) {
		obj["landingPage"] = identifier
	}
	out, err := dcatus.Encode(obj)
	return out, nil, err
}

// unwrapDKAN replaces every {identifier, data} wrapper under v by its data and drops members
// named "%…".
func unwrapDKAN(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if data, ok := x["data"]; ok && len(x) == 2 {
			if _, ok := x["identifier"]; ok {
				return unwrapDKAN(data)
			}
		}
		for k, el := range x {
			if strings.HasPrefix(k, "%") {
				delete(x, k)
				continue
			}
			x[k] = unwrapDKAN(el)
		}
		return x
	case []any:
		for i, el := range x {
			x[i] = unwrapDKAN(el)
		}
		return x
	}
	return v
}
