package deploy_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"

	"github.com/harvester-dev/harvester/pipeline"
)

// loadCompose loads compose.yaml as `docker compose config` does (compose-go: interpolation,
// the Compose Specification's JSON schema, consistency of references), with env as the only
// environment.
func loadCompose(t *testing.T, env ...string) (*types.Project, error) {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{"compose.yaml"}, cli.WithWorkingDirectory("."),
		cli.WithEnv(env), cli.WithConsistency(true), cli.WithResolvedPaths(true))
	require.NoError(t, err)
	return opts.LoadProject(context.Background())
}

// stagesFlag returns the value of --stages in a command line (as --stages X or --stages=X),
// split at commas; nil when there is none.
func stagesFlag(args []string) []string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--stages="); ok {
			return strings.Split(v, ",")
		}
		if a == "--stages" && i+1 < len(args) {
			return strings.Split(args[i+1], ",")
		}
	}
	return nil
}

// requireEveryStageOnce checks that the groups of stages name every stage exactly once.
func requireEveryStageOnce(t *testing.T, groups map[string][]string) {
	t.Helper()
	seen := map[string]string{}
	for name, stages := range groups {
		for _, s := range stages {
			require.Contains(t, pipeline.StageNames(), s, "%s runs an unknown stage", name)
			require.Empty(t, seen[s], "stage %s runs in both %s and %s", s, seen[s], name)
			seen[s] = name
		}
	}
	for _, s := range pipeline.StageNames() {
		require.NotEmpty(t, seen[s], "no worker runs stage %s", s)
	}
}

func TestComposeFile(t *testing.T) {
	_, err := loadCompose(t)
	require.ErrorContains(t, err, "HARVESTER_API_KEY", "the API's key is required")

	p, err := loadCompose(t, "HARVESTER_API_KEY=k")
	require.NoError(t, err)
	require.Equal(t, "harvester", p.Name)

	for _, name := range []string{"postgres", "nats-1", "nats-2", "nats-3", "opensearch", "api", "scheduler"} {
		require.Contains(t, p.Services, name)
	}
	groups := map[string][]string{}
	for name, s := range p.Services {
		checkComposeService(t, p, name, s)
		if !strings.HasPrefix(name, "worker-") && name != "api" && name != "scheduler" {
			continue
		}
		checkHarvesterService(t, name, s)
		if strings.HasPrefix(name, "worker-") {
			require.Equal(t, "worker", s.Command[0], name)
			groups[name] = stagesFlag(s.Command)
		}
	}
	requireEveryStageOnce(t, groups)
	require.Equal(t, "k", *p.Services["api"].Environment["HARVESTER_API_KEY"])
	require.NotEmpty(t, p.Services["api"].Ports, "the API is published")

	checkNATSNodes(t, p)

	// The NATS image is the nats-server minor version that go.mod pins (the one the tests run).
	gomod, err := os.ReadFile("../go.mod")
	require.NoError(t, err)
	pin := regexp.MustCompile(`github.com/nats-io/nats-server/v2 v(\d+\.\d+)\.`).FindSubmatch(gomod)
	require.NotNil(t, pin)
	for _, name := range []string{"nats-1", "nats-2", "nats-3"} {
		require.True(t, slices.Contains([]string{"nats:" + string(pin[1]) + "-alpine"}, p.Services[name].Image),
			"%s runs nats-server %s (go.mod), not %s", name, pin[1], p.Services[name].Image)
	}
}

// checkComposeService checks what every service of the compose file must have: a health
// check, declared named volumes, read-only bind mounts of repository files, an interpolated
// image.
func checkComposeService(t *testing.T, p *types.Project, name string, s types.ServiceConfig) {
	require.NotNil(t, s.HealthCheck, "%s has a health check", name)
	require.False(t, s.HealthCheck.Disable, name)
	require.NotEmpty(t, s.HealthCheck.Test, "%s has a health check", name)
	for _, v := range s.Volumes {
		switch v.Type {
		case types.VolumeTypeVolume:
			require.Contains(t, p.Volumes, v.Source, "%s mounts a declared named volume", name)
		case types.VolumeTypeBind:
			_, err := os.Stat(v.Source)
			require.NoError(t, err, "%s bind-mounts a file of the repository", name)
			require.True(t, v.ReadOnly, "%s: bind mounts are read-only", name)
		}
	}
	if s.Image != "" && strings.HasPrefix(s.Image, "${") {
		t.Errorf("%s: image %q was not interpolated", name, s.Image)
	}
}

