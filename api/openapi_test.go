package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// openAPIDoc is the embedded document, parsed once.
var openAPIDoc = sync.OnceValues(func() (map[string]any, error) {
	var doc map[string]any
	err := json.Unmarshal(openAPIDocument, &doc)
	return doc, err
})

func loadOpenAPI(t *testing.T) map[string]any {
	t.Helper()
	doc, err := openAPIDoc()
	require.NoError(t, err)
	return doc
}

var httpMethods = []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}

// operations returns the document's operations by "METHOD /path".
func operations(t *testing.T, doc map[string]any) map[string]map[string]any {
	t.Helper()
	ops := map[string]map[string]any{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if slices.Contains(httpMethods, method) {
				ops[strings.ToUpper(method)+" "+path] = op.(map[string]any)
			}
		}
	}
	return ops
}

// TestOpenAPIMatchesRoutes holds the route table, the mux and the document together: the same
// (method, path) pairs, each resolving to its own pattern, with matching path parameters and
// security.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	doc := loadOpenAPI(t)
	require.Equal(t, "3.0.3", doc["openapi"])
	ops := operations(t, doc)

	var table []string
	for _, rt := range documentedRoutes(b.api.table) {
		table = append(table, rt.pattern)
	}
	require.ElementsMatch(t, table, slices.Collect(maps.Keys(ops)), "route table and OpenAPI document")

	wildcard := regexp.MustCompile(`\{([^}]+)\}`)
	ids := map[string]bool{}
	for _, rt := range documentedRoutes(b.api.table) {
		method, path := routePath(rt.pattern)
		_, pattern := b.api.mux.Handler(httptest.NewRequest(method, path, nil))
		require.Equal(t, rt.pattern, pattern, "the mux routes the documented pair to its pattern")

		op := ops[rt.pattern]
		id, _ := op["operationId"].(string)
		require.NotEmpty(t, id, rt.pattern)
		require.False(t, ids[id], "operationId %s is unique", id)
		ids[id] = true
		require.NotEmpty(t, op["responses"], rt.pattern)

		var declared []string
		for _, p := range asSlice(op["parameters"]) {
			param := resolve(t, doc, p)
			if param["in"] == "path" {
				declared = append(declared, param["name"].(string))
				require.Equal(t, true, param["required"], "%s: path parameters are required", rt.pattern)
			}
		}
		var inPath []string
		for _, m := range wildcard.FindAllStringSubmatch(rt.pattern, -1) {
			inPath = append(inPath, m[1])
		}
		require.ElementsMatch(t, inPath, declared, "%s: path parameters", rt.pattern)

		security := fmt.Sprint(op["security"])
		switch rt.access {
		case open:
			require.Equal(t, "[]", security, rt.pattern)
		case read:
			require.Equal(t, "[map[] map[apiKey:[]] map[bearer:[]]]", security, rt.pattern)
		case write:
			require.Equal(t, "[map[apiKey:[]] map[bearer:[]]]", security, rt.pattern)
			require.Contains(t, op["responses"], "401", rt.pattern)
		}
	}
}

func TestOpenAPIReferencesResolve(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	var walk func(v any)
	n := 0
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				resolve(t, doc, v)
				require.Len(t, v, 1, "%s: nothing beside $ref", ref)
				n++
			}
			for _, e := range v {
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	require.Greater(t, n, 50)
}

func TestOpenAPIServed(t *testing.T) {
	t.Parallel()
	b := setup(t, func(c *Config, _ *Deps) { c.ProtectReads = true })
	r := b.get(t, "/api/v1/openapi.json")
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, "application/json", r.header.Get("Content-Type"))
	require.Equal(t, openAPIDocument, r.body)
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// resolve follows a {"$ref": "#/components/..."} to its target; other values are returned.
func resolve(t *testing.T, doc map[string]any, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	require.True(t, ok, "%v is an object", v)
	ref, ok := m["$ref"].(string)
	if !ok {
		return m
	}
	var cur any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		obj, _ := cur.(map[string]any)
		cur, ok = obj[part]
		require.True(t, ok, "$ref %s resolves", ref)
	}
	return resolve(t, doc, cur)
}

// requireSchema checks a decoded JSON response against a schema of the document's components:
// required members present, no member the schema does not list, types, enums and nullability.
// It keeps the document honest about what the handlers really send.
func requireSchema(t *testing.T, name string, v any) {
	t.Helper()
	doc := loadOpenAPI(t)
	require.NoError(t, conform(t, doc, map[string]any{"$ref": "#/components/schemas/" + name}, v, "$"))
}

func conform(t *testing.T, doc, schema map[string]any, v any, at string) error {
	schema = resolve(t, doc, schema)
	if alts, ok := schema["oneOf"].([]any); ok {
		for _, alt := range alts {
			if conform(t, doc, alt.(map[string]any), v, at) == nil {
				return nil
			}
		}
		return fmt.Errorf("%s: matches no oneOf alternative", at)
	}
	if v == nil {
		if schema["nullable"] == true || schema["type"] == nil {
			return nil
		}
		return fmt.Errorf("%s: null, but the schema is not nullable", at)
	}
	if enum, ok := schema["enum"].([]any); ok && !slices.Contains(enum, v) {
		return fmt.Errorf("%s: %v is not one of %v", at, v, enum)
	}
	switch schema["type"] {
	case "object":
		return conformObject(t, doc, schema, v, at)
	case "array":
		items, ok := v.([]any)
		if !ok {
			return fmt.Errorf("%s: %T, not an array", at, v)
		}
		for i, item := range items {
			if err := conform(t, doc, schema["items"].(map[string]any), item, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			return fmt.Errorf("%s: %T, not a string", at, v)
		}
	case "integer":
		if f, ok := v.(float64); !ok || f != math.Trunc(f) {
			return fmt.Errorf("%s: %v, not an integer", at, v)
		}
	case "number":
		if _, ok := v.(float64); !ok {
			return fmt.Errorf("%s: %T, not a number", at, v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: %T, not a boolean", at, v)
		}
	}
	return nil
}

func conformObject(t *testing.T, doc, schema map[string]any, v any, at string) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %T, not an object", at, v)
	}
	for _, req := range asSlice(schema["required"]) {
		if _, ok := obj[req.(string)]; !ok {
			return fmt.Errorf("%s: required member %q is missing", at, req)
		}
	}
	props, _ := schema["properties"].(map[string]any)
	extra, _ := schema["additionalProperties"].(map[string]any)
	for k, e := range obj {
		sub, ok := props[k].(map[string]any)
		if !ok {
			sub = extra
		}
		if sub == nil {
			return fmt.Errorf("%s: member %q is not in the schema", at, k)
		}
		if err := conform(t, doc, sub, e, at+"."+k); err != nil {
			return err
		}
	}
	return nil
}
