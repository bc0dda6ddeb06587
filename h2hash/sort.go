package h2hash

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// sortValue is sansjson.sort_pyobject: a dict or list sorted, anything else as it is.
func sortValue(v any) (any, error) {
	switch x := v.(type) {
	case *dict:
		return sortDict(x)
	case []any:
		return sortList(x)
	}
	return v, nil
}

// sortDict is Sorter.recursive_dict: keys sorted, dict and list values sorted recursively.
func sortDict(d *dict) (*dict, error) {
	keys := make([]any, len(d.keys))
	for i, k := range d.keys {
		keys[i] = k
	}
	sortedKeys, err := nonhomogenous(keys)
	if err != nil {
		return nil, err
	}
	out := &dict{keys: make([]string, len(sortedKeys)), vals: make(map[string]any, len(sortedKeys))}
	for i, k := range sortedKeys {
		key := k.(string)
		v, err := sortValue(d.vals[key])
		if err != nil {
			return nil, err
		}
		out.keys[i], out.vals[key] = key, v
	}
	return out, nil
}

// sortList is Sorter.sort of a list: its dict elements sorted (its list elements are not), then
// the list sorted by nonhomogenous.
func sortList(l []any) ([]any, error) {
	out := make([]any, len(l))
	for i, e := range l {
		if d, ok := e.(*dict); ok {
			s, err := sortDict(d)
			if err != nil {
				return nil, err
			}
			out[i] = s
			continue
		}
		out[i] = e
	}
	return nonhomogenous(out)
}

// typeOrder is sansjson's NONHOMOGENOUS_ORDER.
func typeOrder(v any) int {
	switch v.(type) {
	case nil:
		return 1
	case bool:
		return 2
	case *big.Int:
		return 3
	case float64:
		return 4
	case string:
		return 5
	case []any:
		return 6
	}
	return 8 // dict
}

// nonhomogenous is sansjson's nonhomogenous: sorted(l) in Python's natural order when every
// comparison it makes is allowed; otherwise the elements grouped by type in typeOrder, None
// kept in order, dicts sorted by dictSortKey and each other group sorted naturally (an error
// there is an error, as Python raises it).
func nonhomogenous(l []any) ([]any, error) {
	if out, err := pySort(l, lessNatural); err == nil {
		return out, nil
	} else if !errors.Is(err, errType) {
		return nil, err
	}
	groups := map[int][]any{}
	for _, e := range l {
		groups[typeOrder(e)] = append(groups[typeOrder(e)], e)
	}
	var out []any
	for _, t := range []int{1, 2, 3, 4, 5, 6, 8} {
		g := groups[t]
		if len(g) == 0 {
			continue
		}
		switch t {
		case 1:
			out = append(out, g...)
		case 8:
			s, err := pySort(g, lessDict)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		default:
			s, err := pySort(g, lessNatural)
			if err != nil {
				return nil, err
			}
			out = append(out, s...)
		}
	}
	return out, nil
}

// pySort is CPython's list.sort as it runs on a list of fewer than 64 elements (one run found by
// count_run, extended by binary insertion), on a copy of l; less is Python's "<". A list of 64 or
// more elements is sorted the same way, which gives CPython's result whenever less is a
// consistent order (timsort's merges only differ on inconsistent ones).
func pySort(l []any, less func(a, b any) (bool, error)) ([]any, error) {
	a := slices.Clone(l)
	n := len(a)
	if n < 2 {
		return a, nil
	}
	// count_run
	run := 2
	desc, err := less(a[1], a[0])
	if err != nil {
		return nil, err
	}
	for i := 2; i < n; i++ {
		lt, err := less(a[i], a[i-1])
		if err != nil {
			return nil, err
		}
		if lt != desc {
			break
		}
		run++
	}
	if desc {
		slices.Reverse(a[:run])
	}
	// binarysort(lo, hi, lo+run)
	for start := run; start < n; start++ {
		pivot := a[start]
		l, r := 0, start
		for l < r {
			p := l + (r-l)>>1
			lt, err := less(pivot, a[p])
			if err != nil {
				return nil, err
			}
			if lt {
				r = p
			} else {
				l = p + 1
			}
		}
		copy(a[l+1:start+1], a[l:start])
		a[l] = pivot
	}
	return a, nil
}

// number is a Python bool, int or float as an exact value; ok is false for anything else.
func number(v any) (*big.Float, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewFloat(1), true
		}
		return big.NewFloat(0), true
	case *big.Int:
		return new(big.Float).SetPrec(uint(max(x.BitLen(), 64))).SetInt(x), true
	case float64:
		if math.IsNaN(x) {
			return nil, false
		}
		return big.NewFloat(x), true
	}
	return nil, false
}

