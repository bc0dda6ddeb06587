package api

import (
	"cmp"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/sources"
	"github.com/harvester-dev/harvester/store"
)

// sourceJSON is a harvest source as the API shows it.
type sourceJSON struct {
	ID                    string            `json:"id"`
	Name                  string            `json:"name"`
	URL                   string            `json:"url"`
	OrganizationID        *string           `json:"organization_id"` // null: no organization
	SourceType            string            `json:"source_type"`
	SchemaType            string            `json:"schema_type"`
	Frequency             string            `json:"frequency"`
	NotificationEmails    []string          `json:"notification_emails"`
	NotificationFrequency string            `json:"notification_frequency"`
	NextRunAt             *time.Time        `json:"next_run_at"`           // null for manual sources
	CollectionParentURL   *string           `json:"collection_parent_url"` // null but for waf-collection sources
	WAFTimeZone           *string           `json:"waf_time_zone"`         // null: UTC
	Accept                *string           `json:"accept"`                // null: the default
	AuthHeader            *authHeaderJSON   `json:"auth_header"`           // null: none; the value is always SecretMask
	Options               map[string]string `json:"options"`               // null: none
	Precedence            int               `json:"precedence"`            // higher wins a cross-source duplicate
	CreatedAt             time.Time         `json:"created_at"`
	UpdatedAt             time.Time         `json:"updated_at"`
}

func sourceOf(src *store.Source) sourceJSON {
	j := sourceJSON{ID: src.ID, Name: src.Name, URL: src.URL, SourceType: string(src.SourceType),
		SchemaType: string(src.SchemaType), Frequency: string(src.Frequency),
		NotificationEmails: src.NotificationEmails, NotificationFrequency: string(src.NotificationFrequency),
		NextRunAt: utcPtr(src.NextRunAt), Precedence: src.Precedence, CreatedAt: src.CreatedAt.UTC(),
		UpdatedAt: src.UpdatedAt.UTC()}
	if src.OrganizationID != "" {
		j.OrganizationID = &src.OrganizationID
	}
	if src.CollectionParentURL != "" {
		j.CollectionParentURL = &src.CollectionParentURL
	}
	if src.WAFTimeZone != "" {
		j.WAFTimeZone = &src.WAFTimeZone
	}
	if j.NotificationEmails == nil {
		j.NotificationEmails = []string{}
	}
	settingsOf(&j, src)
	return j
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// sourceInput is the body of POST and PUT: every editable field.
type sourceInput struct {
	Name                  string           `json:"name"`
	URL                   string           `json:"url"`
	OrganizationID        *string          `json:"organization_id"`
	SourceType            string           `json:"source_type"`
	SchemaType            string           `json:"schema_type"`
	Frequency             string           `json:"frequency"`
	NotificationEmails    []string         `json:"notification_emails"`
	NotificationFrequency string           `json:"notification_frequency"`
	CollectionParentURL   *string          `json:"collection_parent_url"`
	WAFTimeZone           *string          `json:"waf_time_zone"`
	Accept                *string          `json:"accept"`
	AuthHeader            *authHeaderInput `json:"auth_header"`
	Options               json.RawMessage  `json:"options"`
	Precedence            precedenceInput  `json:"precedence"`
	// Read-only members of GET's answer, accepted and ignored, so that a body read by GET can be
	// sent back as it is with one member changed (the precedence recipe in docs). They are never
	// compared with the stored values: the server sets them, and a concurrent edit or a change of
	// frequency moves them.
	ID        json.RawMessage `json:"id"`
	CreatedAt json.RawMessage `json:"created_at"`
	UpdatedAt json.RawMessage `json:"updated_at"`
	NextRunAt json.RawMessage `json:"next_run_at"`
}

// precedenceInput is the precedence member as sent (any JSON value), read by decodePrecedence
// with harvest.ParsePrecedence, so that the API refuses a bad value with the form's and CLI's
// message.
type precedenceInput struct{ raw json.RawMessage }

// UnmarshalJSON keeps the member's JSON text.
func (p *precedenceInput) UnmarshalJSON(b []byte) error {
	p.raw = append(p.raw[:0], b...)
	return nil
}

// decodePrecedence is the precedence sent (0 when left out; null is refused by decodeObject):
// a JSON number that is a whole number (harvest.ParsePrecedence's rule and message); a string
// holding a bad value gets that message too, any other string or JSON value "must be an integer".
func decodePrecedence(p precedenceInput, fields fieldErrors) int {
	raw := string(p.raw)
	if raw == "" || raw == "null" {
		return 0
	}
	if s := ""; json.Unmarshal(p.raw, &s) == nil {
		if _, err := harvest.ParsePrecedence(s); err != nil {
			fields.add("precedence", "%s", err.Error())
			return 0
		}
		fields.add("precedence", "must be an integer (a JSON number), not a string")
		return 0
	}
	if raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') {
		fields.add("precedence", "must be an integer (a JSON number)")
		return 0
	}
	n, err := harvest.ParsePrecedence(raw)
	if err != nil {
		fields.add("precedence", "%s", err.Error())
	}
	return n
}

