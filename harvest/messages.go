package harvest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/google/uuid"
)

// Version is the envelope version every message carries in its "v" field. A consumer refuses
// envelopes of another version with a permanent error, so a mixed deployment fails loudly.
const Version = 1

// Subjects, one per purpose (DESIGN.md "Messages").
const (
	SubjectExtract   = "harvest.v1.extract"
	SubjectCompare   = "harvest.v1.compare"
	SubjectListing   = "harvest.v1.listing" // Listing messages, handled by COMPARE
	SubjectTransform = "harvest.v1.transform"
	SubjectValidate  = "harvest.v1.validate"
	SubjectSync      = "harvest.v1.sync"
	SubjectSettled   = "harvest.v1.settled"
	SubjectReport    = "harvest.v1.report"
	// SubjectReportFDK carries each finished job's report in FDK's form (FDKReports), for a
	// bridge to FDK's RabbitMQ exchange (routing key "<dataType>s.harvested").
	SubjectReportFDK = "harvest.v1.report.fdk"
	SubjectTrigger   = "harvest.v1.trigger"
	// SubjectCheck carries LinkCheck messages to CHECK: the distribution URLs of datasets SYNC
	// added or changed, and those of stale checks (the scheduler's leader).
	SubjectCheck = "harvest.v1.check"
	// SubjectQuality carries a source's QualityReport once the checks of a job's URLs settled.
	SubjectQuality = "harvest.v1.quality"
	// SubjectFailedPrefix + stage name holds records whose stage failed for good, kept for replay.
	SubjectFailedPrefix = "harvest.v1.failed."
)

// Metadata keys: they become NATS headers and slog attributes.
const (
	MetaSubject    = "harvest_subject" // where the routing publisher sends the message
	MetaJobID      = "job_id"
	MetaSourceID   = "source_id"
	MetaRecordID   = "record_id"
	MetaIdentifier = "identifier"
	MetaReason     = "failure_reason" // on failed-subject messages: the last handler error
)

// Job is the message that starts a job's EXTRACT, published to SubjectExtract.
type Job struct {
	V          int        `json:"v"`
	JobID      string     `json:"job_id"`
	SourceID   string     `json:"source_id"`
	JobType    JobType    `json:"job_type"`
	SourceType SourceType `json:"source_type"`
	SchemaType SchemaType `json:"schema_type"`
	URL        string     `json:"url"`
	// CollectionParentURL is a waf-collection's parent record, listed first.
	CollectionParentURL string `json:"collection_parent_url,omitempty"`
	// PublisherName names the publisher when an ISO record names none: the name of the
	// source's organization; empty when the source has none.
	PublisherName string `json:"publisher_name,omitempty"`
	// WAFTimeZone is the IANA time zone of a WAF's listing dates where the listing names none
	// (harvest.ParseWAFTimeZone); "" is UTC.
	WAFTimeZone string `json:"waf_time_zone,omitempty"`
	// Accept is the Accept header to send for the source's documents (an rdf source's
	// configured media types, FDK's acceptHeaderValue); "" sends the default.
	Accept string `json:"accept,omitempty"`
	// Options are the source type's own settings (a CKAN fq filter, a Socrata domain…), by
	// name; nil when there are none. Secrets never travel here: EXTRACT reads a source's auth
	// header from the store.
	Options map[string]string `json:"options,omitempty"`
}

