package transform_test

import (
	"io"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
)

// collect reads what the stages after TRANSFORM would get, VALIDATE's messages and settled
// outcomes, through consumers of its own, until it has n of them in all; it waits as long as the
// test may run (a loaded machine is slow, not wrong).
func collect(t *testing.T, js jetstream.JetStream, n int) (validate []harvest.Record, settled []harvest.Settled) {
	t.Helper()
	consumer := func(stream, subject string) jetstream.Consumer {
		s, err := js.Stream(t.Context(), stream)
		require.NoError(t, err)
		c, err := s.CreateConsumer(t.Context(), jetstream.ConsumerConfig{FilterSubject: subject,
			AckPolicy: jetstream.AckExplicitPolicy})
		require.NoError(t, err)
		return c
	}
	vc := consumer(router.StreamWork, harvest.SubjectValidate)
	sc := consumer(router.StreamSettled, harvest.SubjectSettled)
	for len(validate)+len(settled) < n {
		require.NoError(t, t.Context().Err(), "waiting for %d messages after TRANSFORM", n)
		for _, c := range []jetstream.Consumer{vc, sc} {
			batch, err := c.Fetch(n, jetstream.FetchMaxWait(200*time.Millisecond))
			require.NoError(t, err)
			for m := range batch.Messages() {
				require.NoError(t, m.Ack())
				if c == vc {
					var rec harvest.Record
					require.NoError(t, harvest.Decode(harvest.NewRawMessage("", m.Data()), &rec))
					require.Equal(t, rec.RecordID, m.Headers().Get(harvest.MetaRecordID))
					validate = append(validate, rec)
				} else {
					var s harvest.Settled
					require.NoError(t, harvest.Decode(harvest.NewRawMessage("", m.Data()), &s))
					settled = append(settled, s)
				}
			}
			require.NoError(t, batch.Error())
		}
	}
	return validate, settled
}

// TestStageOnJetStream runs TRANSFORM alone as `harvester worker --stages transform` does, on a
// real JetStream server and Postgres (SQLite without it): an ISO record, a DCAT-US record and a
// malformed ISO record published on harvest.v1.transform become two messages for VALIDATE and
// one settled error_transform outcome, and nothing is kept on harvest.v1.failed.transform.
// TRANSFORM writes nothing: the ISO record's row keeps no source_transform until it settles.
func TestStageOnJetStream(t *testing.T) {
	t.Parallel()
	open := backends["postgres"]
	if os.Getenv("HARVESTER_TEST_DATABASE_URL") == "" && os.Getenv("DATABASE_URL") == "" {
		open = backends["sqlite"]
	}
	b := setup(t, open(t), harvest.JobHarvest)
	natsURL := natstest.URL(t)
	p, err := pipeline.New(t.Context(), pipeline.Config{Store: b.st, NATSURL: natsURL, Registry: prometheus.NewRegistry(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Stages: []string{pipeline.StageTransform},
		MaxRetries: 3, RetryInterval: time.Millisecond})
	require.NoError(t, err)
	t.Cleanup(p.Close)
	require.NoError(t, p.Start(t.Context()))

	nc, err := nats.Connect(natsURL)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	iso := b.record(t, harvest.SchemaISO19115_1, "https://example.gov/waf/gauges.xml", []byte(minimalISO), "")
	dcatus := b.record(t, harvest.SchemaDCATUS11Federal, "ds-1", nil, `{"identifier": "ds-1"}`)
	bad := b.record(t, harvest.SchemaISO19115_2, "https://example.gov/waf/bad.xml", []byte("<gmi:MI_Metadata"), "")
	for _, rec := range []*harvest.Record{iso, dcatus, bad} {
		m, err := harvest.RecordMessage(harvest.SubjectTransform, rec)
		require.NoError(t, err)
		require.NoError(t, p.Bus().Publisher().Publish(harvest.SubjectTransform, m))
	}

	toValidate, settled := collect(t, js, 3)
	got := map[string]harvest.Record{}
	for _, rec := range toValidate {
		require.NotContains(t, got, rec.Identifier, "each record reaches VALIDATE once")
		got[rec.Identifier] = rec
	}
	require.Len(t, got, 2)
	require.Contains(t, got, iso.Identifier)
	require.Contains(t, got, dcatus.Identifier)
	require.NotEmpty(t, got[iso.Identifier].Transformed)
	require.Nil(t, b.stored(t, iso.RecordID).SourceTransform, "TRANSFORM does not write the row")
	require.Empty(t, got[dcatus.Identifier].Transformed)
	require.Equal(t, `{"identifier": "ds-1"}`, string(got[dcatus.Identifier].Body))

	require.Len(t, settled, 1)
	s := settled[0]
	require.Equal(t, bad.Identifier, s.Identifier)
	require.Equal(t, harvest.RecordErrorTransform, s.Status)
	require.Equal(t, harvest.TypeTransformError, s.Errors[0].Type)
	require.Contains(t, s.Errors[0].Message, "malformed XML")

	// None was given up on.
	failed, err := js.Stream(t.Context(), router.StreamFailed)
	require.NoError(t, err)
	info, err := failed.Info(t.Context())
	require.NoError(t, err)
	require.Zero(t, info.State.Msgs, "nothing on harvest.v1.failed.transform")
}
