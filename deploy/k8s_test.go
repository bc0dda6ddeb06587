package deploy_test

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/harvester-dev/harvester/internal/testenv"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The Kubernetes objects the checks read: only the fields they look at.
type (
	object struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name      string            `yaml:"name"`
			Namespace string            `yaml:"namespace"`
			Labels    map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec yaml.Node         `yaml:"spec"`
		Data map[string]string `yaml:"data"`
	}
	labelSelector struct {
		MatchLabels      map[string]string `yaml:"matchLabels"`
		MatchExpressions []struct {
			Key      string   `yaml:"key"`
			Operator string   `yaml:"operator"`
			Values   []string `yaml:"values"`
		} `yaml:"matchExpressions"`
	}
	probe struct {
		HTTPGet *struct {
			Path string `yaml:"path"`
			Port any    `yaml:"port"`
		} `yaml:"httpGet"`
		PeriodSeconds    int `yaml:"periodSeconds"`
		FailureThreshold int `yaml:"failureThreshold"`
	}
	container struct {
		Name    string   `yaml:"name"`
		Image   string   `yaml:"image"`
		Args    []string `yaml:"args"`
		EnvFrom []struct {
			ConfigMapRef *struct {
				Name string `yaml:"name"`
			} `yaml:"configMapRef"`
		} `yaml:"envFrom"`
		Env []struct {
			Name      string `yaml:"name"`
			Value     string `yaml:"value"`
			ValueFrom *struct {
				SecretKeyRef *struct {
					Name     string `yaml:"name"`
					Key      string `yaml:"key"`
					Optional bool   `yaml:"optional"`
				} `yaml:"secretKeyRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		LivenessProbe  *probe `yaml:"livenessProbe"`
		ReadinessProbe *probe `yaml:"readinessProbe"`
		StartupProbe   *probe `yaml:"startupProbe"`
		Resources      struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext struct {
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
			Capabilities             struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	deploymentSpec struct {
		Selector labelSelector `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"metadata"`
			Spec struct {
				SecurityContext struct {
					RunAsNonRoot *bool `yaml:"runAsNonRoot"`
					RunAsUser    int   `yaml:"runAsUser"`
				} `yaml:"securityContext"`
				AutomountServiceAccountToken *bool       `yaml:"automountServiceAccountToken"`
				Containers                   []container `yaml:"containers"`
				Volumes                      []struct {
					Name     string    `yaml:"name"`
					EmptyDir *struct{} `yaml:"emptyDir"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	}
	scaledObjectSpec struct {
		ScaleTargetRef struct {
			Name string `yaml:"name"`
			Kind string `yaml:"kind"`
		} `yaml:"scaleTargetRef"`
		MinReplicaCount *int `yaml:"minReplicaCount"`
		MaxReplicaCount *int `yaml:"maxReplicaCount"`
		Triggers        []struct {
			Type     string            `yaml:"type"`
			Metadata map[string]string `yaml:"metadata"`
		} `yaml:"triggers"`
	}
	hpaSpec struct {
		ScaleTargetRef struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
			Name       string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicas int `yaml:"minReplicas"`
		MaxReplicas int `yaml:"maxReplicas"`
		Metrics     []struct {
			Type     string `yaml:"type"`
			Resource struct {
				Name string `yaml:"name"`
			} `yaml:"resource"`
		} `yaml:"metrics"`
	}
)

func (o object) spec(t *testing.T, into any) {
	t.Helper()
	require.NoError(t, o.Spec.Decode(into), "%s %s: spec", o.Kind, o.Metadata.Name)
}

// kustomizeBin is the kustomize to run: HARVESTER_KUSTOMIZE, or kustomize on PATH. Missing,
// the test fails in CI (CI=true) and is skipped elsewhere.
func kustomizeBin(t *testing.T) string {
	t.Helper()
	return testenv.Tool(t, "HARVESTER_KUSTOMIZE", "kustomize",
		"kustomize not found (set HARVESTER_KUSTOMIZE or put it on PATH: eval \"$(bash scripts/deploy-tools.sh)\")")
}

// kustomizeBuild runs `kustomize build dir` and returns its objects.
func kustomizeBuild(t *testing.T, dir string) []object {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(kustomizeBin(t), "build", dir)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "kustomize build %s: %s", dir, stderr.String())
	var out []object
	dec := yaml.NewDecoder(&stdout)
	for {
		var o object
		err := dec.Decode(&o)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err, "kustomize build %s", dir)
		out = append(out, o)
	}
	return out
}