// Record is one record on its way through the stages.
type Record struct {
	V          int        `json:"v"`
	JobID      string     `json:"job_id"`
	SourceID   string     `json:"source_id"`
	RecordID   string     `json:"record_id"` // harvest_record id, derived from (job, identifier)
	JobType    JobType    `json:"job_type"`
	SchemaType SchemaType `json:"schema_type"`
	SourceType SourceType `json:"source_type,omitempty"` // set by EXTRACT for portal items: TRANSFORM maps them by platform
	Identifier string     `json:"identifier"`
	Position   int        `json:"position"`         // 0-based index in the source's listing; -1 for deletes
	Action     Action     `json:"action,omitempty"` // set by compare
	SourceHash string     `json:"source_hash,omitempty"`
	Validated  bool       `json:"validated,omitempty"` // set by validate
	Profile    string     `json:"profile,omitempty"`   // dcat-ap: SHACL profile (Options["shacl_profile"]); "" = default
	// XML is an ISO record's document byte for byte (base64 in the envelope: it may be in a
	// declared encoding other than UTF-8). Body is empty then.
	XML []byte `json:"xml,omitempty"`
	// IsPartOf is the identifier of the collection the record belongs to (waf-collection), or
	// of the DataService or DatasetSeries a DCAT-US 3.0 dataset was embedded in; SYNC writes it
	// as the dataset's isPartOf when the record has none.
	IsPartOf string `json:"is_part_of,omitempty"`
	// RecordType is a DCAT-US 3.0 record's type (RecordTypeDataset, RecordTypeDataService,
	// RecordTypeCatalogRecord, RecordTypeDatasetSeries); "" is a dataset.
	RecordType string `json:"record_type,omitempty"`
	// PublisherName names the publisher when an ISO record names none, or a DCAT-AP dataset
	// (its catalog's publisher).
	PublisherName string `json:"publisher_name,omitempty"`
	// Languages is a dcat-ap record's language preference for TRANSFORM (the source option languages); nil: the pipeline's.
	Languages []string `json:"languages,omitempty"`
	// Warnings are notes for the record that do not make it fail (a placeholder used by
	// TRANSFORM, say); they become warning rows when the record settles.
	Warnings []RecordError `json:"warnings,omitempty"`
	// Replay marks a record that `harvester replay` sent again after it failed for good: the
	// stages let it through although its job has finished, and the aggregator accepts its
	// outcome once, in place of the errored one (store.Store.OutcomeReopen).
	Replay bool `json:"replay,omitempty"`
	// Revalidate is set by COMPARE on an update whose content is that of the newest record,
	// which was valid and whose dataset is live: only the source's schema_type or
	// shacl_profile changed. VALIDATE settles such a record unchanged when it is still valid
	// (its harvest_record then keeps the new settings, and the dataset is not rewritten), and
	// errored when it now fails.
	Revalidate bool `json:"revalidate,omitempty"`
	// Rejudge is set by COMPARE on an update whose content is that of the newest record, which
	// was valid and whose dataset a job of another source has since held, made live again or
	// swapped (store.RecordCompare.DuplicateMoved): the record's last CrossSourceDuplicate
	// warning, or the lack of one, may no longer be true. It goes on to SYNC, which judges the
	// pair again and settles it unchanged, with the warning that is true now.
	Rejudge bool `json:"rejudge,omitempty"`
	// NotDownloaded is set by EXTRACT on a record it did not download because the source says
	// it has not changed since its newest stored record was read (a WAF listing date before the
	// start of the job that read it): Body and XML are empty, and COMPARE settles it as
	// unchanged.
	NotDownloaded bool `json:"not_downloaded,omitempty"`
	// Body is the record exactly as the publisher wrote it (source_raw); empty for deletes.
	Body RawText `json:"body,omitempty"`
	// Transformed is the DCAT-US made from Body by TRANSFORM; empty when Body already is DCAT-US.
	Transformed RawText `json:"transformed,omitempty"`
}

// DCAT returns the DCAT-US JSON of the record: Transformed when set, else Body.
func (r *Record) DCAT() json.RawMessage {
	if len(r.Transformed) > 0 {
		return json.RawMessage(r.Transformed)
	}
	return json.RawMessage(r.Body)
}

// RawText is JSON text carried byte for byte: it travels as a JSON string, because
// encoding/json compacts a json.RawMessage and so would lose the publisher's whitespace.
type RawText []byte

// MarshalText returns the bytes as they are, for encoding/json to write as a JSON string: the
// one pass of escaping that string needs, with <, > and & left as they are by marshal's encoder
// (json.Marshal escapes them). A MarshalJSON would cost a second pass over the body, as
// encoding/json re-scans (compacts) whatever a Marshaler returns; the bytes on the wire are the
// same (TestRawTextWire).
func (t RawText) MarshalText() ([]byte, error) { return t, nil }

// Marshal is json.Marshal without HTML escaping, the bytes NewMessage writes for v: json.Marshal
// writes <, > and & as \u003c, \u003e and \u0026, six bytes for one, and catalogs are full of
// HTML descriptions. Messages are read by JSON decoders, never embedded in HTML.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// UnmarshalText takes the bytes of the JSON string encoding/json has already unquoted (a
// JSON value that is not a string is refused by encoding/json). An UnmarshalJSON would parse
// the string a second time.
func (t *RawText) UnmarshalText(b []byte) error {
	*t = append(RawText(nil), b...)
	return nil
}