// lessNatural is Python's a < b on JSON values; comparing types Python cannot order is errType.
func lessNatural(a, b any) (bool, error) {
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			return x.Cmp(y) < 0, nil
		}
		return false, errType
	}
	switch x := a.(type) {
	case string:
		if y, ok := b.(string); ok {
			return x < y, nil // UTF-8 byte order is code point order
		}
	case []any:
		if y, ok := b.([]any); ok {
			for i := 0; i < len(x) && i < len(y); i++ {
				if !equal(x[i], y[i]) {
					return lessNatural(x[i], y[i])
				}
			}
			return len(x) < len(y), nil
		}
	}
	return false, errType
}

// equal is Python's a == b on JSON values (1 == 1.0 == True).
func equal(a, b any) bool {
	if x, ok := number(a); ok {
		y, ok := number(b)
		return ok && x.Cmp(y) == 0
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case *dict:
		y, ok := b.(*dict)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for _, k := range x.keys {
			w, ok := y.vals[k]
			if !ok || !equal(x.vals[k], w) {
				return false
			}
		}
		return true
	}
	return false
}

// lessDict is cmp_to_key(dict_sort_key): dict_sort_key(a, b) < 0.
func lessDict(a, b any) (bool, error) {
	c, list, err := dictSortKey(a, b)
	if err != nil {
		return false, err
	}
	if list != nil {
		return false, errType // a list < 0: TypeError
	}
	return c < 0, nil
}

// dictSortKey is sansjson's dict_sort_key(a, b): -1, 0 or 1; or, when both are lists, their
// concatenation sorted by it ("WORST NIGHTMARE"). Anything Python raises on is an error.
func dictSortKey(a, b any) (int, []any, error) {
	la, aList := a.([]any)
	lb, bList := b.([]any)
	da, aDict := a.(*dict)
	db, bDict := b.(*dict)
	if aList && bList {
		s, err := pySort(append(slices.Clone(la), lb...), lessDict)
		return 0, s, err
	}
	if !aDict || !bDict {
		return 0, nil, fmt.Errorf("%w: dict_sort_key on a %T and a %T", errType, a, b)
	}
	// The recursion deletes the first key of both copies when their values are equal: walk both
	// key lists from the same offset instead.
	for i := 0; ; i++ {
		switch {
		case i >= len(da.keys) && i >= len(db.keys):
			return 0, nil, nil
		case i >= len(da.keys):
			return -1, nil, nil
		case i >= len(db.keys):
			return 1, nil, nil
		}
		ka, kb := da.keys[i], db.keys[i]
		if ka != kb {
			if ka > kb {
				return 1, nil, nil
			}
			return -1, nil, nil
		}
		va, vb := da.vals[ka], db.vals[kb]
		ta, tb := typeOrder(va), typeOrder(vb)
		if ta != tb {
			if ta > tb {
				return 1, nil, nil
			}
			return -1, nil, nil
		}
		if equal(va, vb) {
			continue
		}
		return differing(va, vb)
	}
}

// differing is dict_sort_key's answer for two first values of one type that are not equal.
func differing(va, vb any) (int, []any, error) {
	xa, aList := va.([]any)
	xb, bList := vb.([]any)
	if aList && bList {
		if len(xa) == 0 || len(xb) == 0 {
			return 0, nil, fmt.Errorf("%w: index of an empty list", errType)
		}
		a0, ok0 := xa[0].(*dict)
		b0, ok1 := xb[0].(*dict)
		if !ok0 || !ok1 {
			return 0, nil, nil
		}
		_, smallest, err := dictSortKey(xa, xb)
		if err != nil {
			return 0, nil, err
		}
		for _, items := range smallest {
			d, ok := items.(*dict)
			if !ok {
				return 0, nil, fmt.Errorf("%w: items() of a %T", errType, items)
			}
			for _, key := range d.keys {
				value := d.vals[key]
				if av, ok := a0.vals[key]; ok {
					if equal(av, value) {
						if _, inB := b0.vals[key]; !inB {
							return -1, nil, nil
						}
					}
				} else if bv, ok := b0.vals[key]; ok {
					if equal(bv, value) {
						return 1, nil, nil
					}
				}
			}
		}
		return 0, nil, nil
	}
	if _, ok := va.(*dict); ok {
		return 0, nil, fmt.Errorf("%w: '>' between dicts", errType)
	}
	gt, err := lessNatural(vb, va)
	if err != nil {
		return 0, nil, err
	}
	if gt {
		return 1, nil, nil
	}
	lt, err := lessNatural(va, vb)
	if err != nil {
		return 0, nil, err
	}
	if lt {
		return -1, nil, nil
	}
	return 0, nil, nil
}
