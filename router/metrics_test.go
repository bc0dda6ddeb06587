package router_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/router"
	"github.com/harvester-dev/harvester/router/natstest"
)

// metricValue is the value of the series name{label=value} in reg; -1 when it is absent.
func metricValue(t *testing.T, reg *prometheus.Registry, name, label, value string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					switch {
					case m.Counter != nil:
						return m.Counter.GetValue()
					case m.Gauge != nil:
						return m.Gauge.GetValue()
					}
				}
			}
		}
	}
	return -1
}

// testBus connects to the test NATS server (natstest), closed when the test ends.
func testBus(t *testing.T) *router.Bus {
	t.Helper()
	bus, err := router.Connect(context.Background(), natstest.URL(t))
	require.NoError(t, err)
	t.Cleanup(bus.Close)
	return bus
}

// TestStageMetrics: deliveries, emitted messages, failed attempts, give-ups and published
// subjects are counted per stage, and the consumer's lag and failed subject are read from
// JetStream.
func TestStageMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := testBus(t)
	reg := prometheus.NewRegistry()
	require.NoError(t, bus.Instrument(reg))
	r, err := router.New(bus, router.Config{Logger: slog.New(slog.DiscardHandler), Registerer: reg,
		MaxRetries: 2, RetryInterval: time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, r.AddStage(router.Stage{Name: "validate", Subject: harvest.SubjectValidate,
		Handler: harvest.Each(func(msg *harvest.Message) ([]*harvest.Message, error) {
			if msg.Metadata.Get(harvest.MetaIdentifier) == "bad" {
				return nil, errors.New("schema store unreachable")
			}
			return harvest.Settle(&harvest.Settled{Kind: harvest.SettledFailed, JobID: "job-1"})
		})}))
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	<-r.Running()
	require.Equal(t, 0.0, metricValue(t, reg, "harvester_stage_gave_up_total", "stage", "validate"), "series exist at 0")

	publish := func(identifier string) {
		m, err := harvest.RecordMessage(harvest.SubjectValidate, &harvest.Record{JobID: "job-1", Identifier: identifier})
		require.NoError(t, err)
		require.NoError(t, bus.Publisher().Publish(harvest.SubjectValidate, m))
	}
	publish("good")
	publish("bad")
	require.Eventually(t, func() bool {
		return metricValue(t, reg, "harvester_stage_gave_up_total", "stage", "validate") == 1 &&
			metricValue(t, reg, "harvester_stage_consumer_ack_pending_messages", "stage", "validate") == 0 &&
			metricValue(t, reg, "harvester_stage_messages_received_total", "stage", "validate") == 2
	}, time.Minute, 10*time.Millisecond)
	require.Equal(t, 1.0, metricValue(t, reg, "harvester_stage_messages_emitted_total", "stage", "validate"))
	require.Equal(t, 3.0, metricValue(t, reg, "harvester_stage_handler_errors_total", "stage", "validate"), "a try and 2 retries")
	require.Equal(t, 2.0, metricValue(t, reg, "harvester_messages_published_total", "subject", harvest.SubjectValidate))
	require.Equal(t, 1.0, metricValue(t, reg, "harvester_messages_published_total", "subject", harvest.SubjectSettled))
	require.Equal(t, 1.0, metricValue(t, reg, "harvester_messages_published_total", "subject", harvest.SubjectFailedPrefix+"validate"))
	require.Equal(t, 1.0, metricValue(t, reg, "harvester_stage_failed_messages", "stage", "validate"))
	require.Equal(t, 0.0, metricValue(t, reg, "harvester_stage_consumer_pending_messages", "stage", "validate"))

	// With the stage stopped, what is published waits on its consumer: the lag.
	require.NoError(t, r.Close())
	require.NoError(t, <-done)
	publish("later-1")
	publish("later-2")
	require.Equal(t, 2.0, metricValue(t, reg, "harvester_stage_consumer_pending_messages", "stage", "validate"))
}

// TestRedeliveriesCounted: a message a shutdown interrupted is delivered again, and the
// process that gets it counts a redelivery.
func TestRedeliveriesCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	bus := testBus(t)
	run := func(handler harvest.HandlerFunc) (*prometheus.Registry, func()) {
		reg := prometheus.NewRegistry()
		r, err := router.New(bus, router.Config{Logger: slog.New(slog.DiscardHandler), Registerer: reg})
		require.NoError(t, err)
		require.NoError(t, r.AddStage(router.Stage{Name: "sync", Subject: harvest.SubjectSync, Handler: harvest.Each(handler)}))
		done := make(chan error, 1)
		go func() { done <- r.Run(ctx) }()
		<-r.Running()
		return reg, func() { require.NoError(t, r.Close()); <-done }
	}
	started := make(chan struct{})
	first, stop := run(func(msg *harvest.Message) ([]*harvest.Message, error) {
		close(started)
		<-msg.Context().Done() // interrupted by the shutdown below
		return nil, msg.Context().Err()
	})
	m, err := harvest.RecordMessage(harvest.SubjectSync, &harvest.Record{JobID: "job-1", Identifier: "ds-1"})
	require.NoError(t, err)
	require.NoError(t, bus.Publisher().Publish(harvest.SubjectSync, m))
	<-started
	stop()
	require.Equal(t, 0.0, metricValue(t, first, "harvester_stage_redeliveries_total", "stage", "sync"))
	require.Equal(t, 0.0, metricValue(t, first, "harvester_stage_handler_errors_total", "stage", "sync"), "a shutdown is no failure")

	handled := make(chan struct{})
	second, stop := run(func(*harvest.Message) ([]*harvest.Message, error) {
		close(handled)
		return nil, nil
	})
	defer stop()
	<-handled
	require.Equal(t, 1.0, metricValue(t, second, "harvester_stage_redeliveries_total", "stage", "sync"))
}
