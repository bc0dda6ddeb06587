package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
)

// fieldChange is one difference between two versions of a record: the JSON path of the field
// (e.g. "title", "distribution[0].downloadURL"), added, removed or changed, and the values as
// compact JSON.
type fieldChange struct {
	Path     string
	Kind     string // "added", "removed" or "changed"
	Old, New string
}

// maxDiffChanges caps the differences listed: a rewritten record does not list thousands.
const maxDiffChanges = 500

// diffJSON compares two JSON documents field by field: objects by member (sorted), arrays by
// position, anything else by value. An error when either is not JSON.
func diffJSON(oldData, newData []byte) ([]fieldChange, error) {
	var a, b any
	if err := decode(oldData, &a); err != nil {
		return nil, fmt.Errorf("previous version: %w", err)
	}
	if err := decode(newData, &b); err != nil {
		return nil, fmt.Errorf("this version: %w", err)
	}
	var out []fieldChange
	diffValue("", a, b, &out)
	return out, nil
}

func decode(data []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func diffValue(path string, a, b any, out *[]fieldChange) {
	if len(*out) >= maxDiffChanges {
		return
	}
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			keys := sortedKeys(av)
			for k := range bv {
				if _, ok := av[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range slices.Compact(keys) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				x, inA := av[k]
				y, inB := bv[k]
				switch {
				case !inA:
					*out = append(*out, fieldChange{Path: p, Kind: "added", New: compact(y)})
				case !inB:
					*out = append(*out, fieldChange{Path: p, Kind: "removed", Old: compact(x)})
				default:
					diffValue(p, x, y, out)
				}
			}
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			for i := range max(len(av), len(bv)) {
				p := path + "[" + strconv.Itoa(i) + "]"
				switch {
				case i >= len(av):
					*out = append(*out, fieldChange{Path: p, Kind: "added", New: compact(bv[i])})
				case i >= len(bv):
					*out = append(*out, fieldChange{Path: p, Kind: "removed", Old: compact(av[i])})
				default:
					diffValue(p, av[i], bv[i], out)
				}
			}
			return
		}
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, fieldChange{Path: cmpOr(path, "(whole record)"), Kind: "changed", Old: compact(a), New: compact(b)})
	}
}

func compact(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}
