package router

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/harvester-dev/harvester/harvest"
)

// ConsumerLag is one durable consumer's backlog: messages of its stream not yet delivered to
// it (Pending) and delivered but not yet acknowledged (AckPending).
type ConsumerLag struct {
	Stream     string
	Consumer   string
	Pending    uint64
	AckPending int
}

// Lag is the backlog of every durable consumer of the deployment's streams (Stream and Consumer
// as the server names them), and the messages the failed stream holds per stage
// ("harvest.v1.failed.<stage>": kept for replay), by stage.
type Lag struct {
	Consumers []ConsumerLag
	Failed    map[string]uint64
}

// Lag reads the consumers' and the failed stream's state from JetStream (one request per
// stream and per consumer page): the web UI's metrics page.
func (b *Bus) Lag(ctx context.Context) (*Lag, error) {
	out := &Lag{Failed: map[string]uint64{}}
	failedName := b.dep.stream(StreamFailed)
	for _, base := range streamBases {
		name := b.dep.stream(base)
		stream, err := b.js.Stream(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		lister := stream.ListConsumers(ctx)
		for info := range lister.Info() {
			if info.Config.Durable == "" {
				continue // ephemeral: a replay's scan, not a stage
			}
			out.Consumers = append(out.Consumers, ConsumerLag{Stream: name, Consumer: info.Name,
				Pending: info.NumPending, AckPending: info.NumAckPending})
		}
		if err := lister.Err(); err != nil {
			return nil, fmt.Errorf("consumers of %s: %w", name, err)
		}
		if name != failedName {
			continue
		}
		info, err := stream.Info(ctx, jetstream.WithSubjectFilter(b.dep.subject(harvest.SubjectFailedPrefix+">")))
		if err != nil {
			return nil, fmt.Errorf("stream %s: %w", name, err)
		}
		for subj, n := range info.State.Subjects {
			out.Failed[strings.TrimPrefix(b.dep.logical(subj), harvest.SubjectFailedPrefix)] += n
		}
	}
	slices.SortFunc(out.Consumers, func(a, b ConsumerLag) int {
		return strings.Compare(a.Stream+"/"+a.Consumer, b.Stream+"/"+b.Consumer)
	})
	return out, nil
}
