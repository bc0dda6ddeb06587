package crashtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/router"
)

// clusterRecords is the size of the cluster crash tests' catalog (issue 20).
const clusterRecords = 10_000

// startNATSCluster starts the 3-node JetStream cluster of deploy/nats on loopback: each node
// runs its own config file there (server name, JetStream, cluster name and settings), with
// only the addresses and the store directory given on the command line. It returns once
// every node's /healthz is ok; the nodes are killed when the test ends.
func startNATSCluster(t *testing.T) []*natsServer {
	t.Helper()
	requireNATSServer(t)
	ports := freePorts(t, 9)
	var routes []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats://127.0.0.1:%d", ports[3+i]))
	}
	shared, err := os.ReadFile(filepath.Join("..", "deploy", "nats", "cluster.conf"))
	require.NoError(t, err)
	var nodes []*natsServer
	for i := range 3 {
		dir := t.TempDir()
		// The node's files as deploy/nats has them, its store_dir in dir.
		nodeConf, err := os.ReadFile(filepath.Join("..", "deploy", "nats", fmt.Sprintf("nats-%d.conf", i+1)))
		require.NoError(t, err)
		store := filepath.Join(dir, "jetstream")
		const deployed = `store_dir: "/data/jetstream"`
		require.Equal(t, 1, bytes.Count(nodeConf, []byte(deployed)), "nats-%d.conf names its store_dir once", i+1)
		nodeConf = bytes.Replace(nodeConf, []byte(deployed), fmt.Appendf(nil, "store_dir: %q", store), 1)
		conf := filepath.Join(dir, fmt.Sprintf("nats-%d.conf", i+1))
		require.NoError(t, os.WriteFile(conf, nodeConf, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cluster.conf"), shared, 0o644))
		n := &natsServer{t: t, port: ports[i], dir: store, log: filepath.Join(dir, "nats.log"),
			name: fmt.Sprintf("nats-%d", i+1), httpPort: ports[6+i],
			args: []string{"-c", conf, "-m", strconv.Itoa(ports[6+i]), "--cluster", routes[i],
				"--routes", strings.Join(routes, ",")}}
		n.spawn()
		t.Cleanup(n.kill)
		nodes = append(nodes, n)
	}
	for _, n := range nodes {
		n.waitReady()
	}
	return nodes
}

// freePorts returns n distinct free loopback ports.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		require.NoError(t, ln.Close())
	}
	return ports
}

// jetStream is a client of the cluster's JetStream, on every node's URL.
func (c *cluster) jetStream() jetstream.JetStream {
	c.t.Helper()
	nc, err := nats.Connect(c.natsURL(0), nats.MaxReconnects(-1))
	require.NoError(c.t, err)
	c.t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(c.t, err)
	return js
}

// node returns the cluster node named name.
func (c *cluster) node(name string) *natsServer {
	for _, n := range c.nodes {
		if n.name == name {
			return n
		}
	}
	c.t.Fatalf("no cluster node %q", name)
	return nil
}

