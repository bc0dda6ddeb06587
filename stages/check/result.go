package check

import (
	"time"

	"github.com/harvester-dev/harvester/quality"
)

// ErrorClass says why a check got no final HTTP answer; "" when it got one (Result.Status).
type ErrorClass string

// The error classes.
const (
	// DNS: the host name did not resolve (no such host, or the resolver failed).
	DNS ErrorClass = "dns"
	// Refused: the connection was refused (nothing listens on the port).
	Refused ErrorClass = "refused"
	// Timeout: no connection, no headers or no first byte of the body within Config.Timeout.
	Timeout ErrorClass = "timeout"
	// TLS: the TLS handshake failed (an unknown authority, a name mismatch, an expired
	// certificate, a server that does not speak TLS).
	TLS ErrorClass = "tls"
	// TooManyRedirects: more than Config.MaxRedirects redirects (a loop, usually). Status is
	// the last redirect's.
	TooManyRedirects ErrorClass = "too_many_redirects"
	// RedirectRefused: a redirect led to an address the SSRF guard refuses (loopback, private,
	// link-local, cloud metadata services); it was not connected to. FinalURL is the target.
	RedirectRefused ErrorClass = "redirect_refused"
	// AddressRefused: the URL itself is on an address the SSRF guard refuses; nothing was sent.
	AddressRefused ErrorClass = "address_refused"
	// NotCheckable: not an http or https URL with a host (ftp:, mailto:, a relative reference,
	// garbage), or a redirect to one; no request was made for it.
	NotCheckable ErrorClass = "not_checkable"
	// Excluded: the URL's host, or a redirect's, is in Config.ExcludeHosts; it was not
	// requested.
	Excluded ErrorClass = "excluded"
	// Other: any other failure (a connection reset, a malformed answer, an unreadable
	// Location); Result.Detail says which.
	Other ErrorClass = "other"
)

// Result is one check of one URL. The store keeps one row per URL (with Stored's two fields):
//
//	url                  text primary key   URL
//	status               integer not null   Status (0: no HTTP answer)
//	error_class          text not null      Error ("" when answered)
//	error                text not null      Detail
//	final_url            text not null      FinalURL
//	content_type         text not null      ContentType
//	content_length       bigint not null    ContentLength (-1: unknown)
//	redirects            integer not null   Redirects
//	ok                   boolean not null   OK
//	checked_at           timestamp not null CheckedAt (UTC)
//	last_ok_at           timestamp null     Stored.LastOKAt (null: never)
//	consecutive_failures integer not null   Stored.ConsecutiveFailures
type Result struct {
	URL string `json:"url"` // as given (surrounding space trimmed)
	// Status is the HTTP status of the last answer: the final one, or the last redirect's when
	// the chain was cut (TooManyRedirects, RedirectRefused, NotCheckable or Excluded after a
	// redirect); 0 when no answer came.
	Status int        `json:"status"`
	Error  ErrorClass `json:"error,omitempty"`
	// Detail is the error's text for a failure (Error not ""), empty otherwise.
	Detail string `json:"detail,omitempty"`
	// FinalURL is the URL the check ended on: URL itself without redirects, else the last
	// redirect's target (also when it was not followed).
	FinalURL    string `json:"final_url"`
	ContentType string `json:"content_type,omitempty"` // the final answer's Content-Type, verbatim
	// ContentLength is the size of the final answer's resource in bytes: its Content-Length,
	// or for a 206 the total of its Content-Range; -1 when unknown.
	ContentLength int64     `json:"content_length"`
	Redirects     int       `json:"redirects"`  // redirects followed
	CheckedAt     time.Time `json:"checked_at"` // when the check ended, UTC
	// OK is a final answer with a 2xx or 3xx status (a 3xx not followed: 304, or without a
	// Location), as MQA's accessUrlStatusCode and downloadUrlStatusCode count it.
	OK bool `json:"ok"`
}

// Checked reports whether r is a check made, OK or broken: false for NotCheckable and
// Excluded, where nothing was requested.
func (r Result) Checked() bool { return r.Error != NotCheckable && r.Error != Excluded }

// LinkResult is r as the quality score reads it: ok, broken, or unknown when it was not
// checked (NotCheckable, Excluded), with the status of the last answer.
func (r Result) LinkResult() quality.LinkResult {
	switch {
	case !r.Checked():
		return quality.LinkResult{Class: quality.LinkUnknown, Status: r.Status}
	case r.OK:
		return quality.LinkResult{Class: quality.LinkOK, Status: r.Status}
	}
	return quality.LinkResult{Class: quality.LinkBroken, Status: r.Status}
}

// Stored is a URL's stored state: its latest Result and the history two fields keep.
type Stored struct {
	Result
	LastOKAt            time.Time `json:"last_ok_at"`           // the last OK check's CheckedAt; zero if never
	ConsecutiveFailures int       `json:"consecutive_failures"` // checks not OK since the last OK one
}

// Fold returns the stored state of a URL after a new check: prev with r as its Result, LastOKAt
// moved to r.CheckedAt when r is OK, ConsecutiveFailures reset by an OK check and counted up by a
// broken one. A result that checked nothing (NotCheckable, Excluded) resets the count and keeps
// LastOKAt. A result older than prev's (CheckedAt before it: a late delivery) changes nothing.
// prev is the zero Stored for a URL never checked.
func Fold(prev Stored, r Result) Stored {
	if !prev.CheckedAt.IsZero() && r.CheckedAt.Before(prev.CheckedAt) {
		return prev
	}
	next := Stored{Result: r, LastOKAt: prev.LastOKAt}
	switch {
	case r.OK:
		next.LastOKAt = r.CheckedAt
	case r.Checked():
		next.ConsecutiveFailures = prev.ConsecutiveFailures + 1
	}
	return next
}
