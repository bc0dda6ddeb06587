#!/usr/bin/env bash
# The project's test command: starts Postgres and nats-server (scripts/services.sh), then runs
# go vet, a gofmt check and every Go test against those real services.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/services.sh)"
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

go test -count=1 -timeout 20m "$@" ./...
