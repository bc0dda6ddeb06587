package api

import "github.com/harvester-dev/harvester/sources"

// sources is the source and organization administration the API's writes go through (package
// sources, which the web UI calls too), over the server's store, fetch guard and search index.
func (s *server) sources() sources.Sources {
	return sources.Sources{Store: s.store, AllowPrivate: s.fetch.AllowPrivate, Index: s.search}
}

// ErrorOf says what an error of the API's typed functions (Validator) or of package sources
// means to a client: the HTTP status the API answers, its message, and the bad fields of a 422
// (else nil). A status of 500 means the error is not the client's: its message says nothing of
// the cause.
func ErrorOf(err error) (status int, message string, fields map[string]string) {
	status, body := errorStatus(err)
	return status, body.Error, body.Fields
}
