package router

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/harvest"
)

// Stream names.
const (
	StreamWork    = "HARVEST_WORK"
	StreamSettled = "HARVEST_SETTLED"
	StreamFailed  = "HARVEST_FAILED"
	StreamReport  = "HARVEST_REPORT"
	StreamTrigger = "HARVEST_TRIGGER"
)

// MaxStreamReplicas is the most replicas JetStream keeps of a stream (nats-server refuses more).
const MaxStreamReplicas = 5

// streamConfigs are the JetStream streams Harvester uses, each kept on replicas servers of a
// JetStream cluster (at least 1); nothing here needs nats-server 2.10.
func streamConfigs(replicas int) []jetstream.StreamConfig {
	keep := failedKeep
	cfgs := []jetstream.StreamConfig{
		{Name: StreamWork, Subjects: []string{harvest.SubjectExtract, harvest.SubjectCompare, harvest.SubjectListing,
			harvest.SubjectTransform, harvest.SubjectValidate, harvest.SubjectSync},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
		{Name: StreamSettled, Subjects: []string{harvest.SubjectSettled},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
		{Name: StreamFailed, Subjects: []string{harvest.SubjectFailedPrefix + ">"},
			Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, MaxAge: keep},
		{Name: StreamReport, Subjects: []string{harvest.SubjectReport, harvest.SubjectReportFDK},
			Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, MaxAge: keep},
		{Name: StreamTrigger, Subjects: []string{harvest.SubjectTrigger},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
	}
	for i := range cfgs {
		cfgs[i].Replicas = max(1, replicas)
	}
	return cfgs
}

// streamOf returns the stream that holds subject.
func streamOf(subject string) string {
	for _, cfg := range streamConfigs(1) {
		for _, s := range cfg.Subjects {
			if s == subject {
				return cfg.Name
			}
		}
	}
	return StreamWork
}

// EnsureStreams creates Harvester's streams and the object store bucket of bodies sent by
// reference (RecordBucket), or updates them to the current configuration, with replicas
// replicas each (1 to MaxStreamReplicas; 0 means 1). More than 1 needs a JetStream cluster of
// at least that many servers: nats-server refuses the stream otherwise ("insufficient
// resources"). An existing stream is scaled up or down to replicas (nats-server 2.10 and later
// move its data), so every process of an installation must use the same count.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, replicas int) error {
	return ensureStreams(ctx, js, replicas, failedKeep)
}

// ensureStreams is EnsureStreams with the failed stream keeping its messages failedMaxAge (0:
// for ever; WithFailedMaxAge).
func ensureStreams(ctx context.Context, js jetstream.JetStream, replicas int, failedMaxAge time.Duration) error {
	if replicas < 0 || replicas > MaxStreamReplicas {
		return fmt.Errorf("stream replicas %d: want 1 to %d", replicas, MaxStreamReplicas)
	}
	for _, cfg := range streamConfigs(replicas) {
		if cfg.Name == StreamFailed {
			cfg.MaxAge = failedMaxAge
		}
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("ensure stream %s: %w", cfg.Name, err)
		}
	}
	if _, err := js.CreateOrUpdateObjectStore(ctx, recordBucketConfig(replicas)); err != nil {
		return fmt.Errorf("ensure object store %s: %w", RecordBucket, err)
	}
	return nil
}
