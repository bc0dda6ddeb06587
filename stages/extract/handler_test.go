package extract

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/store"
)

// fakeStore is the part of store.Store that EXTRACT uses. Like Postgres text, it cannot hold
// U+0000 in an identifier.
type fakeStore struct {
	store.Store // nil: any other method panics
	mu          sync.Mutex
	seen        []string
	failed      []store.JobFailParams
}

func (s *fakeStore) JobGet(_ context.Context, jobID string) (*store.Job, error) {
	return &store.Job{ID: jobID, Status: harvest.JobInProgress}, nil
}

func (s *fakeStore) JobHeartbeat(context.Context, string) error { return nil }

func (s *fakeStore) JobIdentifierAdd(_ context.Context, p *store.JobIdentifierAddParams) error {
	if strings.ContainsRune(p.Identifier, 0) {
		return errors.New(`ERROR: invalid byte sequence for encoding "UTF8": 0x00 (SQLSTATE 22021)`)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, p.Identifier)
	return nil
}

func (s *fakeStore) JobFail(_ context.Context, p *store.JobFailParams) (*store.Job, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failed = append(s.failed, *p)
	return &store.Job{ID: p.JobID, Status: harvest.JobError}, nil
}

// natsMaxPayload is NATS's default max_payload.
const natsMaxPayload = 1 << 20

// fakePublisher keeps what is published and, like a NATS server, refuses a message over its
// max payload (payload plus headers).
type fakePublisher struct {
	maxPayload int
	mu         sync.Mutex
	msgs       map[string][]*message.Message
}

func (p *fakePublisher) Publish(topic string, msgs ...*message.Message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, m := range msgs {
		size := len(m.Payload)
		for k, v := range m.Metadata {
			size += len(k) + len(v) + 4
		}
		if size > p.maxPayload {
			return fmt.Errorf("publish to %s: nats: maximum payload exceeded", topic)
		}
		if p.msgs == nil {
			p.msgs = map[string][]*message.Message{}
		}
		p.msgs[topic] = append(p.msgs[topic], m)
	}
	return nil
}

func (p *fakePublisher) Close() error { return nil }

// extractRun is one EXTRACT run of a catalog written to a file.
type extractRun struct {
	st  *fakeStore
	pub *fakePublisher
	err error // Handle's
}

func (r *extractRun) records(t *testing.T) []harvest.Record {
	t.Helper()
	var out []harvest.Record
	for _, m := range r.pub.msgs[harvest.SubjectCompare] {
		var rec harvest.Record
		require.NoError(t, harvest.Decode(m, &rec))
		out = append(out, rec)
	}
	return out
}

func (r *extractRun) settled(t *testing.T) []harvest.Settled {
	t.Helper()
	var out []harvest.Settled
	for _, m := range r.pub.msgs[harvest.SubjectSettled] {
		var s harvest.Settled
		require.NoError(t, harvest.Decode(m, &s))
		out = append(out, s)
	}
	return out
}

func (r *extractRun) listed(t *testing.T) int {
	t.Helper()
	msgs := r.pub.msgs[harvest.SubjectListing]
	require.Len(t, msgs, 1, "one Listing")
	var l harvest.Listing
	require.NoError(t, harvest.Decode(msgs[0], &l))
	return l.Listed
}

// recordErrors returns the record errors settled for the job, one line per row: type, then
// message.
func (r *extractRun) recordErrors(t *testing.T) map[string]harvest.Settled {
	t.Helper()
	out := map[string]harvest.Settled{}
	for _, s := range r.settled(t) {
		require.Equal(t, harvest.SettledOutcome, s.Kind)
		require.Equal(t, harvest.OutcomeErrored, s.Outcome)
		require.Len(t, s.Errors, 1, "one error row per bad record")
		out[s.Errors[0].Type] = s
	}
	return out
}

func runExtract(t *testing.T, doc []byte, opts ...Option) *extractRun {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(path, doc, 0o644))
	r := &extractRun{st: &fakeStore{}, pub: &fakePublisher{maxPayload: natsMaxPayload}}
	jobID := uuid.NewString()
	m, err := harvest.NewMessage(harvest.SubjectExtract, &harvest.Job{V: harvest.Version, JobID: jobID,
		SourceID: uuid.NewString(), JobType: harvest.JobHarvest, SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaType("dcatus1.1: federal"), URL: path})
	require.NoError(t, err)
	r.err = New(r.st, r.pub, FetchConfig{}, opts...).Handle(m)
	return r
}

func identifiers(recs []harvest.Record) []string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Identifier)
	}
	return out
}

func TestHandleRecordTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3000)
	doc := []byte(`{"dataset":[{"identifier":"a"},{"identifier":"big","description":"` + big +
		`"},{"identifier":"c"}]}`)
	r := runExtract(t, doc, WithMaxRecordBytes(2048))
	require.NoError(t, r.err, "an over-size record does not fail the job")
	require.Empty(t, r.st.failed)
	require.Equal(t, []string{"a", "c"}, identifiers(r.records(t)))
	require.Equal(t, 3, r.listed(t))
	errs := r.recordErrors(t)
	require.Len(t, errs, 1)
	s := errs["RecordTooLarge"]
	require.Equal(t, "big", s.Identifier)
	require.Equal(t, harvest.PositionKey(1), s.Key)
	msg := s.Errors[0].Message
	require.Contains(t, msg, "over the limit of 2048 bytes")
	require.Contains(t, msg, fmt.Sprintf("the record is %d bytes", len(`{"identifier":"big","description":"`+big+`"}`)))
	require.Contains(t, r.st.seen, "big", "the record is in the source: its dataset must not be deleted")

	// The default limit leaves room for headers in NATS's default 1 MiB payload.
	require.Equal(t, 900<<10, New(nil, nil, FetchConfig{}).cfg.MaxRecordBytes)
	huge := strings.Repeat("y", 1<<20)
	r = runExtract(t, []byte(`{"dataset":[{"identifier":"huge","description":"`+huge+`"},{"identifier":"ok"}]}`))
	require.NoError(t, r.err, "a record over NATS's max payload does not fail the job")
	require.Equal(t, []string{"ok"}, identifiers(r.records(t)))
	require.Contains(t, r.recordErrors(t)["RecordTooLarge"].Errors[0].Message,
		fmt.Sprintf("over the limit of %d bytes", 900<<10))
}

func TestHandleInvalidIdentifier(t *testing.T) {
	t.Parallel()
	r := runExtract(t, []byte(`{"dataset":[{"identifier":"a\u0000b"},{"identifier":"ok"}]}`))
	require.NoError(t, r.err, "a NUL in an identifier does not fail the job")
	require.Equal(t, []string{"ok"}, identifiers(r.records(t)))
	require.Equal(t, 2, r.listed(t))
	s := r.recordErrors(t)["InvalidIdentifier"]
	require.Len(t, s.Errors, 1)
	require.Contains(t, s.Errors[0].Message, `identifier "a\x00b" contains U+0000`)
	require.Contains(t, s.Errors[0].Message, "dataset #1")
	require.NotContains(t, s.Identifier, "\x00", "the error row cannot hold a NUL either")
}

func TestHandleInvalidEncoding(t *testing.T) {
	t.Parallel()
	bad := `{"identifier":"latin1","title":"Caf` + "\xe9" + ` data"}`
	r := runExtract(t, []byte(`{"dataset":[{"identifier":"ok"},`+bad+`]}`))
	require.NoError(t, r.err, "a record that is not UTF-8 does not fail the job")
	require.Equal(t, []string{"ok"}, identifiers(r.records(t)))
	require.Equal(t, 2, r.listed(t))
	s := r.recordErrors(t)["InvalidEncoding"]
	require.Len(t, s.Errors, 1)
	require.Equal(t, "latin1", s.Identifier)
	require.Contains(t, s.Errors[0].Message, fmt.Sprintf("byte 0xE9 at offset %d of the record", strings.IndexByte(bad, 0xe9)))
	require.Contains(t, s.Errors[0].Message, "not valid UTF-8")
	require.Contains(t, r.st.seen, "latin1", "the record is in the source: its dataset must not be deleted")
}

func TestHandleDuplicateDatasetMember(t *testing.T) {
	t.Parallel()
	r := runExtract(t, []byte(`{"dataset":[{"identifier":"a"}],
  "dataset":[{"identifier":"b"}]}`))
	require.NoError(t, r.err)
	require.Len(t, r.st.failed, 1, "the job fails")
	require.Equal(t, "ParseError", r.st.failed[0].Type)
	require.Contains(t, r.st.failed[0].Message, `the catalog has more than one "dataset" member`)
	require.Contains(t, r.st.failed[0].Message, "line 2, column 3")
	require.Empty(t, r.pub.msgs[harvest.SubjectCompare], "no record moves")
	require.Empty(t, r.pub.msgs[harvest.SubjectListing], "no listing: nothing is deleted")
}

func TestHandleMessageKeepsMarkup(t *testing.T) {
	t.Parallel()
	desc := strings.Repeat("<p>a &amp; b</p>", 1000)
	rec := `{"identifier":"html","description":"` + desc + `"}`
	r := runExtract(t, []byte(`{"dataset":[`+rec+`]}`))
	require.NoError(t, r.err)
	msgs := r.pub.msgs[harvest.SubjectCompare]
	require.Len(t, msgs, 1)
	require.Less(t, len(msgs[0].Payload), len(rec)+1000, "markup is not escaped as \\u003c")
	require.Equal(t, rec, string(r.records(t)[0].Body))
}
