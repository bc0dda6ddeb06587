package router

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/harvest"
)

// Stream names, as the default deployment names them on the NATS server; a deployment with
// another prefix P has P_HARVEST_WORK and so on (names.stream).
const (
	StreamWork    = "HARVEST_WORK"
	StreamSettled = "HARVEST_SETTLED"
	StreamFailed  = "HARVEST_FAILED"
	StreamReport  = "HARVEST_REPORT"
	StreamTrigger = "HARVEST_TRIGGER"
	// StreamCheck is CHECK's work queue (harvest.SubjectCheck), a stream of its own so that
	// its backlog, which no job waits for, stays out of the work stream's lag.
	StreamCheck = "HARVEST_CHECK"
)

// streamBases is every stream, by its base name.
var streamBases = []string{StreamWork, StreamSettled, StreamFailed, StreamReport, StreamTrigger, StreamCheck}

// MaxStreamReplicas is the most replicas JetStream keeps of a stream (nats-server refuses more).
const MaxStreamReplicas = 5

// streamConfigs are the JetStream streams of deployment d, each kept on d.replicas servers of a
// JetStream cluster (at least 1), with the deployment's names; nothing here needs nats-server
// 2.10.
func streamConfigs(d deployment) []jetstream.StreamConfig {
	keep := failedKeep
	cfgs := []jetstream.StreamConfig{
		{Name: StreamWork, Subjects: []string{harvest.SubjectExtract, harvest.SubjectCompare, harvest.SubjectListing,
			harvest.SubjectTransform, harvest.SubjectValidate, harvest.SubjectSync},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
		{Name: StreamSettled, Subjects: []string{harvest.SubjectSettled},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
		{Name: StreamFailed, Subjects: []string{harvest.SubjectFailedPrefix + ">"},
			Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, MaxAge: d.failedAge()},
		{Name: StreamReport, Subjects: []string{harvest.SubjectReport, harvest.SubjectReportFDK, harvest.SubjectQuality},
			Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, MaxAge: keep},
		{Name: StreamTrigger, Subjects: []string{harvest.SubjectTrigger},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
		{Name: StreamCheck, Subjects: []string{harvest.SubjectCheck},
			Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage},
	}
	for i := range cfgs {
		cfgs[i].Name = d.stream(cfgs[i].Name)
		for j, s := range cfgs[i].Subjects {
			cfgs[i].Subjects[j] = d.subject(s)
		}
		cfgs[i].Replicas = max(1, d.replicas)
	}
	return cfgs
}

// streamOf returns the base name of the stream that holds the code's subject.
func streamOf(subject string) string {
	for _, cfg := range streamConfigs(deployment{}) {
		for _, s := range cfg.Subjects {
			if s == subject {
				return cfg.Name
			}
		}
	}
	return StreamWork
}

// ensureStreams creates deployment d's streams and the object store bucket of bodies sent by
// reference (RecordBucket), or updates them to the current configuration, with d.replicas
// replicas each (1 to MaxStreamReplicas; 0 means 1), and stamps the streams with d.databaseID
// (stamp.go): a stream stamped with another database is refused (ErrOtherDeployment), one with
// no stamp is adopted. More than 1 replica needs a JetStream cluster of at least that many
// servers: nats-server refuses the stream otherwise ("insufficient resources"). An existing
// stream is scaled up or down to d.replicas (nats-server 2.10 and later move its data), so
// every process of a deployment must use the same count.
func ensureStreams(ctx context.Context, js jetstream.JetStream, d deployment) error {
	if d.replicas < 0 || d.replicas > MaxStreamReplicas {
		return fmt.Errorf("stream replicas %d: want 1 to %d", d.replicas, MaxStreamReplicas)
	}
	for _, cfg := range streamConfigs(d) {
		if err := ensureStream(ctx, js, cfg, d); err != nil {
			return err
		}
	}
	if _, err := js.CreateOrUpdateObjectStore(ctx, recordBucketConfig(d)); err != nil {
		return fmt.Errorf("ensure object store %s: %w", d.bucket(), err)
	}
	return nil
}
