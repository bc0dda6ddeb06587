package feeds

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/store"
)

// DefaultMaxAge is how long a public answer may be cached, in seconds (Cache-Control max-age).
const DefaultMaxAge = 60

// Public sets the headers of every public answer: CORS for any origin (reads only) and
// Cache-Control public with DefaultMaxAge.
func Public(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", DefaultMaxAge))
	}
}

// ETag is a strong entity tag of an answer made from the parts given (the feed's name and
// format, its query, and the selection's store.DatasetPageStats), quoted as RFC 9110 wants.
func ETag(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return `"` + hex.EncodeToString(h[:12]) + `"`
}

// StatsETag is ETag of a feed's name, its normalized query and the selection's stats.
func StatsETag(feed, query string, st *store.DatasetPageStats) string {
	return ETag(feed, query, fmt.Sprint(st.Count), st.LastModified.UTC().Format(time.RFC3339Nano))
}

// NotModified sets ETag and, when modified is not zero, Last-Modified on w, and answers 304 Not
// Modified when r's If-None-Match names etag (or is *), or, without If-None-Match, when its
// If-Modified-Since is at or after modified (RFC 9110 §13.2.2's order). It reports whether it
// answered; the caller writes the body otherwise. Only for GET and HEAD.
func NotModified(w http.ResponseWriter, r *http.Request, etag string, modified time.Time) bool {
	h := w.Header()
	if etag != "" {
		h.Set("ETag", etag)
	}
	if !modified.IsZero() {
		h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if etag == "" || !matchETag(inm, etag) {
			return false
		}
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" && !modified.IsZero() {
		t, err := http.ParseTime(ims)
		if err == nil && !modified.Truncate(time.Second).After(t) {
			w.WriteHeader(http.StatusNotModified)
			return true
		}
	}
	return false
}

// matchETag reports whether the If-None-Match list inm names etag (weak comparison) or is *.
func matchETag(inm, etag string) bool {
	bare := strings.TrimPrefix(etag, "W/")
	for _, v := range strings.Split(inm, ",") {
		v = strings.TrimSpace(v)
		if v == "*" || strings.TrimPrefix(v, "W/") == bare {
			return true
		}
	}
	return false
}
