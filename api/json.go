package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"

	"github.com/harvester-dev/harvester/store"
)

// writeJSON answers v with status. v is marshalled before anything is written, so a value
// that cannot be marshalled is still answered with a clean 500.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("marshal response: %w", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n')) // a client that went away cannot be answered anyway
	return nil
}

// readBody returns the request body (capped by endpoint's MaxBytesReader).
func readBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	if err != nil && !errors.As(err, &mbe) {
		return nil, errorf(http.StatusBadRequest, "read the request body: %v", err)
	}
	return data, err
}

// decodeObject decodes a JSON object into v, a pointer to a struct with json tags. Malformed
// JSON, or JSON that is not an object, is a 400 error; members v does not have and members of
// the wrong type are recorded in fields, so that they are answered with the other bad fields.
func decodeObject(data []byte, v any, fields fieldErrors) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errorf(http.StatusBadRequest, "the request body is empty: send a JSON object")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil || members == nil {
		var te *json.UnmarshalTypeError
		if err == nil || errors.As(err, &te) {
			return errorf(http.StatusBadRequest, "malformed JSON body: the body must be a JSON object")
		}
		return errorf(http.StatusBadRequest, "malformed JSON body: %v", err)
	}
	known := jsonNames(reflect.TypeOf(v).Elem())
	for name := range members {
		if !known[name] {
			fields.add(name, "unknown field")
		}
	}
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return errorf(http.StatusBadRequest, "malformed JSON body: %v", err)
		}
		fields.add(cmp.Or(te.Field, "body"), "must be %s, not %s", kindName(te.Type), te.Value)
	}
	return nil
}

// jsonNames returns the member names a struct type decodes.
func jsonNames(t reflect.Type) map[string]bool {
	names := map[string]bool{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "-" && f.IsExported() {
			names[cmp.Or(name, f.Name)] = true
		}
	}
	return names
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(kindName(t.Elem()), "a "), "an ") + "s"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "a " + t.String()
}

// list is the envelope of every list response.
type list[T any] struct {
	Items   []T `json:"items"`
	Total   int `json:"total"`
	Page    int `json:"page"`
	PerPage int `json:"per_page"`
}

func newList[T any](items []T, total int, pg paging) list[T] {
	if items == nil {
		items = []T{} // [] rather than null
	}
	return list[T]{Items: items, Total: total, Page: pg.page, PerPage: pg.perPage}
}

// paging is a list request's page (1-based) and page size.
type paging struct {
	page, perPage int
}

const (
	defaultPerPage = 20
	maxPerPage     = 100
)

// parsePaging reads ?page= (default 1) and ?per_page= (default 20, at most 100).
func parsePaging(q url.Values, fields fieldErrors) paging {
	pg := paging{page: 1, perPage: defaultPerPage}
	pg.page = intParam(q, "page", pg.page, 1, math.MaxInt32, fields)
	pg.perPage = intParam(q, "per_page", pg.perPage, 1, maxPerPage, fields)
	return pg
}

func intParam(q url.Values, name string, def, lo, hi int, fields fieldErrors) int {
	s := q.Get(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		fields.add(name, "must be an integer from %d to %d", lo, hi)
		return def
	}
	return n
}

func (pg paging) params() store.PageParams {
	return store.PageParams{Limit: pg.perPage, Offset: (pg.page - 1) * pg.perPage}
}

// slice returns the page's part of items, for lists the store does not page.
func slicePage[T any](items []T, pg paging) []T {
	start := min(len(items), (pg.page-1)*pg.perPage)
	return items[start:min(len(items), start+pg.perPage)]
}
