// Package router runs the stages on NATS JetStream through a watermill router.
//
// Streams (streams.go): HARVEST_WORK (work queue over the stage subjects), HARVEST_SETTLED
// (work queue for the aggregator), HARVEST_FAILED (harvest.v1.failed.<stage>, kept 30 days for
// replay) and HARVEST_REPORT (report events, kept 30 days).
//
// Each stage subscribes through a durable pull consumer named harvest-<stage> with explicit
// ack, so any number of processes running a stage share its work (queue semantics) and a
// message is redelivered only when its handler neither acked nor nacked within AckWait, at
// most MaxDeliver times. Handler outputs go through one routing Publisher that sends each
// message to the subject in its harvest.MetaSubject metadata.
//
// Middleware, outermost first (router.go addStage; watermill runs the first added outermost):
// Prometheus metrics (router level), logs with job and record ids, the failure policy (after
// retries: the message to harvest.v1.failed.<stage> and the record settled as errored, or the
// job failed), bounded retry with exponential backoff, and innermost panic recovery (a
// handler's panic becomes an error, which is retried like any other). The stage table is
// topology.go.
package router
