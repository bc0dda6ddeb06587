package api

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// authHeaderJSON is a source's auth_header as the API shows it: the name, and the value masked.
type authHeaderJSON struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// authHeaderInput is the auth_header member of POST and PUT.
type authHeaderInput struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// settingsOf fills j's accept, auth_header (masked) and options from src.
func settingsOf(j *sourceJSON, src *store.Source) {
	if src.Accept != "" {
		j.Accept = &src.Accept
	}
	if src.AuthHeader != nil {
		j.AuthHeader = &authHeaderJSON{Name: src.AuthHeader.Name, Value: sources.SecretMask}
	}
	if len(src.Options) > 0 {
		j.Options = src.Options
	}
}

// decodeSettings reads the accept, auth_header and options members of in into p
// (sources.Sources.Save checks the first two: an auth_header value sources.SecretMask keeps
// the stored one); options is an object of string to string, whose keys the source rule
// table checks (store.CheckSource).
func decodeSettings(in *sourceInput, p *store.SourceInsertParams, fields fieldErrors) {
	if in.Accept != nil {
		p.Accept = strings.TrimSpace(*in.Accept)
	}
	if in.AuthHeader != nil {
		p.AuthHeader = &store.AuthHeader{Name: strings.TrimSpace(in.AuthHeader.Name), Value: in.AuthHeader.Value}
	}
	if len(in.Options) > 0 && !bytes.Equal(bytes.TrimSpace(in.Options), []byte("null")) {
		p.Options = decodeOptions(in.Options, fields)
	}
}

// decodeOptions reads an options member: a JSON object whose values are strings. Each other
// value is a field error "options.<key>".
func decodeOptions(raw json.RawMessage, fields fieldErrors) map[string]string {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		fields.add("options", "must be an object of strings (e.g. {\"languages\": \"nb,en\"})")
		return nil
	}
	out := make(map[string]string, len(members))
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range members {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		var v string
		switch {
		case strings.TrimSpace(k) == "":
			fields.add("options", "a key is empty")
		case json.Unmarshal(members[k], &v) != nil:
			fields.add("options."+k, "must be a string, not %s", jsonKind(members[k]))
		case strings.ContainsRune(v, 0) || strings.ContainsRune(k, 0):
			fields.add("options."+k, "must not contain NUL (\\u0000)")
		default:
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// jsonKind names the kind of a JSON value ("a number", "an object", …).
func jsonKind(raw json.RawMessage) string {
	switch b := bytes.TrimSpace(raw); {
	case len(b) == 0:
		return "nothing"
	case b[0] == '{':
		return "an object"
	case b[0] == '[':
		return "an array"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	case b[0] == 'n':
		return "null"
	default:
		return "a number"
	}
}
