// Package pipeline builds one Harvester process from one Config: the store, the bus (one NATS
// connection, or an in-process nats-server first), the search index, the stages on a
// transport-only router (topology.go, the one table of stages, subjects and give-up hooks),
// the scheduler and the HTTP handler (the API, or the health endpoints alone). Every command
// of cmd/harvester that runs something (harvest, replay, serve, worker, scheduler, api) turns
// its flags into a Config and calls New, then Start, then Close.
//
// Lifecycle: New opens and builds but runs nothing; Start runs the stages (returning once
// every one is subscribed), the scheduler and the HTTP listener; Close stops them in the
// reverse order of their opening (the listener, the scheduler, the stages, waiting for the
// handlers in flight, their batchers, the index, the bus, the store) and is safe to call twice.
package pipeline
