#!/usr/bin/env bash
# The project's test command: starts Postgres and nats-server (scripts/services.sh) and an
# OpenSearch node (scripts/opensearch.sh, in the background while the checks run), installs
# Prometheus (scripts/prometheus.sh) and checks and unit-tests the alert rules with promtool,
# then runs go vet, staticcheck, a gofmt check, the checks of deploy/ (scripts/deploy-validate.sh), a smoke
# harvest, the container image (scripts/image.sh: built with buildah, checked, a harvest run inside it), the benchmark harness as a smoke run (on bleve, then on OpenSearch), and every Go test against those real services,
# the cluster crash tests 5 times in a row (HARVESTER_CLUSTER_RUNS=N for another count).
# Everything a run writes goes to a temporary directory of
# its own (and a scratch database), removed at the end, so concurrent runs do not collide and
# nothing lands in ./harvester-data. The services stay up for the next run: stop them with
# `scripts/services.sh stop`.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d "${TMPDIR:-/tmp}/harvester-test.XXXXXX")
smoke_db=""
smoke_nats_pid=""
cluster_pid=""
bench_index=""
cleanup() {
  if [ -n "$cluster_pid" ]; then kill -- -"$cluster_pid" 2>/dev/null || true; fi
  if [ -n "$bench_index" ]; then curl -s -X DELETE "$bench_opensearch/$bench_index*" >/dev/null 2>&1 || true; fi
  if [ -n "$smoke_nats_pid" ]; then kill "$smoke_nats_pid" 2>/dev/null || true; fi
  if [ -n "$smoke_db" ]; then psql "$DATABASE_URL" -qc "DROP DATABASE IF EXISTS $smoke_db" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# Each setup script's output is taken by an assignment first, so that its failure stops the run
# here (set -e) with its own message, instead of an eval of nothing failing later elsewhere.
[ -d ../shared/corpus ] || { echo "scripts/test.sh: ../shared/corpus is missing: the tests read the corpus from ../shared beside the repository (the shared folder the project ships next to this clone)"; exit 1; }
services_env=$(bash scripts/services.sh) || { echo "scripts/test.sh: scripts/services.sh failed (its messages are above)"; exit 1; }
eval "$services_env"
# Debian's prometheus package: promtool for the alert rules, the server for the scrape test
# (cmd/harvester TestPrometheusScrapesServe); exports HARVESTER_PROMETHEUS, HARVESTER_PROMTOOL.
prometheus_env=$(bash scripts/prometheus.sh) || { echo "scripts/test.sh: scripts/prometheus.sh failed (its messages are above)"; exit 1; }
eval "$prometheus_env"
"$HARVESTER_PROMTOOL" check rules deploy/prometheus/alerts.yaml
"$HARVESTER_PROMTOOL" test rules deploy/prometheus/alerts_test.yaml
# After services.sh and prometheus.sh, whose apt-get must not run beside opensearch.sh's.
bash scripts/opensearch.sh >"$work/opensearch.env" 2>"$work/opensearch.log" &
opensearch_pid=$!
export HARVESTER_TEST_DATABASE_URL=${HARVESTER_TEST_DATABASE_URL:-$DATABASE_URL}
export HARVESTER_TEST_REQUIRE_POSTGRES=1
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi
go vet ./...
# staticcheck, the version pinned here, installed once into the services' directory (the Go module
# proxy serves its source, as for nats-server) and run on every package, tests included.
staticcheck_version=v0.8.2
staticcheck_dir="${HARVESTER_SERVICES_DIR:-/tmp/harvester-services}/staticcheck-$staticcheck_version"
if [ ! -x "$staticcheck_dir/staticcheck" ]; then
  GOBIN="$staticcheck_dir" go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
fi
"$staticcheck_dir/staticcheck" ./...
go mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy (run go mod tidy):"; go mod tidy -diff; exit 1; }
# deploy/: kustomize builds, kubernetes-validate, compose, Dockerfile, KEDA/HPA against the
# topology (installs kustomize and kubernetes-validate once; scripts/deploy-validate.sh).
deploy_env=$(bash scripts/deploy-validate.sh) # an assignment, so that its failure stops the run (set -e)
eval "$deploy_env"
# The README's harvest command, end to end against the services above (the nats-server that
# go.mod pins, not the in-process one the Go tests use), on a scratch database and data dir.
smoke_db="harvester_smoke_$(date +%s)_$$"
psql "$DATABASE_URL" -qc "CREATE DATABASE $smoke_db" >/dev/null
smoke_url=$(printf '%s' "$DATABASE_URL" | sed "s#/harvester?#/$smoke_db?#")
corpus=../shared/corpus/dcatus/agency-gsa-2025-07.data.json
go build -o "$work/harvester" ./cmd/harvester
# A nats-server of its own (the pinned binary services.sh built, its store in $work): the services'
# nats-server keeps its streams between runs, stamped with the database of the deployment that
# made them (docs/nats-deployments.md), and each run's smoke database is new.
smoke_nats_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
nats-server -js -a 127.0.0.1 -p "$smoke_nats_port" -sd "$work/smoke-nats" >"$work/smoke-nats.log" 2>&1 &
smoke_nats_pid=$!
for _ in $(seq 1 120); do (exec 3<>"/dev/tcp/127.0.0.1/$smoke_nats_port") 2>/dev/null && break; sleep 0.5; done
DATABASE_URL=$smoke_url NATS_URL=nats://127.0.0.1:$smoke_nats_port "$work/harvester" harvest --data-dir "$work/data" --file "$corpus" \
  --schema-type "dcatus1.1: federal" --format json >"$work/smoke.json" ||
  { echo "smoke harvest failed:"; cat "$work/smoke.json"; cat "$work/smoke-nats.log"; exit 1; }
kill "$smoke_nats_pid" 2>/dev/null || true
smoke_nats_pid=""
grep -q '"status":"complete"' "$work/smoke.json" || { echo "smoke harvest did not complete:"; cat "$work/smoke.json"; exit 1; }
echo "smoke harvest: $(cat "$work/smoke.json")"
go run ./bench -records 1000 -json # the benchmark harness as a smoke run: exits 1 unless every scenario's counts are exact

wait "$opensearch_pid" || { echo "OpenSearch did not start:"; cat "$work/opensearch.log"; exit 1; }
# The OpenSearch tests use the node; the other tests keep the embedded default (bleve).
eval "$(cat "$work/opensearch.env")"
# The container image, built with Debian's buildah from scratch (no registry), checked, and
# harvest --file run inside it (scripts/image.sh; after opensearch.sh, whose apt-get must not
# run beside this one's).
bash scripts/image.sh harvester:ci
# The benchmark harness again, its harvester on OpenSearch (the production setup's index), under
# an index name of its own (deleted at exit): a record the index refuses is an errored record,
# and "wrong counts" exits 1 (issue 33: the mapping lacked temporal; bleve took every record).
bench_opensearch=$OPENSEARCH_URL
bench_index="bench-smoke-$(date +%s)-$$"
go run ./bench -records 1000 -skip-ceilings -opensearch-url "$OPENSEARCH_URL" -search-index "$bench_index" -json
export HARVESTER_TEST_OPENSEARCH_URL=$OPENSEARCH_URL HARVESTER_TEST_REQUIRE_OPENSEARCH=1
unset OPENSEARCH_URL
# The cluster crash tests (crashtest TestCluster*: a 3-node JetStream cluster whose record-stream
# leader is killed mid-harvest) run 5 times in a row (issue 20: 5 of 5), beside the other tests:
# much of their time is waiting (elections, the re-drive of an orphaned job), so the run takes
# minutes less than one after the other. In a process group of their own, so that a failed run
# ends them (cleanup).
set -m
bash scripts/crash-long.sh cluster "${HARVESTER_CLUSTER_RUNS:-5}" >"$work/cluster.log" 2>&1 &
cluster_pid=$!
set +m
# The log is kept, so that a failure's own lines are printed again at the end: a CI log shown by
# its tail then names the failed tests, not just the last package's output.
if ! go test -count=1 -timeout 30m -skip '^TestCluster' "$@" ./... 2>&1 | tee "$work/go-test.log"; then
  echo "=== the failed tests, again (their lines from the log above):"
  grep -E -A25 -- '^[[:space:]]*--- FAIL|^panic: |^FAIL' "$work/go-test.log" | grep -v 'level=' | head -400
  exit 1
fi
if ! wait "$cluster_pid"; then
  cluster_pid=""
  cat "$work/cluster.log"
  echo "the cluster crash tests failed (log above)"
  exit 1
fi
cluster_pid=""
grep -E '^(=== cluster|--- |cluster crash tests:)' "$work/cluster.log"
