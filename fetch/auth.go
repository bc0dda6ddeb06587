package fetch

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// AuthHeader is a secret request header a source asks for (FDK's authHeader{name, value}, e.g.
// "Authorization: Bearer …" or "X-API-Key: …"). It is sent only to requests whose URL host
// (hostname:port, the port defaulted from the scheme: 80 for http, 443 for https) equals Host,
// the source's own host: never to another host a redirect leads to, and not over plain http
// when the source is https (the default port differs). Go's client drops only Authorization,
// Cookie and WWW-Authenticate on a redirect to another domain, and not custom names, so the
// header is added by the transport per request instead of being copied by redirects.
//
// Value never appears in an error or log line of this package; String masks it.
type AuthHeader struct {
	Name  string
	Value string
	// Host is hostname:port of the source (SourceHost of its URL). A Host without a port
	// matches that hostname on the default port of each request's scheme. Empty: SourceHost
	// of the URL passed to Get or GetDocument.
	Host string
}

// String is the header with its value masked, for logs.
func (a AuthHeader) String() string { return a.Name + ": ********" }

// ErrAuthHeader is the cause of an *Error for an AuthHeader that is not a valid header: its name
// is not an RFC 9110 token, or its value has a control character such as CR or LF.
var ErrAuthHeader = errors.New("invalid auth header")

// Check returns an error wrapping ErrAuthHeader when the name is not a header field name
// (an RFC 9110 token) or the value is not a valid field value (CR, LF, NUL and other controls
// but tab are refused). It names a valid header name, never an invalid one or the value.
func (a AuthHeader) Check() error {
	if a.Name == "" || !httpguts.ValidHeaderFieldName(a.Name) {
		// The name is not quoted: a user may have pasted "Name: secret" into it.
		return fmt.Errorf("%w: the name is not a header name (letters, digits and !#$%%&'*+-.^_`|~ only)", ErrAuthHeader)
	}
	if !httpguts.ValidHeaderFieldValue(a.Value) {
		return fmt.Errorf("%w: the value of %s has a control character (CR, LF or another)", ErrAuthHeader, a.Name)
	}
	return nil
}

// SourceHost is the hostname:port of rawURL, lower-cased, the port defaulted from its scheme
// (443 for https, 80 otherwise): AuthHeader.Host for a source at rawURL, which a redirect from
// https to http on the same name does not match.
func SourceHost(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	return hostPort(u), nil
}

// hostPort is u's host as hostname:port, lower-cased, the port defaulted from the scheme.
func hostPort(u *url.URL) string {
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(host, port)
}

// sameHost reports whether u is on host (AuthHeader.Host's form, a missing port defaulted from
// u's scheme).
func sameHost(u *url.URL, host string) bool {
	want, err := url.Parse(u.Scheme + "://" + host)
	if err != nil {
		return false
	}
	return hostPort(u) == hostPort(want)
}

// authTransport adds the auth header to each request on its host and strips it from every other.
type authTransport struct {
	base   http.RoundTripper
	header AuthHeader
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	on := sameHost(req.URL, t.header.Host)
	if !on && req.Header.Get(t.header.Name) == "" {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context()) // a RoundTripper must not change the request it is given
	if on {
		r.Header.Set(t.header.Name, t.header.Value)
	} else {
		r.Header.Del(t.header.Name)
	}
	return t.base.RoundTrip(r)
}

// withAuth returns a copy of client whose transport sends h (Host set) as AuthHeader says.
func withAuth(client *http.Client, h AuthHeader) *http.Client {
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &authTransport{base: base, header: h}
	return &c
}
