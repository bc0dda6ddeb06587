#!/usr/bin/env bash
# The project's test command: starts Postgres and nats-server (scripts/services.sh), then runs
# go vet, a gofmt check and every Go test against those real services.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/services.sh)"
export HARVESTER_TEST_DATABASE_URL=${HARVESTER_TEST_DATABASE_URL:-$DATABASE_URL}
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi
go vet ./...
go test -count=1 -timeout 20m "$@" ./...
