#!/usr/bin/env bash
# The project's test command: starts Postgres and nats-server (scripts/services.sh) and an
# OpenSearch node (scripts/opensearch.sh, in the background while the checks run), then runs
# go vet, a gofmt check and every Go test against those real services.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/services.sh)"
# After services.sh, whose apt-get must not run beside opensearch.sh's.
bash scripts/opensearch.sh >/tmp/harvester-opensearch.env 2>/tmp/harvester-opensearch.log &
opensearch_pid=$!
export HARVESTER_TEST_DATABASE_URL=${HARVESTER_TEST_DATABASE_URL:-$DATABASE_URL}
export HARVESTER_TEST_REQUIRE_POSTGRES=1
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi
go vet ./...
# The README's harvest command, end to end against the services above (Debian's nats-server,
# not the in-process one the Go tests use).
corpus=../shared/corpus/dcatus/agency-gsa-2025-07.data.json
go run ./cmd/harvester harvest --file "$corpus" --schema-type "dcatus1.1: federal" --format json > /tmp/harvester-smoke.json
grep -q '"status":"complete"' /tmp/harvester-smoke.json || { echo "smoke harvest did not complete:"; cat /tmp/harvester-smoke.json; exit 1; }
echo "smoke harvest: $(cat /tmp/harvester-smoke.json)"
go run ./bench -records 1000 -json # the benchmark harness as a smoke run: exits 1 unless every scenario's counts are exact

wait "$opensearch_pid" || { echo "OpenSearch did not start:"; cat /tmp/harvester-opensearch.log; exit 1; }
# The OpenSearch tests use the node; the other tests keep the embedded default (bleve).
eval "$(cat /tmp/harvester-opensearch.env)"
export HARVESTER_TEST_OPENSEARCH_URL=$OPENSEARCH_URL HARVESTER_TEST_REQUIRE_OPENSEARCH=1
unset OPENSEARCH_URL
go test -count=1 -timeout 20m "$@" ./...