// Listing tells COMPARE that EXTRACT listed every record of the job: Listed messages (records
// and errors) were emitted. Compare turns stored-but-unseen identifiers into deletes and then
// tells the aggregator the expected count.
type Listing struct {
	V        int     `json:"v"`
	JobID    string  `json:"job_id"`
	SourceID string  `json:"source_id"`
	JobType  JobType `json:"job_type"`
	Listed   int     `json:"listed"`
	// NotModifiedSince is set when EXTRACT listed nothing because the server answered 304 Not
	// Modified to the validators that job saved: COMPARE then settles every live dataset of the
	// source as unchanged and every key that job counted as errored as errored again, carrying
	// its error rows, and deletes nothing.
	NotModifiedSince string `json:"not_modified_since,omitempty"`
}

// RecordError is one problem with one record: a harvest_record_error row.
type RecordError struct {
	Type     string   `json:"type"` // e.g. ValidationError, DuplicateIdentifier, SyncError
	Message  string   `json:"message"`
	Severity Severity `json:"severity"`
}

// SettledKind tells the aggregator what a Settled message carries.
type SettledKind string

// Settled kinds.
const (
	SettledOutcome  SettledKind = "outcome"  // one record's outcome
	SettledExpected SettledKind = "expected" // the job's expected count, after a complete listing
	SettledFailed   SettledKind = "failed"   // the job already ended in error; report it
)

// Settled goes to the job aggregator (SubjectSettled).
type Settled struct {
	V     int         `json:"v"`
	Kind  SettledKind `json:"kind"`
	JobID string      `json:"job_id"`
	// Key is unique per record within the job: IdentifierKey, or PositionKey for a record the
	// listing could not key (missing or duplicate identifier). The aggregator counts a key once.
	Key        string        `json:"key,omitempty"`
	Identifier string        `json:"identifier,omitempty"`
	RecordID   string        `json:"record_id,omitempty"` // set when a harvest_record row exists
	Outcome    Outcome       `json:"outcome,omitempty"`
	Status     RecordStatus  `json:"status,omitempty"` // final harvest_record status
	Validated  bool          `json:"validated,omitempty"`
	Errors     []RecordError `json:"errors,omitempty"`
	// CarriedFromRecordID is set on the outcome of a record unchanged since an earlier job
	// checked it (errored when that job found it invalid, else unchanged): that
	// harvest_record, whose error and warning rows the aggregator copies into this job
	// (store.OutcomeSettleParams.CarriedFromRecordID).
	CarriedFromRecordID string `json:"carried_from_record_id,omitempty"`
	// CarriedFromJobID is set on the outcomes of a 304 Not Modified job: the earlier job
	// whose error and warning rows under the same key the aggregator copies into this job
	// (store.OutcomeSettleParams.CarriedFromJobID).
	CarriedFromJobID string `json:"carried_from_job_id,omitempty"`
	Expected         int    `json:"expected,omitempty"`
	// Transformed is the DCAT-US TRANSFORM made of the record (Record.Transformed), on an
	// outcome settled after TRANSFORM: the aggregator stores it as the record's source_transform
	// with its status (store.OutcomeSettleParams.SourceTransform). Empty for DCAT-US input.
	Transformed RawText `json:"transformed,omitempty"`
}

// Report is the harvest report event published once per finished job (SubjectReport): the
// FDK harvest report's fields plus the job's counts. ID is the source's id, as FDK's report
// names its data source; JobID names the job.
type Report struct {
	V            int       `json:"v"`
	ID           string    `json:"id"` // source id (FDK's dataSourceId)
	JobID        string    `json:"jobId"`
	SourceID     string    `json:"sourceId"`
	URL          string    `json:"url"`
	DataType     string    `json:"dataType"`
	JobType      JobType   `json:"jobType"`
	Status       JobStatus `json:"status"`
	HarvestError bool      `json:"harvestError"`
	ErrorMessage string    `json:"errorMessage,omitempty"`
	StartTime    time.Time `json:"startTime"`
	EndTime      time.Time `json:"endTime"`
	// ChangedCatalogs are the catalogs (an rdf source's dcat:Catalog) the job found new or
	// changed, a catalog whose datasets alone changed included (FDK compares a catalog's graph
	// with its datasets' graphs); ChangedResources the records it added or updated; RemovedResources those it
	// deleted: FDK's report fields (peer-harvesters §1.8), each {fdkId, uri}, the uri a dataset
	// IRI or, for DCAT-US and ISO records, the identifier. Never null (empty arrays).
	ChangedCatalogs  []Resource `json:"changedCatalogs"`
	ChangedResources []Resource `json:"changedResources"`
	RemovedResources []Resource `json:"removedResources"`
	Counts
}

