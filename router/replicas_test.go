package router

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/harvest"
)

// startCluster runs a 3-node JetStream cluster in the test process and returns the nodes'
// client URLs, comma-separated, once JetStream answers (a meta leader is elected).
func startCluster(t *testing.T) (string, []*server.Server) {
	t.Helper()
	var lns []net.Listener
	for range 3 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns = append(lns, ln)
	}
	var routes []*url.URL
	for _, ln := range lns {
		routes = append(routes, &url.URL{Scheme: "nats", Host: ln.Addr().String()})
		require.NoError(t, ln.Close())
	}
	var urls []string
	var servers []*server.Server
	for i := range 3 {
		s, err := server.NewServer(&server.Options{ServerName: fmt.Sprintf("n%d", i+1), Host: "127.0.0.1",
			Port: server.RANDOM_PORT, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true,
			Cluster: server.ClusterOpts{Name: "test", Host: "127.0.0.1", Port: lns[i].Addr().(*net.TCPAddr).Port}, Routes: routes})
		require.NoError(t, err)
		go s.Start()
		t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
		require.True(t, s.ReadyForConnections(5*time.Minute), "node %d did not start", i+1)
		urls = append(urls, s.ClientURL())
		servers = append(servers, s)
	}
	all := strings.Join(urls, ",")
	// Ready once a stream and a consumer can be placed on all three nodes: the nodes have
	// elected a meta leader and each knows the others are online.
	deadline := time.Now().Add(5 * time.Minute) // a failsafe: a loaded machine elects slowly
	for {
		err := probeCluster(all)
		if err == nil {
			return all, servers
		}
		require.True(t, time.Now().Before(deadline), "the cluster cannot place 3 replicas: %v", err)
		time.Sleep(100 * time.Millisecond)
	}
}

// probeCluster creates and deletes a stream and a consumer with 3 replicas.
func probeCluster(urls string) error {
	nc, err := nats.Connect(urls)
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "PROBE", Subjects: []string{"probe"}, Replicas: 3})
	if err != nil {
		return err
	}
	defer func() { _ = js.DeleteStream(ctx, "PROBE") }()
	_, err = s.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "probe", Replicas: 3})
	return err
}

// Streams, the claim-check bucket, stage consumers and streams created again after a loss are
// kept on as many nodes as WithStreamReplicas says.
func TestStreamReplicas(t *testing.T) {
	urls, nodes := startCluster(t)
	ctx := context.Background()
	bus, err := Connect(ctx, urls, WithStreamReplicas(3))
	require.NoError(t, err)
	t.Cleanup(bus.Close)
	require.Equal(t, 3, bus.Replicas())
	replicas := func(stream string) int {
		s, err := bus.js.Stream(ctx, stream)
		require.NoError(t, err, stream)
		return s.CachedInfo().Config.Replicas
	}
	for _, cfg := range streamConfigs(deployment{replicas: 1}) {
		require.Equal(t, 3, replicas(cfg.Name), "stream %s", cfg.Name)
	}
	require.Equal(t, 3, replicas("OBJ_"+RecordBucket), "object store bucket %s", RecordBucket)

	r, err := New(bus, Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Registerer: prometheus.NewRegistry()})
	require.NoError(t, err)
	require.NoError(t, r.AddStage(Stage{Name: "validate", Subject: harvest.SubjectValidate,
		Handler: harvest.Each(func(*harvest.Message) ([]*harvest.Message, error) { return nil, nil })}))
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	t.Cleanup(func() { cancel(); _ = r.Close() })
	select {
	case <-r.Running():
	case err := <-done:
		t.Fatalf("router: %v", err)
	}
	c, err := bus.js.Consumer(ctx, StreamWork, "harvest-validate")
	require.NoError(t, err)
	require.Equal(t, 3, c.CachedInfo().Config.Replicas, "consumer harvest-validate")

	// A stream the broker lost is created again by the publisher with the same replicas.
	// While the cluster settles the deletion a publish may time out instead of finding no
	// stream (seen in a CI run beside the cluster crash tests): a handler's publish is retried
	// by the router's retry middleware, so this one is retried too. The wait follows the work.
	require.NoError(t, bus.js.DeleteStream(ctx, StreamTrigger))
	for attempt := 1; ; attempt++ {
		err := bus.Publisher().Publish(harvest.SubjectTrigger, harvest.NewRawMessage("1", []byte(`{}`)))
		if err == nil {
			break
		}
		require.Less(t, attempt, 120, "publish after the stream was deleted: %v", err)
		t.Logf("publish, attempt %d: %v; retrying", attempt, err)
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, 3, replicas(StreamTrigger), "stream %s created again", StreamTrigger)

	// With a node down for good, a process (re)starting connects, and binds its consumers.
	nodes[2].Shutdown()
	nodes[2].WaitForShutdown()
	again, err := Connect(ctx, urls, WithStreamReplicas(3))
	require.NoError(t, err, "connect with a node down")
	t.Cleanup(again.Close)
	it, err := newSubscriber(again.js, again.dep, StreamWork, jetstream.ConsumerConfig{Durable: "harvest-sync",
		FilterSubject: harvest.SubjectSync, AckPolicy: jetstream.AckExplicitPolicy, Replicas: 3}, 1, 1, time.Second,
		slog.New(slog.NewTextHandler(io.Discard, nil))).bind(ctx)
	require.NoError(t, err, "a consumer created with a node down")
	it.Stop()

	// Processes that ask for 1 scale the streams down: every process must use the same count.
	one, err := Connect(ctx, urls)
	require.NoError(t, err)
	one.Close()
	require.Equal(t, 1, replicas(StreamWork))
}

// A replica count the cluster cannot hold, or that JetStream does not allow, is an error.
func TestStreamReplicasRefused(t *testing.T) {
	ctx := context.Background()
	for _, n := range []int{0, -1, MaxStreamReplicas + 1} {
		_, err := Connect(ctx, "nats://127.0.0.1:1", WithStreamReplicas(n))
		require.ErrorContains(t, err, fmt.Sprintf("stream replicas %d: want 1 to 5", n))
	}
	e, err := StartEmbedded(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(e.Shutdown)
	_, err = Connect(ctx, e.URL(), WithStreamReplicas(3))
	require.Error(t, err, "3 replicas on a server alone")
	require.ErrorContains(t, err, StreamWork)
	var apiErr *jetstream.APIError
	require.ErrorAs(t, err, &apiErr)
}