func byKind(objs []object, kind string) []object {
	var out []object
	for _, o := range objs {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

// selects reports whether sel matches labels.
func (sel labelSelector) selects(labels map[string]string) bool {
	for k, v := range sel.MatchLabels {
		if labels[k] != v {
			return false
		}
	}
	for _, e := range sel.MatchExpressions {
		v, ok := labels[e.Key]
		switch e.Operator {
		case "In":
			if !ok || !slices.Contains(e.Values, v) {
				return false
			}
		case "Exists":
			if !ok {
				return false
			}
		default:
			return false // not used here
		}
	}
	return len(sel.MatchLabels)+len(sel.MatchExpressions) > 0
}

var overlays = []string{"k8s/base", "k8s/overlays/example", "k8s/overlays/example-hpa"}

// Every kustomization builds, and its Deployments are what a platform team expects: probes on
// the health endpoints, requests and limits, non-root read-only containers, a PDB each, config
// from the ConfigMap and secrets by reference; workers cover every stage once and the
// NetworkPolicy holds them.
func TestKustomizeBuilds(t *testing.T) {
	for _, dir := range overlays {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			objs := kustomizeBuild(t, dir)
			configMaps := map[string]bool{}
			for _, cm := range byKind(objs, "ConfigMap") {
				configMaps[cm.Metadata.Name] = true
			}
			deployments := byKind(objs, "Deployment")
			require.Len(t, deployments, 8, "api, scheduler and six worker groups")
			groups := map[string][]string{}
			for _, d := range deployments {
				checkDeployment(t, d, configMaps)
				var spec deploymentSpec
				d.spec(t, &spec)
				args := spec.Template.Spec.Containers[0].Args
				if args[0] == "worker" {
					groups[d.Metadata.Name] = stagesFlag(args)
				}
				var pdbs int
				for _, pdb := range byKind(objs, "PodDisruptionBudget") {
					var ps struct {
						Selector       labelSelector `yaml:"selector"`
						MaxUnavailable any           `yaml:"maxUnavailable"`
						MinAvailable   any           `yaml:"minAvailable"`
					}
					pdb.spec(t, &ps)
					if ps.Selector.selects(spec.Template.Metadata.Labels) {
						pdbs++
						require.True(t, ps.MaxUnavailable != nil || ps.MinAvailable != nil, pdb.Metadata.Name)
					}
				}
				require.Equal(t, 1, pdbs, "%s has one PodDisruptionBudget", d.Metadata.Name)
				if args[0] == "worker" || args[0] == "api" {
					var ports []string
					for _, p := range spec.Template.Spec.Containers[0].Ports {
						ports = append(ports, p.Name)
					}
					requireNetworkPolicy(t, objs, d.Metadata.Name, spec.Template.Metadata.Labels, ports)
				}
			}
			requireEveryStageOnce(t, groups)
			compose, err := loadCompose(t, "HARVESTER_API_KEY=k")
			require.NoError(t, err)
			for name, stages := range groups {
				svc := strings.TrimPrefix(name, "harvester-")
				require.Contains(t, compose.Services, svc, "compose has the same worker groups")
				require.Equal(t, stages, stagesFlag(compose.Services[svc].Command), "%s: the same stages in compose", svc)
			}

			var apiService bool
			for _, svc := range byKind(objs, "Service") {
				var ss struct {
					Selector map[string]string `yaml:"selector"`
					Ports    []struct {
						TargetPort any `yaml:"targetPort"`
					} `yaml:"ports"`
				}
				svc.spec(t, &ss)
				apiService = apiService || ss.Selector["app.kubernetes.io/component"] == "api" && len(ss.Ports) == 1 && ss.Ports[0].TargetPort == "http"
			}
			require.True(t, apiService, "a Service for the API's http port")

			scaled, hpas := byKind(objs, "ScaledObject"), byKind(objs, "HorizontalPodAutoscaler")
			switch filepath.Base(dir) {
			case "example":
				require.Len(t, scaled, len(groups), "a ScaledObject per worker Deployment")
				require.Empty(t, hpas, "KEDA makes the HPAs of its ScaledObjects")
				checkScaledObjects(t, scaled, groups)
			case "example-hpa":
				require.Empty(t, scaled)
				require.Len(t, hpas, len(groups), "an HPA per worker Deployment")
				checkHPAs(t, hpas, deployments, groups)
			}
		})
	}
}

