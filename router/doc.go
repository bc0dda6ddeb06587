// Package router is Harvester's transport: NATS JetStream, with nats.go's JetStream API. It
// knows messages, subjects and streams, never a stage, the store or the search index; the
// pipeline package gives it the stages to run (router.Stage rows), each a
// harvest.BatchHandler (harvest's stage contract) over harvest.Messages. Publisher sends a
// harvest.Message as a NATS message (its metadata the headers, its UUID UUIDHeader, the
// header watermill wrote, so that stored messages read alike). watermill is left only in
// Subscriber's Subscribe and wmbridge.go, which run watermill's pub/sub test suite on the
// transport.
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
// most MaxDeliver times. Handler outputs go through a routing Publisher that sends each
// message to the subject in its harvest.MetaSubject metadata.
//
// Batches (batch.go): a stage's messages are pulled into batches of up to Config.BatchSize
// (waiting up to Config.BatchLinger for a short batch to fill) and handed to the stage
// together. Every message's outputs are published asynchronously and their PubAcks awaited
// once for the batch; each message whose outputs were stored is then acked (not AckAll:
// several consumers share a stream), and the acks flushed once. A message that failed is
// retried alone, with exponential backoff, MaxRetries times; then (at once for a
// harvest.PermanentError) it is kept on harvest.v1.failed.<stage> with its reason and the
// stage's GiveUpFunc says what ends its work (an errored outcome, say). A
// harvest.UnknownJobError is counted, logged and acked, never retried; a panic is a failure
// of each message of its batch, retried alone. A shutdown interrupts the batches in flight,
// whose messages are naked and delivered again.
package router
