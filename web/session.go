package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/harvester-dev/harvester/api"
	"github.com/harvester-dev/harvester/store"
)

// Cookie and form field names.
const (
	sessionCookie = "harvester_session" // "<unix expiry>.<secret>.<HMAC>"; the store has the secret's digest
	csrfCookie    = "harvester_csrf"    // a random value, before sign-in (double submit)
	csrfField     = "csrf_token"
)

// deriveKey is the HMAC key of sessions and CSRF tokens: HMAC-SHA256 of a fixed label under
// the API key, so that the cookie never carries anything from which the key could be read and
// a new API key voids every session. Without an API key it is nil: nobody signs in.
func deriveKey(apiKey string) []byte {
	if apiKey == "" {
		return nil
	}
	m := hmac.New(sha256.New, []byte(apiKey))
	m.Write([]byte("harvester web session v1"))
	return m.Sum(nil)
}

func (s *server) mac(parts ...string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(strings.Join(parts, "\x00")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// newSession starts a session that expires at exp: it records the session in the store (so
// that signing out can end it in every process) and returns the cookie value.
func (s *server) newSession(ctx context.Context, exp time.Time) (string, error) {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	secret := base64.RawURLEncoding.EncodeToString(b)
	if err := s.store.SessionInsert(ctx, &store.SessionInsertParams{ID: sessionID(secret), ExpiresAt: exp}); err != nil {
		return "", fmt.Errorf("start session: %w", err)
	}
	e := strconv.FormatInt(exp.Unix(), 10)
	return e + "." + secret + "." + s.mac("session", e, secret), nil
}

// sessionID is the store's ID of the session whose cookie carries secret: its SHA-256, so that
// reading the database gives no one a session.
func sessionID(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// sessionSecret returns the secret of a session cookie value whose signature and expiry hold,
// or "".
func (s *server) sessionSecret(value string) string {
	e, rest, _ := strings.Cut(value, ".")
	secret, sig, _ := strings.Cut(rest, ".")
	exp, err := strconv.ParseInt(e, 10, 64)
	if err != nil || secret == "" || s.now().Unix() >= exp {
		return ""
	}
	if !hmac.Equal([]byte(sig), []byte(s.mac("session", e, secret))) {
		return ""
	}
	return secret
}

// sessionKey is the request context key of the session that handle looked up once.
type sessionKey struct{}

// withSession is r with its session looked up (a store read), for the later session calls.
func (s *server) withSession(r *http.Request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), sessionKey{}, s.lookupSession(r)))
}

// session returns the request's valid session cookie value, or "".
func (s *server) session(r *http.Request) string {
	if v, ok := r.Context().Value(sessionKey{}).(string); ok {
		return v
	}
	return s.lookupSession(r)
}

// lookupSession returns the request's session cookie value when it is signed, unexpired and
// not ended (SessionGet finds it), or "". A store error counts as no session, and is logged.
func (s *server) lookupSession(r *http.Request) string {
	if s.key == nil {
		return ""
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return ""
	}
	secret := s.sessionSecret(c.Value)
	if secret == "" {
		return ""
	}
	if _, err := s.store.SessionGet(r.Context(), sessionID(secret)); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.log.ErrorContext(r.Context(), "web: session look-up failed", "err", err)
		}
		return ""
	}
	return c.Value
}

func (s *server) signedIn(r *http.Request) bool { return s.session(r) != "" }

// csrfToken is the token the page's forms carry: the HMAC of the session, or before sign-in
// the double-submit cookie's value, which it sets when the request has none.
func (s *server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	if sess := s.session(r); sess != "" {
		return s.mac("csrf", sess)
	}
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 20 {
		return c.Value
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: v, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.cfg.SecureCookies})
	r.AddCookie(&http.Cookie{Name: csrfCookie, Value: v}) // later calls in this request see it
	return v
}

// checkCSRF refuses (403) a post whose csrf_token is missing or is not the expected one.
func (s *server) checkCSRF(r *http.Request) error {
	got := r.PostFormValue(csrfField)
	var want string
	if sess := s.session(r); sess != "" {
		want = s.mac("csrf", sess)
	} else if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 20 {
		want = c.Value
	}
	if got == "" || want == "" || subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errorf(http.StatusForbidden, "the form's CSRF token is missing or stale: reload the page and send it again")
	}
	return nil
}

type signInData struct {
	Next  string
	Error string
	NoKey bool
}

func (s *server) signInForm(w http.ResponseWriter, r *http.Request) error {
	return s.render(w, r, http.StatusOK, "sign_in.html", "Sign in",
		signInData{Next: safeNext(r.URL.Query().Get("next")), NoKey: s.key == nil})
}

// signIn checks the API key and sets the session cookie, then goes to next (a local path). A
// client that sent too many wrong keys (Deps.AuthLimiter, shared with the API) gets a 429 with
// Retry-After, whatever key it sends now.
func (s *server) signIn(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkCSRF(r); err != nil {
		return err
	}
	next := safeNext(r.PostFormValue("next"))
	key := r.PostFormValue("api_key")
	fail := func(status int, msg string) error {
		return s.render(w, r, status, "sign_in.html", "Sign in", signInData{Next: next, Error: msg, NoKey: s.key == nil})
	}
	switch {
	case s.key == nil:
		return fail(http.StatusUnauthorized, "signing in is disabled: the server has no API key (HARVESTER_API_KEY)")
	case key == "":
		return fail(http.StatusUnauthorized, "required")
	}
	ok, wait := s.authLimit.Check(r, func() bool { return subtle.ConstantTimeCompare([]byte(key), []byte(s.cfg.APIKey)) == 1 })
	switch {
	case wait > 0:
		n := api.RetryAfterSeconds(wait)
		w.Header().Set("Retry-After", strconv.Itoa(n))
		return fail(http.StatusTooManyRequests, fmt.Sprintf("too many wrong API keys from your address: try again in %d s", n))
	case !ok:
		return fail(http.StatusUnauthorized, "wrong API key")
	}
	exp := s.now().Add(s.cfg.SessionTTL)
	value, err := s.newSession(r.Context(), exp)
	if err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: value, Path: "/", Expires: exp,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.cfg.SecureCookies})
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}

// signOut ends the session in the store, so that its cookie is refused from then on, by every
// process, even if the browser (or someone who copied it) keeps it; then it clears the cookie.
func (s *server) signOut(w http.ResponseWriter, r *http.Request) error {
	if c, err := r.Cookie(sessionCookie); err == nil {
		if secret := s.sessionSecret(c.Value); secret != "" {
			if err := s.store.SessionDelete(r.Context(), sessionID(secret)); err != nil {
				return fmt.Errorf("end session: %w", err)
			}
		}
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.cfg.SecureCookies})
	http.Redirect(w, r, "/harvest_sources", http.StatusSeeOther)
	return nil
}

// safeNext is next when it is a path of this site, else the sources list: a sign-in never
// sends the operator to another site. A path starts with one "/" (not "//" or "/\", which
// browsers read as another host), holds no backslash, no control character and no white space
// (browsers drop TAB, CR and LF from a URL, so "/\t/evil.example" would become
// "//evil.example"), and parses (url.Parse) to no scheme and no host. Percent-encoded bytes
// stay in the path and are kept.
func safeNext(next string) string {
	const fallback = "/harvest_sources"
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsRune(next, '\\') {
		return fallback
	}
	if strings.ContainsFunc(next, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }) {
		return fallback
	}
	if u, err := url.Parse(next); err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return fallback
	}
	return next
}

func urlQueryEscape(s string) string { return url.QueryEscape(s) }
