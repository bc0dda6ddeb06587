package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// --stream-replicas (env HARVESTER_STREAM_REPLICAS) reaches the pipeline config; a count out
// of 1..5, or more than 1 on the in-process server, is a usage error.
func TestStreamReplicasFlag(t *testing.T) {
	parse := func(args ...string) (*serviceFlags, error) {
		f := parseServiceFlags(t, args...)
		_, err := f.logger()
		return f, err
	}
	t.Setenv("NATS_URL", "")
	t.Setenv("HARVESTER_STREAM_REPLICAS", "")
	f, err := parse()
	require.NoError(t, err)
	require.Equal(t, 1, f.config(nil).StreamReplicas, "default")

	f, err = parse("--nats-url", "nats://a:4222,nats://b:4222,nats://c:4222", "--stream-replicas", "3")
	require.NoError(t, err)
	require.Equal(t, 3, f.config(nil).StreamReplicas)

	t.Setenv("NATS_URL", "nats://a:4222,nats://b:4222,nats://c:4222")
	t.Setenv("HARVESTER_STREAM_REPLICAS", "3")
	f, err = parse()
	require.NoError(t, err)
	require.Equal(t, 3, f.config(nil).StreamReplicas, "from the environment")
	require.Equal(t, "nats://a:4222,nats://b:4222,nats://c:4222", f.config(nil).NATSURL)

	for _, n := range []string{"0", "6", "-1"} {
		_, err = parse("--stream-replicas", n)
		require.ErrorContains(t, err, "--stream-replicas: "+n+" is not in 1..5")
	}
	_, err = parse("--nats-url", "", "--stream-replicas", "3")
	require.ErrorContains(t, err, "--stream-replicas 3 needs a JetStream cluster")
}

// --nats-prefix (env HARVESTER_NATS_PREFIX) reaches the pipeline config, "harvester" by
// default; a prefix that is not a name is a usage error saying what one may be.
func TestNATSPrefixFlag(t *testing.T) {
	parse := func(args ...string) (*serviceFlags, error) {
		f := parseServiceFlags(t, args...)
		_, err := f.logger()
		return f, err
	}
	t.Setenv("HARVESTER_NATS_PREFIX", "")
	f, err := parse()
	require.NoError(t, err)
	require.Equal(t, "harvester", f.config(nil).NATSPrefix, "default")

	f, err = parse("--nats-prefix", "staging")
	require.NoError(t, err)
	require.Equal(t, "staging", f.config(nil).NATSPrefix)

	t.Setenv("HARVESTER_NATS_PREFIX", "agency-b")
	f, err = parse()
	require.NoError(t, err)
	require.Equal(t, "agency-b", f.config(nil).NATSPrefix, "from the environment")

	for _, p := range []string{"Staging", "a.b", "x>", "-a"} {
		_, err = parse("--nats-prefix", p)
		require.ErrorContains(t, err, `--nats-prefix: NATS prefix "`+p+`": want 1 to 32 lower-case letters`)
	}
}
