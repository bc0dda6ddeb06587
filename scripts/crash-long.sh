#!/usr/bin/env bash
# The long crash-test target, against the same services as scripts/test.sh:
#
#   scripts/crash-long.sh [go test flags…]   the cluster crash tests 5 times (below), then every
#                                            other crashtest scenario 20 times and the
#                                            10,000-record acceptance run 5 times
#                                            (HARVESTER_LONG_TESTS=1)
#   scripts/crash-long.sh cluster [N]        only the cluster crash tests (TestCluster*: a
#                                            3-node JetStream cluster from deploy/nats, its
#                                            record-stream leader killed mid-way through a
#                                            10,000-record harvest), N times (default 5)
#
# The cluster loop stops at the first failed run and exits 1, naming it. Each run prints its
# seed; HARVESTER_CRASH_SEED replays a failed run's kill points.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/services.sh)"
export HARVESTER_TEST_DATABASE_URL=${HARVESTER_TEST_DATABASE_URL:-$DATABASE_URL}
export HARVESTER_TEST_REQUIRE_POSTGRES=1

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cluster_runs() {
  local n=$1
  case $n in '' | *[!0-9]* | 0) echo "crash-long.sh: the number of runs must be a positive integer, not '$n'" >&2; exit 2 ;; esac
  go test -c -o "$work/crashtest.test" ./crashtest/
  for i in $(seq 1 "$n"); do
    echo "=== cluster crash tests: run $i of $n"
    # The test binary runs in crashtest/, as go test runs it (it reads ../go.mod and ../deploy).
    if ! (cd crashtest && "$work/crashtest.test" -test.count=1 -test.timeout 2h -test.v -test.run '^TestCluster'); then
      echo "cluster crash tests: run $i of $n FAILED" >&2
      exit 1
    fi
  done
  echo "cluster crash tests: $n of $n runs passed"
}

if [ "${1:-}" = cluster ]; then
  cluster_runs "${2:-5}"
  exit 0
fi
cluster_runs 5
HARVESTER_LONG_TESTS=1 go test -count=1 -timeout 3h -v -skip '^TestCluster' "$@" ./crashtest/