func checkDeployment(t *testing.T, d object, configMaps map[string]bool) {
	t.Helper()
	name := d.Metadata.Name
	var spec deploymentSpec
	d.spec(t, &spec)
	require.True(t, spec.Selector.selects(spec.Template.Metadata.Labels), "%s: its selector matches its pods", name)
	pod := spec.Template.Spec
	require.NotNil(t, pod.SecurityContext.RunAsNonRoot, name)
	require.True(t, *pod.SecurityContext.RunAsNonRoot, "%s: runAsNonRoot", name)
	require.NotZero(t, pod.SecurityContext.RunAsUser, "%s: runs as a non-root uid", name)
	require.NotNil(t, pod.AutomountServiceAccountToken, name)
	require.False(t, *pod.AutomountServiceAccountToken, "%s mounts no service account token", name)
	require.Len(t, pod.Containers, 1, name)
	c := pod.Containers[0]
	require.NotEmpty(t, c.Image, name)
	require.Contains(t, c.Args, "--addr=0.0.0.0:8080", "%s serves its health endpoints", name)
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	// The API's probes and Prometheus use its ops listener, which answers while clients fill
	// the public port; the other processes serve them on --addr, which is theirs alone.
	wantPorts, probePort := map[string]int{"http": 8080}, "http"
	if c.Args[0] == "api" {
		require.Contains(t, c.Args, "--ops-addr=0.0.0.0:9090", "%s serves its probes apart", name)
		wantPorts["ops"], probePort = 9090, "ops"
	}
	require.Equal(t, wantPorts, ports, name)
	for path, p := range map[string]*probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		require.NotNil(t, p, "%s: probe on %s", name, path)
		require.NotNil(t, p.HTTPGet, name)
		require.Equal(t, path, p.HTTPGet.Path, name)
		require.Equal(t, probePort, p.HTTPGet.Port, name)
	}
	// A process that opens the search index (the API, SYNC) rebuilds an index of another
	// mapping before it listens (search.Migrate; docs/search-index.md): a startup probe gives it
	// 15 minutes, so the liveness probe (3 × 10 s) does not kill it mid-rebuild, again and again.
	if c.Args[0] == "api" || slices.Contains(c.Args, "--stages=sync") {
		p := c.StartupProbe
		require.NotNil(t, p, "%s: a startup probe (it may rebuild the search index before it listens)", name)
		require.NotNil(t, p.HTTPGet, name)
		require.Equal(t, "/healthz", p.HTTPGet.Path, name)
		require.Equal(t, probePort, p.HTTPGet.Port, name)
		require.GreaterOrEqual(t, p.PeriodSeconds*p.FailureThreshold, 900, "%s: the startup probe waits 15 minutes", name)
	}
	annotations := spec.Template.Metadata.Annotations
	require.Equal(t, "true", annotations["prometheus.io/scrape"], name)
	require.Equal(t, strconv.Itoa(ports[probePort]), annotations["prometheus.io/port"], "%s: Prometheus scrapes the probes' port", name)
	for _, r := range []string{"cpu", "memory"} {
		require.NotEmpty(t, c.Resources.Requests[r], "%s: %s request", name, r)
		require.NotEmpty(t, c.Resources.Limits[r], "%s: %s limit", name, r)
	}
	require.LessOrEqual(t, mebibytes(t, c.Resources.Requests["memory"]), mebibytes(t, c.Resources.Limits["memory"]), name)
	// The bench's peak RSS of every stage in one process without an in-process index is ~98
	// MiB at 100,000 records (docs/benchmarks.md, Speed): no group may be limited below it.
	require.GreaterOrEqual(t, mebibytes(t, c.Resources.Limits["memory"]), 128, "%s: memory limit", name)
	sc := c.SecurityContext
	require.True(t, sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem, "%s: read-only root", name)
	require.True(t, sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation, "%s: no privilege escalation", name)
	require.Equal(t, []string{"ALL"}, sc.Capabilities.Drop, name)
	var tmp bool
	for _, m := range c.VolumeMounts {
		if m.MountPath == "/tmp" {
			for _, v := range pod.Volumes {
				tmp = tmp || v.Name == m.Name && v.EmptyDir != nil
			}
		}
	}
	require.True(t, tmp, "%s: /tmp is an emptyDir (spooled downloads, large RDF graphs)", name)
	var fromConfig bool
	for _, e := range c.EnvFrom {
		if e.ConfigMapRef != nil {
			require.True(t, configMaps[e.ConfigMapRef.Name], "%s: ConfigMap %s is in the build", name, e.ConfigMapRef.Name)
			fromConfig = true
		}
	}
	require.True(t, fromConfig, "%s: settings from a ConfigMap", name)
	var dbURL bool
	for _, e := range c.Env {
		require.Empty(t, e.Value, "%s: %s comes from the ConfigMap or a Secret, not a literal", name, e.Name)
		require.NotNil(t, e.ValueFrom, name)
		require.NotNil(t, e.ValueFrom.SecretKeyRef, "%s: %s from a Secret", name, e.Name)
		require.Equal(t, "harvester-secrets", e.ValueFrom.SecretKeyRef.Name, name)
		dbURL = dbURL || e.Name == "DATABASE_URL" && !e.ValueFrom.SecretKeyRef.Optional
	}
	require.True(t, dbURL, "%s: DATABASE_URL from the Secret", name)
}

