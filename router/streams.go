package router

import (
	"context"
	"fmt"

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

// streamConfigs are the JetStream streams Harvester uses; nothing here needs nats-server 2.10.
func streamConfigs() []jetstream.StreamConfig {
	keep := failedKeep
	return []jetstream.StreamConfig{
		{Name: StreamWork, Subjects: []string{harvest.SubjectExtract, harvest.SubjectCompare, harvest.SubjectListing,
			harvest.SubjectTransform, harvest.SubjectValidate, harvest.SubjectSync},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
		{Name: StreamSettled, Subjects: []string{harvest.SubjectSettled},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
		{Name: StreamFailed, Subjects: []string{harvest.SubjectFailedPrefix + ">"},
			Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, MaxAge: keep},
		{Name: StreamReport, Subjects: []string{harvest.SubjectReport},
			Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, MaxAge: keep},
		{Name: StreamTrigger, Subjects: []string{harvest.SubjectTrigger},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
	}
}

// streamOf returns the stream that holds subject.
func streamOf(subject string) string {
	for _, cfg := range streamConfigs() {
		for _, s := range cfg.Subjects {
			if s == subject {
				return cfg.Name
			}
		}
	}
	return StreamWork
}

// EnsureStreams creates Harvester's streams and the object store bucket of bodies sent by
// reference (RecordBucket), or updates them to the current configuration.
func EnsureStreams(ctx context.Context, js jetstream.JetStream) error {
	for _, cfg := range streamConfigs() {
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("ensure stream %s: %w", cfg.Name, err)
		}
	}
	if _, err := js.CreateOrUpdateObjectStore(ctx, recordBucketConfig()); err != nil {
		return fmt.Errorf("ensure object store %s: %w", RecordBucket, err)
	}
	return nil
}