// streamLeader returns the node that leads stream, waiting while it has none (an election).
func (c *cluster) streamLeader(js jetstream.JetStream, stream string) *natsServer {
	c.t.Helper()
	deadline := time.Now().Add(failsafe)
	for {
		info, err := c.streamInfo(js, stream)
		if err == nil && info.Cluster != nil && info.Cluster.Leader != "" {
			return c.node(info.Cluster.Leader)
		}
		require.True(c.t, time.Now().Before(deadline), "stream %s has no leader after %s (last error %v)", stream, failsafe, err)
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *cluster) streamInfo(js jetstream.JetStream, stream string) (*jetstream.StreamInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	return s.CachedInfo(), nil
}

// requireReplicated asserts that every Harvester stream and stage consumer the processes made
// is kept on all three nodes (--stream-replicas 3), and waits until each stream's replicas are
// current with its leader on the nodes that run (want of them besides the leader). A cluster
// that does not answer (an election) is waited for.
func (c *cluster) requireReplicated(js jetstream.JetStream, want int) {
	c.t.Helper()
	deadline := time.Now().Add(failsafe)
	for _, name := range []string{router.StreamWork, router.StreamSettled, router.StreamFailed, router.StreamReport,
		router.StreamTrigger, "OBJ_" + router.RecordBucket} {
		for {
			info, err := c.streamInfo(js, name)
			if err == nil {
				require.Equal(c.t, c.replicas, info.Config.Replicas, "replicas of stream %s", name)
				if info.Cluster != nil && info.Cluster.Leader != "" && currentPeers(info.Cluster) >= want {
					break
				}
				err = fmt.Errorf("replicas not current: %+v", info.Cluster)
			}
			require.True(c.t, time.Now().Before(deadline), "stream %s after %s: %v", name, failsafe, err)
			time.Sleep(100 * time.Millisecond)
		}
	}
	for _, stream := range []string{router.StreamWork, router.StreamSettled} {
		for {
			infos, err := c.consumers(js, stream)
			if err == nil {
				require.NotEmpty(c.t, infos, "consumers on %s", stream)
				for _, ci := range infos {
					require.Equal(c.t, c.replicas, ci.Config.Replicas, "replicas of consumer %s on %s", ci.Name, stream)
				}
				break
			}
			require.True(c.t, time.Now().Before(deadline), "consumers of %s after %s: %v", stream, failsafe, err)
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// consumers lists the consumers of stream.
func (c *cluster) consumers(js jetstream.JetStream, stream string) ([]*jetstream.ConsumerInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return nil, err
	}
	lister := s.ListConsumers(ctx)
	var infos []*jetstream.ConsumerInfo
	for ci := range lister.Info() {
		infos = append(infos, ci)
	}
	return infos, lister.Err()
}

func currentPeers(ci *jetstream.ClusterInfo) int {
	n := 0
	for _, p := range ci.Replicas {
		if p.Current && !p.Offline {
			n++
		}
	}
	return n
}

// clusterScenario runs a 10,000-record first harvest on the replicated cluster with the
// stages in worker processes per stage group, each process connected with all three nodes'
// URLs, and SIGKILLs the node that leads the record stream (HARVEST_WORK) at a random point of
// the job; then restart says whether it is started again on its store. The job must finish
// with exactly the counts of an uninterrupted run, every dataset once, and the search index
// matching.
func clusterScenario(t *testing.T, restart bool) {
	r := rng(t)
	c := newReplicatedCluster(t)
	c.start("scheduler", "scheduler")
	c.start("worker-ingest", "worker", "--stages", "extract,compare,listing")
	c.start("worker-records", "worker", "--stages", "transform,validate,sync")
	c.start("worker-report", "worker", "--stages", "report,trigger")
	js := c.jetStream()
	doc, want := firstCatalog(t, clusterRecords)
	c.serve(doc)
	job := c.queue()
	at := clusterRecords/10 + r.IntN(clusterRecords*4/10)
	c.waitSettled(job.ID, at)
	// Every stream and consumer is on the three nodes before one goes; without that, a lost
	// node takes the streams it alone kept with it.
	c.requireReplicated(js, c.replicas-1)
	leader := c.streamLeader(js, router.StreamWork)
	t.Logf("job %s: %s, leader of %s, killed after %d of %d outcomes (restarted: %v)", job.ID, leader.name,
		router.StreamWork, at, clusterRecords, restart)
	leader.kill()
	if restart {
		pause(r, 2*time.Second)
		leader.spawn()
		leader.waitReady()
	} else {
		// A process that starts while the node is gone connects to the two left, updates the
		// streams and binds its consumers there.
		pause(r, 2*time.Second)
		w := c.procs["worker-records"]
		w.kill()
		w.start(t)
	}
	got := c.wait(job.ID)
	c.check(got, want)
	if restart {
		c.requireReplicated(js, c.replicas-1)
	} else {
		c.requireReplicated(js, c.replicas-2)
		next := c.streamLeader(js, router.StreamWork)
		require.NotEqual(t, leader.name, next.name, "a surviving node leads %s", router.StreamWork)
	}
}

// The node leading the record streams is killed mid-job and restarted on its store.
func TestClusterKillLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 10,000-record cluster runs take minutes")
	}
	clusterScenario(t, true)
}

// The node leading the record streams is killed mid-job for good, and a worker is restarted
// meanwhile: the job completes on two nodes.
func TestClusterLoseNode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 10,000-record cluster runs take minutes")
	}
	clusterScenario(t, false)
}
