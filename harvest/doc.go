// Package harvest holds the vocabulary every stage shares: job types and statuses, record actions
// and statuses, the settled outcomes the job aggregator counts, the message envelopes that travel
// between stages, and the subjects they travel on. It is a leaf: of this module it imports only
// internal/iri (RFC 3986's dot segments), so stages, the store and the router can all depend on it.
//
// A record's passage through a job (see docs/record-lifecycle.md):
//
//	extract --Record--> compare --Record--> transform --Record--> validate --Record--> sync
//	   |                  |  |                                      |                   |
//	   +--Settled(error)  |  +--Settled(unchanged)                  +--Settled(error)   +--Settled(added|updated|deleted)
//	                      +--Listing: after a complete listing, Record(delete) per stored-but-unseen identifier,
//	                         then Settled(expected count) to the aggregator
//
// Every stage emits exactly one of: the next stage's message, or a settled outcome.
//
// A stage is a BatchHandler (contract.go): a batch of Messages in, one Result per message out.
// Message and Publisher are this package's own, without the transport's types: package router
// carries them over NATS JetStream.
package harvest
