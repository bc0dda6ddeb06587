package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnreadableEnvIsAnError: an environment value that does not parse stops the command with
// exit status 2 and an error naming the variable and its value, instead of running on the
// flag's default. The serve cases also pass --stream-replicas 0 so that, were the value
// ignored, the command would still end at once (with another message).
func TestUnreadableEnvIsAnError(t *testing.T) {
	for _, c := range []struct {
		name, value, command, want string
	}{
		{"HARVESTER_JOB_WINDOW", "abc", "migrate", `HARVESTER_JOB_WINDOW="abc": not a whole number`},
		{"HARVESTER_FETCH_TIMEOUT", "10", "migrate", `HARVESTER_FETCH_TIMEOUT="10": not a duration such as 90s or 10m`},
		{"HARVESTER_MAX_DELETE_SHARE", "half", "harvest", `HARVESTER_MAX_DELETE_SHARE="half": not a number`},
		{"HARVESTER_ALLOW_PRIVATE_SOURCES", "yes", "migrate", `HARVESTER_ALLOW_PRIVATE_SOURCES="yes": not true or false`},
		{"HARVESTER_STREAM_REPLICAS", "99999999999999999999", "migrate", `HARVESTER_STREAM_REPLICAS="99999999999999999999": out of range`},
		{"HARVESTER_CONCURRENCY", "four", "serve", `HARVESTER_CONCURRENCY="four": not a whole number`},
		{"HARVESTER_HTTP_READ_TIMEOUT", "1 minute", "serve", `HARVESTER_HTTP_READ_TIMEOUT="1 minute": not a duration`},
		{"HARVESTER_PROTECT_READS", "on", "api", `HARVESTER_PROTECT_READS="on": not true or false`},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, service := range []string{"DATABASE_URL", "NATS_URL", "OPENSEARCH_URL"} {
				t.Setenv(service, "") // the embedded default in a temporary directory, were the value ignored
			}
			t.Setenv(c.name, c.value)
			args := []string{c.command, "--data-dir", t.TempDir()}
			switch c.command {
			case "harvest":
				args = append(args, "--file", "../../examples/agency-sample.data.json", "--schema-type", "dcatus1.1: federal")
			case "serve", "api":
				args = append(args, "--stream-replicas", "0")
			}
			var stdout, stderr bytes.Buffer
			code := run(t.Context(), args, &stdout, &stderr)
			require.Contains(t, stderr.String(), c.want)
			require.Equal(t, exitUsage, code, stderr.String())
		})
	}
}
