package router

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/harvester-dev/harvester/harvest"
)

// stageMetrics are a Router's metrics, each labelled by stage (the topology's names: a handful):
//
//	harvester_stage_messages_received_total      deliveries handed to the stage's handler
//	harvester_stage_messages_emitted_total       messages the handler returned for the router to
//	                                             publish (EXTRACT and COMPARE publish their own:
//	                                             harvester_messages_published_total counts them)
//	harvester_stage_handler_duration_seconds     one delivery, its retries included: a batch's
//	                                             time over its messages, observed once for each
//	harvester_stage_handler_errors_total         failed handler attempts (each retry counts)
//	harvester_stage_gave_up_total                messages given up on, kept on harvest.v1.failed.<stage>
//	harvester_stage_redeliveries_total           deliveries JetStream made more than once
//	harvester_messages_unknown_job_total         messages of a job the database does not have
//	                                             (harvest.UnknownJobError), acked
//
// and, read from JetStream at each scrape (jetstreamCollector), the stage consumer's lag.
type stageMetrics struct {
	received, emitted, errors, gaveUp, redelivered, unknownJob *prometheus.CounterVec
	duration                                                   *prometheus.HistogramVec
}

func newStageMetrics(reg prometheus.Registerer) (*stageMetrics, error) {
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"stage"})
	}
	m := &stageMetrics{
		received:    counter("harvester_stage_messages_received_total", "Messages delivered to the stage's handler."),
		emitted:     counter("harvester_stage_messages_emitted_total", "Messages the stage's handler returned for the router to publish."),
		errors:      counter("harvester_stage_handler_errors_total", "Failed attempts of the stage's handler, retries included."),
		gaveUp:      counter("harvester_stage_gave_up_total", "Messages the stage gave up on, kept on harvest.v1.failed.<stage>."),
		redelivered: counter("harvester_stage_redeliveries_total", "Deliveries JetStream made of a message it had delivered before."),
		unknownJob: counter("harvester_messages_unknown_job_total",
			"Messages of a job this deployment's database does not have (deleted with its source, or another deployment's), acked."),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "harvester_stage_handler_duration_seconds",
			Help:    "Time the stage took to handle one delivery, its in-process retries included (a batch's time shared by its messages).",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10)}, []string{"stage"}),
	}
	for _, c := range []prometheus.Collector{m.received, m.emitted, m.errors, m.gaveUp, m.redelivered, m.unknownJob, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, errors.Join(errors.New("register stage metrics"), err)
		}
	}
	return m, nil
}

// init makes every series of stage exist, at 0, so rates and alerts see it from the start.
func (m *stageMetrics) init(stage string) {
	for _, c := range []*prometheus.CounterVec{m.received, m.emitted, m.errors, m.gaveUp, m.redelivered, m.unknownJob} {
		c.WithLabelValues(stage)
	}
}

// consumerRef names one stage's durable consumer.
type consumerRef struct{ stage, stream, durable string }

// jetstreamCollector reads the lag of the stages' consumers and the size of their failed
// subjects from JetStream at each scrape (a collector, as Prometheus exporters read a server's
// state: fresh, and nothing polls while nobody scrapes). Each process running a stage reports
// the same figures for it: aggregate them with max by (stage).
//
//	harvester_stage_consumer_pending_messages       messages on the subject not yet delivered
//	harvester_stage_consumer_ack_pending_messages   delivered, not yet acknowledged
//	harvester_stage_consumer_redelivered_messages   delivered more than once, not yet acknowledged
//	harvester_stage_failed_messages                 messages kept on harvest.v1.failed.<stage>
//
// A stage whose consumer JetStream cannot describe within timeout is left out of that scrape.
type jetstreamCollector struct {
	js      jetstream.JetStream
	names   names
	logger  *slog.Logger
	timeout time.Duration

	mu        sync.Mutex
	consumers []consumerRef

	pending, ackPending, redelivered, failed *prometheus.Desc
}

func newJetStreamCollector(js jetstream.JetStream, n names, logger *slog.Logger) *jetstreamCollector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, []string{"stage"}, nil)
	}
	return &jetstreamCollector{js: js, names: n, logger: logger, timeout: 2 * time.Second,
		pending:     desc("harvester_stage_consumer_pending_messages", "Messages of the stage's subject JetStream has not delivered yet."),
		ackPending:  desc("harvester_stage_consumer_ack_pending_messages", "Messages delivered to the stage and not acknowledged yet."),
		redelivered: desc("harvester_stage_consumer_redelivered_messages", "Messages delivered to the stage more than once and not acknowledged yet."),
		failed:      desc("harvester_stage_failed_messages", "Messages the stage gave up on, kept on harvest.v1.failed.<stage> for replay."),
	}
}

func (c *jetstreamCollector) add(ref consumerRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.consumers = append(c.consumers, ref)
}

// Describe implements prometheus.Collector.
func (c *jetstreamCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.ackPending
	ch <- c.redelivered
	ch <- c.failed
}

// Collect implements prometheus.Collector.
func (c *jetstreamCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	refs := append([]consumerRef(nil), c.consumers...)
	c.mu.Unlock()
	if len(refs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	for _, ref := range refs {
		cons, err := c.js.Consumer(ctx, ref.stream, ref.durable)
		var info *jetstream.ConsumerInfo
		if err == nil {
			info, err = cons.Info(ctx)
		}
		if err != nil {
			c.logger.Debug("metrics: jetstream consumer info", "consumer", ref.durable, "error", err)
			continue
		}
		ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(info.NumPending), ref.stage)
		ch <- prometheus.MustNewConstMetric(c.ackPending, prometheus.GaugeValue, float64(info.NumAckPending), ref.stage)
		ch <- prometheus.MustNewConstMetric(c.redelivered, prometheus.GaugeValue, float64(info.NumRedelivered), ref.stage)
	}
	c.collectFailed(ctx, refs, ch)
}

// collectFailed reports the size of each stage's failed subject.
func (c *jetstreamCollector) collectFailed(ctx context.Context, refs []consumerRef, ch chan<- prometheus.Metric) {
	stream, err := c.js.Stream(ctx, c.names.stream(StreamFailed))
	var info *jetstream.StreamInfo
	if err == nil {
		info, err = stream.Info(ctx, jetstream.WithSubjectFilter(c.names.subject(harvest.SubjectFailedPrefix+">")))
	}
	if err != nil {
		c.logger.Debug("metrics: jetstream failed stream info", "error", err)
		return
	}
	for _, ref := range refs {
		n := info.State.Subjects[c.names.subject(harvest.SubjectFailedPrefix+ref.stage)]
		ch <- prometheus.MustNewConstMetric(c.failed, prometheus.GaugeValue, float64(n), ref.stage)
	}
}

// subjectLabel is the subject label of a published message: its subject, which is one of a
// fixed set (harvest.v1.<stage>, harvest.v1.failed.<stage>, harvest.v1.settled, ...).
func subjectLabel(subject string) string {
	if strings.HasPrefix(subject, "harvest.v1.") {
		return subject
	}
	return "other"
}
