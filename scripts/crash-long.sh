#!/usr/bin/env bash
# The long crash-test target: every crashtest scenario 20 times and the 10,000-record acceptance
# run 5 times (HARVESTER_LONG_TESTS=1), against the same services as scripts/test.sh. Set
# HARVESTER_CRASH_SEED to replay a failed run's kill points (each run prints its seed).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/services.sh)"
export HARVESTER_TEST_DATABASE_URL=${HARVESTER_TEST_DATABASE_URL:-$DATABASE_URL}
export HARVESTER_TEST_REQUIRE_POSTGRES=1
HARVESTER_LONG_TESTS=1 go test -count=1 -timeout 3h -v "$@" ./crashtest/
