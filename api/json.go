package api

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
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

// readBody returns the request body (capped by endpoint's MaxBytesReader), once checkContentType
// has let it through.
func readBody(r *http.Request) ([]byte, error) {
	if err := checkContentType(r); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r.Body)
	var mbe *http.MaxBytesError
	if err != nil && !errors.As(err, &mbe) {
		return nil, errorf(http.StatusBadRequest, "read the request body: %v", err)
	}
	return data, err
}

// checkContentType refuses, with 415, a request body whose Content-Type is not
// application/json: the OpenAPI document declares no other media type. Parameters such as
// charset are allowed; a body without a Content-Type is read as JSON, and a request without a
// body passes whatever it says.
func checkContentType(r *http.Request) error {
	values := r.Header.Values("Content-Type")
	if r.ContentLength == 0 || len(values) == 0 {
		return nil
	}
	if len(values) == 1 {
		if mt, _, err := mime.ParseMediaType(values[0]); err == nil && mt == "application/json" {
			return nil
		}
	}
	return errorf(http.StatusUnsupportedMediaType, "unsupported Content-Type %q: send the body as application/json",
		strings.Join(values, ", "))
}

// decodeObject decodes a JSON object into v, a pointer to a struct with json tags. Malformed
// JSON, or JSON that is not an object, is a 400 error; members v does not have, members of the
// wrong type, null members and strings that hold a NUL (checkStrings) are recorded in fields, so
// that they are answered with the other bad fields. A member may be null only when its field can
// hold null (a pointer, a slice: the OpenAPI document marks those nullable); null for any other
// field is refused rather than read as the field's default, which only omitting the member means.
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
	known := jsonFields(reflect.TypeOf(v).Elem())
	for name, raw := range members {
		t, ok := known[name]
		switch {
		case !ok:
			fields.add(name, "unknown field")
		case string(bytes.TrimSpace(raw)) == "null" && !nullable(t):
			fields.add(name, "must not be null: leave the member out for its default")
		}
	}
	if err := json.Unmarshal(data, v); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return errorf(http.StatusBadRequest, "malformed JSON body: %v", err)
		}
		fields.add(cmp.Or(te.Field, "body"), "must be %s, not %s", kindName(te.Type), te.Value)
	}
	checkStrings(reflect.ValueOf(v).Elem(), fields)
	return nil
}

// checkStrings records in fields each string member of a decoded body (string, *string,
// []string) that holds a NUL (storableText): \u0000 decodes to one, and no Postgres text
// column holds it. Bytes that are not UTF-8 cannot arrive this way: encoding/json reads them
// as U+FFFD.
func checkStrings(v reflect.Value, fields fieldErrors) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		fv := v.Field(i)
		var texts []string
		switch {
		case fv.Kind() == reflect.String:
			texts = []string{fv.String()}
		case fv.Kind() == reflect.Pointer && !fv.IsNil() && fv.Elem().Kind() == reflect.String:
			texts = []string{fv.Elem().String()}
		case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
			for j := range fv.Len() {
				texts = append(texts, fv.Index(j).String())
			}
		}
		for _, text := range texts {
			if msg := storableText(text); msg != "" {
				fields.add(cmp.Or(name, f.Name), "%s", msg)
			}
		}
	}
}

// jsonFields returns the member names a struct type decodes, with the type of each one's field.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	names := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "-" && f.IsExported() {
			names[cmp.Or(name, f.Name)] = f.Type
		}
	}
	return names
}

// nullable says whether a field of type t can hold a JSON null (json.RawMessage is a slice).
func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		return true
	}
	return false
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

// filtered is a store list's answer to a list request filtered by an id: store.ErrNotFound (an
// id Postgres cannot read as a uuid, so nothing has it) is an empty list; another error is
// wrapped "list <what>: …".
func filtered[T any](what string, items []T, total int, err error) ([]T, int, error) {
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("list %s: %w", what, err)
	}
	return items, total, nil
}

// paging is a list request's page (1-based) and page size.
type paging struct {
	page, perPage int
}

const (
	defaultPerPage = 20
	maxPerPage     = 100
)

// maxPage is the largest page number: the OpenAPI document's maximum of the page parameter.
const maxPage = math.MaxInt32

// pagingParams are the query parameters parsePaging reads.
var pagingParams = []string{"page", "per_page"}

// parsePaging reads ?page= (default 1, at most maxPage) and ?per_page= (default 20, at most
// 100) from a query that readQuery read with pagingParams.
func parsePaging(q query, fields fieldErrors) paging {
	pg := paging{page: 1, perPage: defaultPerPage}
	pg.page = intParam(q, "page", pg.page, 1, maxPage, fields)
	pg.perPage = intParam(q, "per_page", pg.perPage, 1, maxPerPage, fields)
	return pg
}

// intParam reads an integer parameter from lo to hi; an absent one (or one readQuery refused)
// is def.
func intParam(q query, name string, def, lo, hi int, fields fieldErrors) int {
	s, ok := q[name]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		fields.add(name, "must be an integer from %d to %d", lo, hi)
		return def
	}
	return n
}

// parseListQuery reads the query of a list that downloads as CSV too: paging (parsePaging) and
// ?format=, "" or "json" for a page of JSON, "csv" for every row. An unknown parameter, a bad
// page or another format is a 422 fieldErrors.
func parseListQuery(r *http.Request) (pg paging, asCSV bool, err error) {
	fields := fieldErrors{}
	q := readQuery(r, fields, append([]string{"format"}, pagingParams...)...)
	pg = parsePaging(q, fields)
	format := q["format"]
	if format != "" && format != "json" && format != "csv" {
		fields.add("format", "unknown format %q: want json or csv", format)
	}
	return pg, format == "csv", fields.err()
}

func (pg paging) params() store.PageParams {
	return store.PageParams{Limit: pg.perPage, Offset: (pg.page - 1) * pg.perPage}
}

// slice returns the page's part of items, for lists the store does not page.
func slicePage[T any](items []T, pg paging) []T {
	start := min(len(items), (pg.page-1)*pg.perPage)
	return items[start:min(len(items), start+pg.perPage)]
}
