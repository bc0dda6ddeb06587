// Package prometheus_test checks deploy/prometheus/alerts.yaml with promtool, from Debian's
// prometheus package (scripts/prometheus.sh installs it).
package prometheus_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/harvester-dev/harvester/internal/testenv"
)

// promtool is HARVESTER_PROMTOOL, else promtool on PATH. Without it the test fails in CI
// (CI=true) and is skipped elsewhere.
func promtool(t *testing.T) string {
	t.Helper()
	return testenv.Tool(t, "HARVESTER_PROMTOOL", "promtool",
		"no promtool: run scripts/prometheus.sh (Debian's prometheus package) or set HARVESTER_PROMTOOL")
}

// TestAlertRules: the rules are valid (promtool check rules) and every alert's unit test passes,
// firing and not firing (promtool test rules).
func TestAlertRules(t *testing.T) {
	t.Parallel()
	bin := promtool(t)
	for _, args := range [][]string{{"check", "rules", "alerts.yaml"}, {"test", "rules", "alerts_test.yaml"}} {
		out, err := exec.Command(bin, args...).CombinedOutput()
		require.NoError(t, err, "promtool %v:\n%s", args, out)
	}
}

// rules is the part of a Prometheus rules file this test reads.
type rules struct {
	Groups []struct {
		Rules []struct {
			Alert       string
			Annotations map[string]string
		}
	}
}

// unitTests is the part of a promtool unit test file this test reads.
type unitTests struct {
	Tests []struct {
		AlertRuleTest []struct {
			Alertname string `yaml:"alertname"`
			ExpAlerts []any  `yaml:"exp_alerts"`
		} `yaml:"alert_rule_test"`
	}
}

// TestEveryAlertHasCasesAndARunbook: each alert has a unit test case where it fires and one
// where it does not, and a runbook section in deploy/RUNBOOK.md that its runbook_url names.
func TestEveryAlertHasCasesAndARunbook(t *testing.T) {
	t.Parallel()
	var rs rules
	readYAML(t, "alerts.yaml", &rs)
	var ut unitTests
	readYAML(t, "alerts_test.yaml", &ut)
	firing, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range ut.Tests {
		for _, c := range tc.AlertRuleTest {
			if len(c.ExpAlerts) > 0 {
				firing[c.Alertname] = true
			} else {
				quiet[c.Alertname] = true
			}
		}
	}
	runbook, err := os.ReadFile("../RUNBOOK.md")
	require.NoError(t, err)
	alerts := 0
	for _, g := range rs.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" {
				continue
			}
			alerts++
			require.True(t, firing[r.Alert], "%s: no case where it fires", r.Alert)
			require.True(t, quiet[r.Alert], "%s: no case where it does not fire", r.Alert)
			require.Contains(t, string(runbook), "\n### "+r.Alert+"\n", "%s: no runbook section", r.Alert)
			require.True(t, strings.HasSuffix(r.Annotations["runbook_url"], "/deploy/RUNBOOK.md#"+strings.ToLower(r.Alert)),
				"%s: runbook_url %q", r.Alert, r.Annotations["runbook_url"])
		}
	}
	require.GreaterOrEqual(t, alerts, 9)
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(b, v), path)
}
