package ckan

import (
	"encoding/json"
	"maps"
	"net/http"
)

// Version is the CKAN version status_show reports: the API answers as CKAN 2.10 does.
const Version = "2.10.5"

// Envelope is every answer of CKAN's Action API: help (the action's help_show URL), success,
// and result, or error when success is false.
type Envelope struct {
	Help    string `json:"help"`
	Success bool   `json:"success"`
	Result  any    `json:"result,omitempty"`
	Error   *Error `json:"error,omitempty"`
}

// Error is a failed action as CKAN's api view answers it (ckan/views/api.py): an HTTP status
// and error {"__type": Type, "message": Message}, or, for a "Validation Error", the bad
// parameters each with its messages in place of message.
type Error struct {
	Status  int
	Type    string
	Message string
	Fields  map[string][]string
}

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Type + ": " + e.Message
	}
	return e.Type
}

// MarshalJSON writes the error object CKAN writes.
func (e *Error) MarshalJSON() ([]byte, error) {
	out := map[string]any{"__type": e.Type}
	for k, v := range maps.All(e.Fields) {
		out[k] = v
	}
	if e.Message != "" || len(e.Fields) == 0 {
		out["message"] = e.Message
	}
	return json.Marshal(out)
}

// NotFound is CKAN's 404 "Not Found Error", message "Not found: what".
func NotFound(what string) *Error {
	return &Error{Status: http.StatusNotFound, Type: "Not Found Error", Message: "Not found: " + what}
}

// Validation is CKAN's 409 "Validation Error" naming each bad parameter.
func Validation(fields map[string][]string) *Error {
	return &Error{Status: http.StatusConflict, Type: "Validation Error", Fields: fields}
}

// SearchQueryError is CKAN's 400 "Search Query Error", message "Search Query is invalid: why".
func SearchQueryError(why string) *Error {
	return &Error{Status: http.StatusBadRequest, Type: "Search Query Error", Message: "Search Query is invalid: " + why}
}

// SearchError is CKAN's 409 "Search Error" (a query the index cannot answer).
func SearchError(why string) *Error {
	return &Error{Status: http.StatusConflict, Type: "Search Error", Message: "Search error: " + why}
}

// BadRequest is CKAN's 400 "Bad request" (an unknown action, a body that is not a JSON
// object), message "Bad request - why".
func BadRequest(why string) *Error {
	return &Error{Status: http.StatusBadRequest, Type: "Bad request", Message: "Bad request - " + why}
}