// Resource names one harvested resource in a Report as FDK does: its fdkId (FdkID of the URI
// when first seen, then kept) and its URI.
type Resource struct {
	FdkID string `json:"fdkId"`
	URI   string `json:"uri"`
}

// NewMessage encodes v (without HTML escaping) as a message bound for subject, with the given
// ids as metadata. ids alternate key and value (MetaJobID, id, …). Values are cleaned of
// control characters and cut to 256 bytes, because NATS headers cannot carry newlines.
//
// A *Record or *Settled with a body is framed (see frames): the envelope, then the bodies as
// they are.
func NewMessage(subject string, v any, ids ...string) (*Message, error) {
	var body []byte
	var err error
	switch v := v.(type) {
	case *Record:
		body, err = encodeRecord(v)
	case *Settled:
		body, err = encodeSettled(v)
	default:
		body, err = Marshal(v)
	}
	if err != nil {
		return nil, fmt.Errorf("encode %s message: %w", subject, err)
	}
	return NewBodyMessage(subject, body, ids...), nil
}

// NewBodyMessage is a message of an encoded body bound for subject, with ids as NewMessage
// sets them.
func NewBodyMessage(subject string, body []byte, ids ...string) *Message {
	m := NewRawMessage("", body)
	m.Metadata.Set(MetaSubject, subject)
	for i := 0; i+1 < len(ids); i += 2 {
		if ids[i+1] != "" {
			m.Metadata.Set(ids[i], HeaderValue(ids[i+1]))
		}
	}
	return m
}

// BodyWriter makes a message bound for subject (with ids, as NewBodyMessage) of the body that
// write writes, so that a body of many MBs need not be held whole; its error is write's or
// the body's store's. router.Bus's stores a body over the message size as it is written.
type BodyWriter interface {
	WriteMessage(ctx context.Context, subject string, write func(io.Writer) error, ids ...string) (*Message, error)
}

// MemoryBodies is the BodyWriter that holds each body in memory: NewBodyMessage of what write
// wrote.
type MemoryBodies struct{}

// WriteMessage implements BodyWriter.
func (MemoryBodies) WriteMessage(_ context.Context, subject string, write func(io.Writer) error, ids ...string) (*Message, error) {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return nil, err
	}
	return NewBodyMessage(subject, buf.Bytes(), ids...), nil
}

// RecordMessage is NewMessage for a Record, carrying its ids as metadata.
func RecordMessage(subject string, r *Record) (*Message, error) {
	r.V = Version
	return NewMessage(subject, r, MetaJobID, r.JobID, MetaSourceID, r.SourceID,
		MetaRecordID, r.RecordID, MetaIdentifier, r.Identifier)
}

// LinkCheckMessage is NewMessage for a LinkCheck, carrying its ids as metadata.
func LinkCheckMessage(c *LinkCheck) (*Message, error) {
	c.V = Version
	return NewMessage(SubjectCheck, c, MetaJobID, c.JobID, MetaSourceID, c.SourceID)
}

// QualityReportMessage is NewMessage for a QualityReport.
func QualityReportMessage(q *QualityReport) (*Message, error) {
	q.V = Version
	return NewMessage(SubjectQuality, q, MetaJobID, q.JobID, MetaSourceID, q.SourceID)
}

// SettledMessage is NewMessage for a Settled outcome.
func SettledMessage(s *Settled) (*Message, error) {
	s.V = Version
	return NewMessage(SubjectSettled, s, MetaJobID, s.JobID, MetaRecordID, s.RecordID, MetaIdentifier, s.Identifier)
}

// Decode unmarshals a message body into v and checks its envelope version. Its errors are
// permanent: redelivering the same bytes cannot succeed. The body is parsed once when v is a
// pointer to a struct with an int field V (every message type here); otherwise the version is
// read first in a pass of its own. A framed *Record or *Settled (see frames) reads its bodies as
// slices of m.Payload, which the caller must not change while v is in use.
func Decode(m *Message, v any) error {
	if handled, err := decodeFramed(m, v); handled {
		return err
	}
	if handled, err := decodePlain(m, v); handled {
		return err
	}
	if f := versionField(v); f.IsValid() {
		f.SetInt(0) // a body without "v" must not pass on what v held
		if err := json.Unmarshal(m.Payload, v); err != nil {
			return fmt.Errorf("decode message %s: %w", m.UUID, err)
		}
		if got := int(f.Int()); got != Version {
			return fmt.Errorf("decode message %s: envelope version %d, want %d", m.UUID, got, Version)
		}
		return nil
	}
	var env struct {
		V int `json:"v"`
	}
	if err := json.Unmarshal(m.Payload, &env); err != nil {
		return fmt.Errorf("decode message %s: %w", m.UUID, err)
	}
	if env.V != Version {
		return fmt.Errorf("decode message %s: envelope version %d, want %d", m.UUID, env.V, Version)
	}
	if err := json.Unmarshal(m.Payload, v); err != nil {
		return fmt.Errorf("decode message %s: %w", m.UUID, err)
	}
	return nil
}

