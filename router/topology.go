package router

import (
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/harvester-dev/harvester/harvest"
	"github.com/harvester-dev/harvester/stages/extract"
	"github.com/harvester-dev/harvester/stages/transform"
	"github.com/harvester-dev/harvester/stages/validate"
	"github.com/harvester-dev/harvester/trigger"
)

// Stage names, as `harvester worker --stages` spells them.
const (
	StageExtract   = "extract"
	StageCompare   = "compare"
	StageListing   = "listing"
	StageTransform = "transform"
	StageValidate  = "validate"
	StageSync      = "sync"
	StageSettled   = "report"
	StageTrigger   = "trigger"
)

// stage is one row of the topology: a durable consumer on one subject and its handler.
type stage struct {
	name    string
	subject string
	handler message.HandlerFunc
	// ackWait is how long JetStream waits for an ack, or a sign of progress (the subscriber
	// sends one every ackWait/3 while the handler runs), before redelivering.
	ackWait time.Duration
	// subscriptions is how many messages of this stage one process handles at once (its one
	// pull subscription hands that many to the handler concurrently).
	subscriptions int
	// maxPending is the size of a pull (at least subscriptions).
	maxPending int
}

// syncSubscriptions multiplies SYNC's share of Config.Subscriptions (messages handled at once):
// its handlers wait on the search index's bulk writes and the dataset upserts, which are grouped
// from concurrent handlers, so more of them at once means fuller batches. Each bleve batch costs ~5 ms of CPU
// of its own (BenchmarkIndex: 1.5 CPU-ms a document from 4 writers, 0.56 from 16, 0.32 from 64).
const syncSubscriptions = 16

// reportSubscriptions multiplies REPORT's share of Config.Subscriptions: the aggregator settles
// the outcomes of its concurrent handlers in one transaction (report.Handler's group commit),
// so more handlers at once means fuller batches. One handler each settling alone held the
// job's row lock per outcome and paced the whole pipeline (bench: 10-15 ms per outcome at 4).
const reportSubscriptions = 16

// compareSubscriptions multiplies COMPARE's share of Config.Subscriptions: its handlers wait on
// group-committed lookups and inserts (compare's batchers), which fill only with many handlers
// waiting at once. BenchmarkHandleRecord on Postgres, 2 busy cores: 32 handlers ran 5,000-7,900
// creates/s against 1,000-1,400 at 4 (one query per record: 2,500-3,500 either way).
const compareSubscriptions = 8

// topology is every stage and its subject: the one table that wires the pipeline.
func topology(d *deps) []stage {
	// EXTRACT and COMPARE publish from inside their handlers (a listing's records, its deletes):
	// asynchronously, each stage's handler waiting for the PubAcks before it returns.
	ex := extract.New(d.store, d.extractPub, d.fetch, extract.WithMaxRecordBytes(d.cfg.MaxRecordBytes))
	n := d.cfg.Subscriptions
	return []stage{
		{StageExtract, harvest.SubjectExtract, flushed(d.extractPub, noOutput(ex.Handle)), time.Minute, 1, 1},
		{StageCompare, harvest.SubjectCompare, flushed(d.comparePub, d.compare.HandleRecord), time.Minute,
			compareSubscriptions * n, 64},
		{StageListing, harvest.SubjectListing, flushed(d.comparePub, d.compare.HandleListing), time.Minute, 1, 1},
		{StageTransform, harvest.SubjectTransform, transform.New().Handle, time.Minute, n, 64},
		{StageValidate, harvest.SubjectValidate, validate.New().Handle, time.Minute, n, 64},
		{StageSync, harvest.SubjectSync, d.sync.Handle, time.Minute, syncSubscriptions * n, 16},
		{StageSettled, harvest.SubjectSettled, d.report.Handle, time.Minute, reportSubscriptions * n, 32},
		{StageTrigger, harvest.SubjectTrigger, noOutput(trigger.NewHandler(d.store, d.cfg.Logger).Handle), time.Minute, 1, 16},
	}
}

// StageNames lists every stage in pipeline order.
func StageNames() []string {
	return []string{StageExtract, StageCompare, StageListing, StageTransform, StageValidate, StageSync, StageSettled,
		StageTrigger}
}

func noOutput(h func(*message.Message) error) message.HandlerFunc {
	return func(m *message.Message) ([]*message.Message, error) { return nil, h(m) }
}