// decodeSource reads the body of POST and PUT into the source's fields, its schema type as
// sent and what is wrong with its members (sources.Sources.Save checks the rest and names every
// bad field). Omitted optional fields take their defaults: source_type document, frequency manual,
// notification_frequency on_error, no organization (also null; "" is refused), no emails, no
// collection_parent_url, no waf_time_zone (UTC), precedence 0 (decodeObject refuses null for
// the first three and precedence).
// accept, auth_header and options are read by decodeSettings. The error is one that is not a
// field's: an unreadable body, or one that is not a JSON object.
func decodeSource(r *http.Request) (*store.SourceInsertParams, string, fieldErrors, error) {
	data, err := readBody(r)
	if err != nil {
		return nil, "", nil, err
	}
	var in sourceInput
	fields := fieldErrors{}
	if err := decodeObject(data, &in, fields); err != nil {
		return nil, "", nil, err
	}
	p := &store.SourceInsertParams{Name: strings.TrimSpace(in.Name), URL: strings.TrimSpace(in.URL),
		SourceType: harvest.SourceType(cmp.Or(in.SourceType, string(harvest.SourceDocument))),
		Frequency:  harvest.Frequency(cmp.Or(in.Frequency, string(harvest.FrequencyManual))),
		NotificationFrequency: harvest.NotificationFrequency(cmp.Or(in.NotificationFrequency,
			string(harvest.NotifyOnError))),
		NotificationEmails: in.NotificationEmails, Precedence: decodePrecedence(in.Precedence, fields)}
	if in.OrganizationID != nil {
		p.OrganizationID = *in.OrganizationID
		if p.OrganizationID == "" {
			fields.add("organization_id", "must not be empty: leave it out or send null for no organization")
		}
	}
	if in.CollectionParentURL != nil {
		p.CollectionParentURL = strings.TrimSpace(*in.CollectionParentURL)
	}
	if in.WAFTimeZone != nil {
		p.WAFTimeZone = *in.WAFTimeZone
	}
	decodeSettings(&in, p, fields)
	return p, in.SchemaType, fields, nil
}

func sourceNotFound(id string) string { return sources.SourceNotFound(id) }

func (s *server) sourceList(w http.ResponseWriter, r *http.Request) error {
	fields := fieldErrors{}
	q := readQuery(r, fields, append([]string{"organization_id"}, pagingParams...)...)
	pg := parsePaging(q, fields)
	if err := fields.err(); err != nil {
		return err
	}
	srcs, total, err := s.store.SourceList(r.Context(), &store.SourceListParams{
		OrganizationID: filterID(q, "organization_id"), PageParams: pg.params()})
	if srcs, total, err = filtered("harvest sources", srcs, total, err); err != nil {
		return err
	}
	items := make([]sourceJSON, 0, len(srcs))
	for _, src := range srcs {
		items = append(items, sourceOf(src))
	}
	return writeJSON(w, http.StatusOK, newList(items, total, pg))
}

func (s *server) sourceCreate(w http.ResponseWriter, r *http.Request) error {
	p, schemaType, fields, err := decodeSource(r)
	if err != nil {
		return err
	}
	src, err := s.sources().Save(r.Context(), nil, p, schemaType, sources.Fields(fields))
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/api/v1/harvest_sources/"+src.ID)
	return writeJSON(w, http.StatusCreated, sourceOf(src))
}

func (s *server) sourceGet(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	src, err := s.store.SourceGet(r.Context(), id)
	if err != nil {
		return describe(err, sourceNotFound(id), "")
	}
	return writeJSON(w, http.StatusOK, sourceOf(src))
}

func (s *server) sourceUpdate(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := checkContentType(r); err != nil { // 415 first, as on the other routes with a body
		return err
	}
	old, err := s.store.SourceGet(r.Context(), id)
	if err != nil { // 404 before 422
		return describe(err, sourceNotFound(id), "")
	}
	p, schemaType, fields, err := decodeSource(r)
	if err != nil {
		return err
	}
	src, err := s.sources().Save(r.Context(), old, p, schemaType, sources.Fields(fields))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, sourceOf(src))
}

func (s *server) sourceDelete(w http.ResponseWriter, r *http.Request) error {
	if err := s.sources().Delete(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
