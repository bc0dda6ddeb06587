package web

import (
	"maps"
	"slices"
	"strconv"
)

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

func itoa(n int) string { return strconv.Itoa(n) }