// mebibytes converts a Kubernetes memory quantity in Mi or Gi.
func mebibytes(t *testing.T, q string) int {
	t.Helper()
	for suffix, mul := range map[string]int{"Mi": 1, "Gi": 1024} {
		if v, ok := strings.CutSuffix(q, suffix); ok {
			n, err := strconv.Atoi(v)
			require.NoError(t, err, q)
			return n * mul
		}
	}
	t.Fatalf("memory quantity %q: write it in Mi or Gi", q)
	return 0
}

// requireNetworkPolicy checks that one NetworkPolicy selects the pods, lets in their ports
// (probes, Prometheus, the API) and limits their egress to DNS, NATS, Postgres, OpenSearch and
// public addresses.
func requireNetworkPolicy(t *testing.T, objs []object, name string, labels map[string]string, ports []string) {
	t.Helper()
	var found int
	for _, np := range byKind(objs, "NetworkPolicy") {
		var spec struct {
			PodSelector labelSelector `yaml:"podSelector"`
			PolicyTypes []string      `yaml:"policyTypes"`
			Ingress     []struct {
				Ports []struct {
					Port any `yaml:"port"`
				} `yaml:"ports"`
			} `yaml:"ingress"`
			Egress []struct {
				To []struct {
					PodSelector *labelSelector `yaml:"podSelector"`
					IPBlock     *struct {
						CIDR   string   `yaml:"cidr"`
						Except []string `yaml:"except"`
					} `yaml:"ipBlock"`
				} `yaml:"to"`
			} `yaml:"egress"`
		}
		np.spec(t, &spec)
		if !spec.PodSelector.selects(labels) {
			continue
		}
		found++
		require.Contains(t, spec.PolicyTypes, "Egress", np.Metadata.Name)
		var in []any
		for _, rule := range spec.Ingress {
			for _, p := range rule.Ports {
				in = append(in, p.Port)
			}
		}
		for _, p := range ports {
			require.Contains(t, in, p, "%s lets in %s's port %s", np.Metadata.Name, name, p)
		}
		peers := map[string]bool{}
		for _, rule := range spec.Egress {
			require.NotEmpty(t, rule.To, "%s: every egress rule names its peers", np.Metadata.Name)
			for _, to := range rule.To {
				switch {
				case to.PodSelector != nil:
					peers[to.PodSelector.MatchLabels["app.kubernetes.io/name"]+to.PodSelector.MatchLabels["k8s-app"]] = true
				case to.IPBlock != nil:
					require.Contains(t, []string{"0.0.0.0/0", "::/0"}, to.IPBlock.CIDR)
					require.NotEmpty(t, to.IPBlock.Except, "%s: the internet, not private addresses", np.Metadata.Name)
					if to.IPBlock.CIDR == "0.0.0.0/0" {
						require.Subset(t, to.IPBlock.Except, []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "127.0.0.0/8"})
					}
					peers["internet"] = true
				}
			}
		}
		require.Equal(t, map[string]bool{"kube-dns": true, "nats": true, "postgresql": true, "opensearch": true, "internet": true}, peers,
			"%s: %s reaches only DNS, NATS, Postgres, OpenSearch and the internet", np.Metadata.Name, name)
	}
	require.Equal(t, 1, found, "one NetworkPolicy selects %s", name)
}