// decodePlain decodes the plain (not framed) payload of a *Settled or *Record into v with the
// decoder of github.com/go-json-experiment/json under encoding/json's semantics
// (jsonv1.DefaultOptionsV1: what json.Unmarshal makes of it, in less time: an unchanged record's
// outcome is one such message, BenchmarkSettledHop). handled is false for other types, and for
// a payload it cannot decode, which Decode's encoding/json path then fails with its own error.
func decodePlain(m *Message, v any) (handled bool, err error) {
	var got int
	switch v := v.(type) {
	case *Settled:
		*v = Settled{}
		if jsonv2.Unmarshal(m.Payload, v, jsonv1.DefaultOptionsV1()) != nil {
			*v = Settled{}
			return false, nil
		}
		got = v.V
	case *Record:
		*v = Record{}
		if jsonv2.Unmarshal(m.Payload, v, jsonv1.DefaultOptionsV1()) != nil {
			*v = Record{}
			return false, nil
		}
		got = v.V
	default:
		return false, nil
	}
	if got != Version {
		return true, fmt.Errorf("decode message %s: envelope version %d, want %d", m.UUID, got, Version)
	}
	return true, nil
}

// versionField returns the int field V of the struct v points to, or the zero Value.
func versionField(v any) reflect.Value {
	p := reflect.ValueOf(v)
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	f := p.Elem().FieldByName("V")
	if !f.IsValid() || f.Kind() != reflect.Int || !f.CanSet() {
		return reflect.Value{}
	}
	return f
}

// HeaderValue cleans s of control characters and cuts it to 256 bytes, for a NATS header.
func HeaderValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > 256 {
		s = s[:256]
	}
	return s
}

// RecordID is the harvest_record id of identifier's passage through job jobID: a name-based
// UUID (RFC 9562 version 5) of the pair, so a redelivered or replayed record keeps its id and
// every write keyed by it is idempotent. jobID must be a UUID; other strings give the nil UUID
// as namespace.
func RecordID(jobID, identifier string) string {
	ns, err := uuid.Parse(jobID)
	if err != nil {
		ns = uuid.Nil
	}
	return uuid.NewSHA1(ns, []byte(identifier)).String()
}

// Next is a handler's return value that carries rec on to subject.
func Next(subject string, rec *Record) ([]*Message, error) {
	m, err := RecordMessage(subject, rec)
	if err != nil {
		return nil, err
	}
	return []*Message{m}, nil
}

// Forward is a handler's return value that carries msg on to subject as it is, for a stage
// that passes a record on unchanged: the same payload, not encoded again, with the same ids
// (MetaJobID, MetaSourceID, MetaRecordID, MetaIdentifier) and no other metadata of msg (its
// transport headers stay behind).
func Forward(subject string, msg *Message) ([]*Message, error) {
	m := NewRawMessage("", msg.Payload)
	m.Metadata.Set(MetaSubject, subject)
	for _, k := range [...]string{MetaJobID, MetaSourceID, MetaRecordID, MetaIdentifier} {
		if v := msg.Metadata.Get(k); v != "" {
			m.Metadata.Set(k, v)
		}
	}
	return []*Message{m}, nil
}

// Settle is a handler's return value that settles s with the aggregator.
func Settle(s *Settled) ([]*Message, error) {
	m, err := SettledMessage(s)
	if err != nil {
		return nil, err
	}
	return []*Message{m}, nil
}

// StoredRecordID is the id of the harvest_record row this record has, or "" when it has none:
// validate jobs write no rows.
func (r *Record) StoredRecordID() string {
	if r.JobType == JobValidate {
		return ""
	}
	return r.RecordID
}

// IdentifierKey is the aggregator key of a record keyed by its identifier.
func IdentifierKey(identifier string) string { return "id:" + identifier }

// PositionKey is the aggregator key of a listing entry that has no usable identifier (missing,
// blank or repeated): its 0-based position in the listing.
func PositionKey(pos int) string { return fmt.Sprintf("pos:%d", pos) }
