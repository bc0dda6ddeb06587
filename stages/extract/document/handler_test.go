package document

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/pubsub/gochannel"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/fetch"
	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/internal/wmbridge"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/store"
)

func TestHandleRecordTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3000)
	doc := []byte(`{"dataset":[{"identifier":"a"},{"identifier":"big","description":"` + big +
		`"},{"identifier":"c"}]}`)
	r := runExtract(t, doc, []string{"big"}, extract.WithMaxRecordBytes(2048))
	require.NoError(t, r.err, "an over-size record does not fail the job")
	require.Empty(t, r.jobErrors(t))
	require.Equal(t, []string{"a", "c"}, identifiers(r.records(t)))
	require.Equal(t, 3, r.listed(t))
	errs := r.recordErrors(t)
	require.Len(t, errs, 1)
	s := errs["RecordTooLarge"]
	require.Equal(t, "big", s.Identifier)
	require.Equal(t, harvest.PositionKey(1), s.Key)
	msg := s.Errors[0].Message
	require.Contains(t, msg, "over the record size cap of 2048 bytes")
	require.Contains(t, msg, fmt.Sprintf("is %d bytes", len(`{"identifier":"big","description":"`+big+`"}`)))
	require.Empty(t, r.unseen(t), "the record is in the source: its dataset must not be deleted")

	// The default cap is 16 MiB: a record over NATS's max payload is sent on (by reference).
	require.Equal(t, 16<<20, newHandler(nil, nil, fetch.Config{}).Config().MaxRecordBytes)
	huge := strings.Repeat("y", 1<<20)
	r = runExtract(t, []byte(`{"dataset":[{"identifier":"huge","description":"`+huge+`"},{"identifier":"ok"}]}`), nil)
	require.NoError(t, r.err)
	require.Equal(t, []string{"huge", "ok"}, identifiers(r.records(t)))
	require.Empty(t, r.recordErrors(t))
}

func TestHandleInvalidIdentifier(t *testing.T) {
	t.Parallel()
	r := runExtract(t, []byte(`{"dataset":[{"identifier":"a\u0000b"},{"identifier":"ok"}]}`), nil)
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
	r := runExtract(t, []byte(`{"dataset":[{"identifier":"ok"},`+bad+`]}`), []string{"latin1"})
	require.NoError(t, r.err, "a record that is not UTF-8 does not fail the job")
	require.Equal(t, []string{"ok"}, identifiers(r.records(t)))
	require.Equal(t, 2, r.listed(t))
	s := r.recordErrors(t)["InvalidEncoding"]
	require.Len(t, s.Errors, 1)
	require.Equal(t, "latin1", s.Identifier)
	require.Contains(t, s.Errors[0].Message, fmt.Sprintf("byte 0xE9 at offset %d of the record", strings.IndexByte(bad, 0xe9)))
	require.Contains(t, s.Errors[0].Message, "not valid UTF-8")
	require.Empty(t, r.unseen(t), "the record is in the source: its dataset must not be deleted")
}

func TestHandleDuplicateDatasetMember(t *testing.T) {
	t.Parallel()
	r := runExtract(t, []byte(`{"dataset":[{"identifier":"a"}],
  "dataset":[{"identifier":"b"}]}`), nil)
	require.NoError(t, r.err)
	errs := r.jobErrors(t)
	require.Len(t, errs, 1, "the job fails")
	require.Equal(t, "ParseError", errs[0].Type)
	require.Contains(t, errs[0].Message, `the catalog has more than one "dataset" member`)
	require.Contains(t, errs[0].Message, "line 2, column 3")
	require.Empty(t, r.RecordMessages(), "no record moves")
	require.Empty(t, r.msgs[harvest.SubjectListing], "no listing: nothing is deleted")
}

func TestHandleMessageKeepsMarkup(t *testing.T) {
	t.Parallel()
	desc := strings.Repeat("<p>a &amp; b</p>", 1000)
	rec := `{"identifier":"html","description":"` + desc + `"}`
	r := runExtract(t, []byte(`{"dataset":[`+rec+`]}`), nil)
	require.NoError(t, r.err)
	msgs := r.RecordMessages()
	require.Len(t, msgs, 1)
	require.Less(t, len(msgs[0].Payload), len(rec)+1000, "markup is not escaped as \\u003c")
	require.Equal(t, rec, string(r.records(t)[0].Body))
}

func TestHandleJobDeletedWithItsSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := openSQLite(t)
	path := filepath.Join(t.TempDir(), "data.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"dataset":[{"identifier":"a"}]}`), 0o644))
	src, err := st.SourceEnsure(ctx, &store.SourceEnsureParams{Name: "s", URL: path, SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal})
	require.NoError(t, err)
	job, err := st.JobInsert(ctx, &store.JobInsertParams{SourceID: src.ID, JobType: harvest.JobHarvest})
	require.NoError(t, err)
	// The job is cancelled and its source deleted while the job's message waits in the stream.
	_, err = st.JobFail(ctx, &store.JobFailParams{JobID: job.ID, Type: "CancelledJob", Message: "cancelled"})
	require.NoError(t, err)
	require.NoError(t, st.SourceDelete(ctx, src.ID))
	_, err = st.JobGet(ctx, job.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "the job went with its source")

	// Publish returns once the collector acked: when Handle returns, all it published is here.
	pubsub := gochannel.NewGoChannel(gochannel.Config{BlockPublishUntilSubscriberAck: true}, watermill.NopLogger{})
	t.Cleanup(func() { _ = pubsub.Close() })
	var mu sync.Mutex
	var published []string
	for _, subject := range []string{harvest.SubjectCompare, harvest.SubjectSettled, harvest.SubjectListing,
		harvest.SubjectTransform, harvest.SubjectValidate, harvest.SubjectReport, harvest.SubjectExtract} {
		ch, err := pubsub.Subscribe(ctx, subject)
		require.NoError(t, err)
		go func() {
			for msg := range ch {
				mu.Lock()
				published = append(published, subject)
				mu.Unlock()
				msg.Ack()
			}
		}()
	}
	m, err := harvest.NewMessage(harvest.SubjectExtract, &harvest.Job{V: harvest.Version, JobID: job.ID,
		SourceID: src.ID, JobType: harvest.JobHarvest, SourceType: harvest.SourceDocument,
		SchemaType: harvest.SchemaDCATUS11Federal, URL: path})
	require.NoError(t, err)
	m.SetContext(ctx)
	var unknown *harvest.UnknownJobError
	require.ErrorAs(t, newHandler(st, wmbridge.Publisher{Publisher: pubsub}, fetch.Config{}).Handle(m), &unknown,
		"a job that no longer exists is an unknown job, which the router counts and acks")
	require.Equal(t, job.ID, unknown.JobID)
	mu.Lock()
	defer mu.Unlock()
	require.Empty(t, published, "nothing is listed, settled or failed for a deleted job")
	_, err = st.SourceGet(ctx, src.ID)
	require.ErrorIs(t, err, store.ErrNotFound, "nothing is written for it either")
}

// TestHandleDuplicateIdentifier: a record that repeats an earlier record's identifier is an
// error row naming both positions and is not sent on; the first is kept, a third use names the
// first too, and an over-size record's identifier counts as seen.
func TestHandleDuplicateIdentifier(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 3000)
	doc := []byte(`{"dataset":[{"identifier":"a"},{"identifier":"b"},{"identifier":"a"},{"identifier":"A"},` +
		`{"identifier":"big","description":"` + big + `"},{"identifier":"big"},{"identifier":"a"}]}`)
	r := runExtract(t, doc, []string{"a", "b", "A", "big"}, extract.WithMaxRecordBytes(2048))
	require.NoError(t, r.err, "repeated identifiers do not fail the job")
	require.Equal(t, []string{"a", "b", "A"}, identifiers(r.records(t)))
	require.Equal(t, 7, r.listed(t))
	var msgs []string
	for _, s := range r.settled(t) {
		for _, e := range s.Errors {
			if e.Type == harvest.TypeDuplicateIdentifier {
				msgs = append(msgs, e.Message)
			}
		}
	}
	require.ElementsMatch(t, []string{
		`dataset #3 repeats identifier "a" of dataset #1 in this catalog; the first one is kept`,
		`dataset #6 repeats identifier "big" of dataset #5 in this catalog; the first one is kept`,
		`dataset #7 repeats identifier "a" of dataset #1 in this catalog; the first one is kept`,
	}, msgs)
	require.Empty(t, r.unseen(t), "every identifier of the listing is seen: no dataset is deleted")
}
