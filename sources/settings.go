package sources

import (
	"golang.org/x/net/http/httpguts"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/store"
)

// SecretMask stands for a source's auth header value wherever a source is shown: the value
// itself is never returned. A write that sends it back as the value keeps the stored one.
const SecretMask = "********"

// checkSettings records what is wrong with p's accept and auth header. accept is any Accept
// header value (no CR, LF or other control character), for any source type. An auth header
// needs a name that is a header field name (an RFC 9110 token) and a value without control
// characters; the value SecretMask means "the stored value" and is resolved by keepSecret (a
// new source has none to keep). No message ever quotes the value.
func checkSettings(p *store.SourceInsertParams, fields Fields) {
	if !httpguts.ValidHeaderFieldValue(p.Accept) {
		fields.Add("accept", "is not a header value: it has a control character (CR, LF or another)")
	}
	if p.AuthHeader == nil {
		return
	}
	switch h := (fetch.AuthHeader{Name: p.AuthHeader.Name, Value: p.AuthHeader.Value}); {
	case h.Name == "":
		fields.Add("auth_header", "name is required (e.g. Authorization)")
	case h.Value == "":
		fields.Add("auth_header", "value is required")
	default:
		if err := h.Check(); err != nil {
			fields.Add("auth_header", "%v", err)
		}
	}
}

// keepSecret resolves an auth_header whose value is SecretMask: the stored value of old (the
// source a write replaces). With no stored header to keep (a new source, or one without a
// header), it is a field error.
func keepSecret(p *store.SourceInsertParams, old *store.Source, fields Fields) {
	if p.AuthHeader == nil || p.AuthHeader.Value != SecretMask {
		return
	}
	if old == nil || old.AuthHeader == nil {
		fields.Add("auth_header", "value %q stands for a stored value, and there is none: send the value itself", SecretMask)
		return
	}
	p.AuthHeader.Value = old.AuthHeader.Value
}
