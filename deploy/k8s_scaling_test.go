package deploy_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"github.com/harvester-dev/harvester/pipeline"
	"github.com/harvester-dev/harvester/router/natstest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

func checkScaledObjects(t *testing.T, scaled []object, groups map[string][]string) {
	t.Helper()
	for _, so := range scaled {
		require.Equal(t, "keda.sh/v1alpha1", so.APIVersion)
		var spec scaledObjectSpec
		so.spec(t, &spec)
		target := spec.ScaleTargetRef.Name
		require.Contains(t, groups, target, "%s scales a worker Deployment of the build", so.Metadata.Name)
		require.Contains(t, []string{"", "Deployment"}, spec.ScaleTargetRef.Kind)
		require.NotNil(t, spec.MaxReplicaCount, so.Metadata.Name)
		require.True(t, spec.MinReplicaCount == nil || *spec.MinReplicaCount <= *spec.MaxReplicaCount, so.Metadata.Name)
		// A trigger per consumer of its stages: a stage has one, CHECK two (its link checks and the
		// report events it settles on); TestScaledObjectsNameTheTopologysConsumers names them.
		require.GreaterOrEqual(t, len(spec.Triggers), len(groups[target]), "%s: a trigger per stage of %s", so.Metadata.Name, target)
		for _, tr := range spec.Triggers {
			require.Equal(t, "nats-jetstream", tr.Type)
			for _, key := range []string{"natsServerMonitoringEndpoint", "account", "stream", "consumer", "lagThreshold"} {
				require.NotEmpty(t, tr.Metadata[key], "%s: trigger metadata %s", so.Metadata.Name, key)
			}
			n, err := strconv.Atoi(tr.Metadata["lagThreshold"])
			require.NoError(t, err)
			require.Positive(t, n)
			require.Equal(t, "$G", tr.Metadata["account"], "Harvester's NATS has no accounts")
			require.Regexp(t, `^nats-headless\.harvester\.svc\.cluster\.local:8222$`, tr.Metadata["natsServerMonitoringEndpoint"],
				"the monitoring endpoint is in the overlay's namespace")
		}
	}
}

func checkHPAs(t *testing.T, hpas, deployments []object, groups map[string][]string) {
	t.Helper()
	requests := map[string]string{}
	for _, d := range deployments {
		var spec deploymentSpec
		d.spec(t, &spec)
		requests[d.Metadata.Name] = spec.Template.Spec.Containers[0].Resources.Requests["cpu"]
	}
	for _, h := range hpas {
		require.Equal(t, "autoscaling/v2", h.APIVersion)
		var spec hpaSpec
		h.spec(t, &spec)
		require.Equal(t, "Deployment", spec.ScaleTargetRef.Kind)
		require.Equal(t, "apps/v1", spec.ScaleTargetRef.APIVersion)
		require.Contains(t, groups, spec.ScaleTargetRef.Name, "%s scales a worker Deployment of the build", h.Metadata.Name)
		require.Positive(t, spec.MinReplicas)
		require.LessOrEqual(t, spec.MinReplicas, spec.MaxReplicas)
		require.NotEmpty(t, spec.Metrics)
		for _, m := range spec.Metrics {
			require.Equal(t, "Resource", m.Type)
			require.NotEmpty(t, requests[spec.ScaleTargetRef.Name], "utilization of %s needs a request", m.Resource.Name)
		}
	}
}

// consumer is a JetStream durable consumer on its stream.
type consumer struct{ stream, name string }

// The streams and consumers the ScaledObjects name are the ones Harvester creates: for each
// worker Deployment, a pipeline running that Deployment's --stages against a real (in-process)
// nats-server creates exactly the durable consumers its ScaledObject's triggers read.
func TestScaledObjectsNameTheTopologysConsumers(t *testing.T) {
	objs := kustomizeBuild(t, "k8s/overlays/example")
	stagesOf := map[string][]string{}
	for _, d := range byKind(objs, "Deployment") {
		var spec deploymentSpec
		d.spec(t, &spec)
		if args := spec.Template.Spec.Containers[0].Args; args[0] == "worker" {
			stagesOf[d.Metadata.Name] = stagesFlag(args)
		}
	}
	require.NotEmpty(t, stagesOf)
	scaled := byKind(objs, "ScaledObject")
	require.Len(t, scaled, len(stagesOf))
	for _, so := range scaled {
		var spec scaledObjectSpec
		so.spec(t, &spec)
		stages := stagesOf[spec.ScaleTargetRef.Name]
		require.NotEmpty(t, stages, so.Metadata.Name)
		var triggers []consumer
		for _, tr := range spec.Triggers {
			triggers = append(triggers, consumer{tr.Metadata["stream"], tr.Metadata["consumer"]})
		}
		require.ElementsMatch(t, createdConsumers(t, stages), triggers,
			"%s: its triggers read the consumers of stages %v", so.Metadata.Name, stages)
	}
}

// createdConsumers starts a pipeline running stages (embedded store, in-process nats-server of
// its own) and returns the durable consumers it created (the work the triggers scale on).
func createdConsumers(t *testing.T, stages []string) []consumer {
	t.Helper()
	url := natstest.URL(t)
	// Link checks on, as the worker Deployments run (--link-checks): CHECK's consumers exist then.
	p, err := pipeline.New(context.Background(), pipeline.Config{DataDir: t.TempDir(), NATSURL: url, SearchIndex: "none",
		LinkChecks: &pipeline.LinkCheckConfig{Recheck: time.Hour},
		Stages:     stages, Registry: prometheus.NewRegistry(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	defer p.Close()
	require.NoError(t, p.Start(context.Background()))
	nc, err := nats.Connect(url)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	var out []consumer
	streams := js.StreamNames(context.Background())
	for s := range streams.Name() {
		st, err := js.Stream(context.Background(), s)
		require.NoError(t, err)
		infos := st.ListConsumers(context.Background())
		for c := range infos.Info() {
			if c.Config.Durable != "" { // not the ephemeral watch of the members bucket (router.Join)
				out = append(out, consumer{s, c.Name})
			}
		}
		require.NoError(t, infos.Err())
	}
	require.NoError(t, streams.Err())
	return out
}
