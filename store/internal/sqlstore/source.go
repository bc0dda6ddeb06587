package sqlstore

import (
	"encoding/json"

	"github.com/harvester-dev/harvester/store"
)

// SourceSettings are the arguments of a source's accept, auth_header_name, auth_header_value
// and options columns, in that order: NULL for an empty Accept, a nil header (both columns) and
// empty options; options as JSON text.
func SourceSettings(accept string, auth *store.AuthHeader, options map[string]string) ([]any, error) {
	args := []any{nullable(accept), nil, nil, nil}
	if auth != nil {
		args[1], args[2] = auth.Name, auth.Value
	}
	if len(options) > 0 {
		b, err := json.Marshal(options)
		if err != nil {
			return nil, err
		}
		args[3] = string(b)
	}
	return args, nil
}
