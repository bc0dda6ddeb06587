package dcatus

import "errors"

// ErrUnknownSchemaType is wrapped by the error [NewValidator] returns for a
// schema type it has no schema for (anything other than
// "dcatus1.1: federal" and "dcatus1.1: non-federal").
var ErrUnknownSchemaType = errors.New("validate: unknown schema type")
