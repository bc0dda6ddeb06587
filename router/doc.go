// Package router is Harvester's transport: NATS JetStream through a watermill router. It
// knows messages, subjects and streams, never a stage, the store or the search index; the
// pipeline package gives it the stages to run (router.Stage rows).
//
// Streams (streams.go): HARVEST_WORK (work queue over the stage subjects), HARVEST_SETTLED
// (work queue for the aggregator), HARVEST_FAILED (harvest.v1.failed.<stage>, kept 30 days for
// replay), HARVEST_REPORT (report and quality events, kept 30 days), HARVEST_TRIGGER and HARVEST_CHECK
// (work queue of CHECK, the link checker). A Bus is one
// connection with the streams in place; a process opens one and shares it.
//
// Deployments (deployment.go, stamp.go): those names are the default deployment's
// (DefaultPrefix). A deployment with another prefix P (WithPrefix, --nats-prefix) has its own
// streams P_HARVEST_…, subjects P.harvest.v1.…, consumers P-harvest-<stage> and bucket
// P-harvest-records, so several deployments share one NATS server and nothing on it. The code
// names subjects harvest.v1.* throughout (harvest.MetaSubject included); the router maps them
// where it meets the server. At Connect each stream is stamped with the deployment's database
// identity (WithDatabaseID, StampKey): a stream stamped with another database is refused
// (ErrOtherDeployment), one with no stamp is adopted.
//
// Each stage subscribes through a durable pull consumer named harvest-<stage> with explicit
// ack, so any number of processes running a stage share its work (queue semantics) and a
// message is redelivered only when its handler neither acked nor nacked within AckWait, at
// most MaxDeliver times. Handler outputs go through one routing Publisher that sends each
// message to the subject in its harvest.MetaSubject metadata.
//
// Middleware, outermost first: Prometheus metrics (router-wide), logs with job and record
// ids, the give-up path (poison-queue style: after the retries, or on a permanent error, the
// message goes to harvest.v1.failed.<stage> with its reason and the stage's GiveUpFunc says
// what ends its work, e.g. an errored outcome), bounded retry with exponential backoff, the
// count of failed attempts, the unknown-job check (a harvest.UnknownJobError is counted, logged
// and acked, never retried) and panic recovery innermost, so that a panic is retried and given
// up on like an error.
package router