// checkHarvesterService checks one of Harvester's own services (api, scheduler, worker-*): it
// runs locked down, answers its health check, and waits for and reaches the services it uses.
func checkHarvesterService(t *testing.T, name string, s types.ServiceConfig) {
	require.True(t, s.ReadOnly, "%s: read-only root filesystem", name)
	require.Regexp(t, `^[1-9]\d*(:\d+)?$`, s.User, "%s runs as a numeric non-root user", name)
	require.Equal(t, []string{"/harvester", "healthcheck", "--path", "/readyz"}, []string(s.HealthCheck.Test[1:]), name)
	// The API's health check uses its ops listener, which answers while clients fill the public
	// port; the other processes serve /readyz on --addr, which is theirs alone.
	port := "8080"
	if s.Command[0] == "api" {
		require.Equal(t, []string{"--addr", "0.0.0.0:8080"}, []string(s.Command[1:3]), name)
		require.Equal(t, []string{"--ops-addr", "0.0.0.0:9090"}, []string(s.Command[3:5]), name)
		port = "9090"
	}
	require.Contains(t, s.Command, "0.0.0.0:"+port, "%s serves /readyz where its health check looks", name)
	require.Equal(t, "127.0.0.1:"+port, *s.Environment["HARVESTER_HEALTHCHECK_ADDR"], name)
	for _, dep := range []string{"postgres", "nats-1", "nats-2", "nats-3", "opensearch"} {
		require.Contains(t, s.DependsOn, dep, name)
		require.Equal(t, types.ServiceConditionHealthy, s.DependsOn[dep].Condition, "%s waits for %s", name, dep)
	}
	require.Equal(t, "nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222", *s.Environment["NATS_URL"], name)
	require.Equal(t, "3", *s.Environment["HARVESTER_STREAM_REPLICAS"], name)
	require.Equal(t, "harvester", *s.Environment["HARVESTER_NATS_PREFIX"], name, "one prefix for every process")
	require.NotNil(t, s.Environment["DATABASE_URL"], name)
	require.Equal(t, "http://opensearch:9200", *s.Environment["OPENSEARCH_URL"], name)
}

// checkNATSNodes: each NATS node runs its file of deploy/nats/, which names the server as
// compose names the service (the routes of the cluster configuration use those names), and
// keeps JetStream in a volume of its own.
func checkNATSNodes(t *testing.T, p *types.Project) {
	for _, name := range []string{"nats-1", "nats-2", "nats-3"} {
		s := p.Services[name]
		require.Equal(t, []string{"-c", "/etc/nats/" + name + ".conf"}, []string(s.Command), name)
		conf, err := os.ReadFile(filepath.Join("nats", name+".conf"))
		require.NoError(t, err, "deploy/nats/%s.conf (the cluster configuration)", name)
		require.Regexp(t, regexp.MustCompile(`(?m)^server_name: `+name+`$`), string(conf))
		cluster, err := os.ReadFile(filepath.Join("nats", "cluster.conf"))
		require.NoError(t, err)
		require.Regexp(t, regexp.MustCompile(`(?m)^\s*store_dir:\s*"?/data(/|"|$)`), string(conf)+string(cluster),
			"%s keeps JetStream in its volume at /data", name)
		var data bool
		for _, v := range s.Volumes {
			data = data || v.Type == types.VolumeTypeVolume && v.Source == name+"-data" && v.Target == "/data"
		}
		require.True(t, data, "%s keeps /data in the volume %s-data", name, name)
	}
}
