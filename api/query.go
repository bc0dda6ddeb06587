package api

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// query is the query string of a request, each good parameter by name.
type query map[string]string

// readQuery reads the query string of a route that takes the parameters names, as the
// OpenAPI document declares them: each parameter that is unknown, repeated, empty, badly
// percent-encoded, or whose name or value decodes to a NUL or to bytes that are not UTF-8
// (storableText), is recorded in fields by name, so that the 422 names it, and is left out of
// the result. Routes that take no query parameters do not call it and ignore their query.
func readQuery(r *http.Request, fields fieldErrors, names ...string) query {
	_, q := readQueryRepeating(r, fields, nil, names...)
	return q
}

// readQueryRepeating reads the query string as readQuery does, except that a parameter for
// which repeatable returns true (repeatable may be nil: none) may be sent more than once: its
// values come back in the url.Values, in the order sent, and the other parameters by name in
// the query.
func readQueryRepeating(r *http.Request, fields fieldErrors, repeatable func(name string) bool, names ...string) (url.Values, query) {
	vals, q := url.Values{}, query{}
	seen := map[string]bool{}
	for pair := range strings.SplitSeq(r.URL.RawQuery, "&") {
		if pair == "" { // "?" or "?a=1&": nothing sent
			continue
		}
		rawName, rawValue, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(rawName)
		if err != nil {
			fields.add(rawName, "malformed query parameter name: %v", err)
			continue
		}
		if msg := storableText(name); msg != "" {
			fields.add(rawName, "malformed query parameter name: %s", msg)
			continue
		}
		many := repeatable != nil && repeatable(name)
		if seen[name] && !many {
			fields.add(name, "repeated: send the query parameter once")
			delete(q, name)
			continue
		}
		seen[name] = true
		if !slices.Contains(names, name) {
			fields.add(name, "unknown query parameter: this operation takes %s", strings.Join(names, ", "))
			continue
		}
		switch value, err := url.QueryUnescape(rawValue); {
		case err != nil:
			fields.add(name, "malformed value: %v", err)
		case storableText(value) != "":
			fields.add(name, "malformed value: %s", storableText(value))
		case value == "":
			fields.add(name, "must not be empty: leave the parameter out for its default")
		case many:
			vals.Add(name, value)
		default:
			q[name] = value
		}
	}
	return vals, q
}
