#!/usr/bin/env bash
# Installs (from Debian's packages) and starts the services Harvester's tests and production-style
# runs need: a PostgreSQL cluster and a nats-server with JetStream, both on loopback only.
# Idempotent: a service that already answers is left alone. Prints the environment to use:
#   eval "$(scripts/services.sh)"
# The nats-server is the one go.mod pins (github.com/nats-io/nats-server/v2), built from the Go
# module cache into $HARVESTER_SERVICES_DIR/bin, not Debian's 2.9.10 (which panicked in our crash
# tests): the tests run against a current server, as users do. The printed PATH puts it first.
# Settings (env): HARVESTER_SERVICES_DIR (default /tmp/harvester-services), HARVESTER_PG_PORT
# (default 54329), HARVESTER_NATS_PORT (default 42229).
# A Python venv with pySHACL (PyPI) for the SHACL parity test is made once in
# $HARVESTER_SERVICES_DIR/venv and exported as HARVESTER_TEST_PYTHON; pycsw (PyPI) in
# $HARVESTER_SERVICES_DIR/pycsw-venv, exported as HARVESTER_TEST_PYCSW (its Python).
# Debian's chromium (headless, for the web UI's browser tests) is installed too and exported as
# HARVESTER_TEST_CHROMIUM.
# Stop them: scripts/services.sh stop (also stops the OpenSearch node of scripts/opensearch.sh).
set -euo pipefail

dir=${HARVESTER_SERVICES_DIR:-/tmp/harvester-services}
pg_port=${HARVESTER_PG_PORT:-54329}
nats_port=${HARVESTER_NATS_PORT:-42229}
log() { echo "services: $*" >&2; }
repo=$(cd "$(dirname "$0")/.." && pwd)

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  return 1
}

if [ "${1:-}" = stop ]; then
  bin=$(pg_bin 2>/dev/null) && [ -s "$dir/pg/postmaster.pid" ] &&
    { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$bin/pg_ctl" -D "$dir/pg" -m fast stop >&2; else "$bin/pg_ctl" -D "$dir/pg" -m fast stop >&2; fi; } || true
  for f in "$dir/nats.pid" "$dir/opensearch/opensearch.pid"; do
    pid=$(cat "$f" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null && log "stopped pid $pid ($f)"
    rm -f "$f"
  done
  exit 0
fi

need=()
pg_bin >/dev/null || need+=(postgresql)
command -v chromium >/dev/null || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 ||
    { echo "$0: apt-get update failed (another package manager holding its lock for 10 minutes, or no network)" >&2; exit 1; }
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}" >&2 ||
    { echo "$0: apt-get install ${need[@]} failed (see above)" >&2; exit 1; }
fi
bin=$(pg_bin)
mkdir -p "$dir"
cd /  # the postgres user may not be able to enter the caller's directory

# PostgreSQL refuses to run as root: the cluster belongs to the postgres user.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
pgdata="$dir/pg"
if ! "$bin/pg_isready" -q -h 127.0.0.1 -p "$pg_port"; then
  if [ ! -s "$pgdata/PG_VERSION" ]; then
    log "initdb $pgdata"
    mkdir -p "$pgdata"
    [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir" "$pgdata"
    as_pg "$bin/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 --no-locale >&2
  fi
  log "starting postgres on 127.0.0.1:$pg_port"
  as_pg "$bin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -w -t 60 start \
    -o "-h 127.0.0.1 -p $pg_port -k /tmp -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" >&2
fi
as_pg "$bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='harvester'" | grep -q 1 ||
  as_pg "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres harvester

# nats-server with JetStream, the version go.mod pins, built once from the module cache (the Go
# module proxy serves its source; nothing else is downloaded).
nats_version=$(cd "$repo" && go list -m -f '{{.Version}}' github.com/nats-io/nats-server/v2)
nats_bin="$dir/bin/nats-server-$nats_version"
if [ ! -x "$nats_bin" ]; then
  log "building nats-server $nats_version from the module cache"
  mkdir -p "$dir/bin"
  (cd "$repo" && go build -o "$nats_bin.tmp" github.com/nats-io/nats-server/v2) >&2
  mv "$nats_bin.tmp" "$nats_bin"
fi
ln -sf "$(basename "$nats_bin")" "$dir/bin/nats-server"
# A server on the port that is not this build (an older one, or Debian's) is replaced when we
# started it; one we did not start is left alone, with a warning.
if (exec 3<>"/dev/tcp/127.0.0.1/$nats_port") 2>/dev/null; then
  pid=$(cat "$dir/nats.pid" 2>/dev/null || true)
  if [ -n "$pid" ] && [ "$(readlink -f "/proc/$pid/exe" 2>/dev/null)" != "$(readlink -f "$nats_bin")" ]; then
    if [ -e "/proc/$pid" ]; then
      log "replacing nats-server (pid $pid) with $nats_version"
      kill "$pid"
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  elif [ -z "$pid" ]; then
    log "warning: a nats-server not started by this script answers on 127.0.0.1:$nats_port; using it"
  fi
fi
if ! (exec 3<>"/dev/tcp/127.0.0.1/$nats_port") 2>/dev/null; then
  log "starting nats-server $nats_version -js on 127.0.0.1:$nats_port"
  mkdir -p "$dir/nats"
  nohup "$nats_bin" -a 127.0.0.1 -p "$nats_port" -js -sd "$dir/nats" >"$dir/nats.log" 2>&1 &
  echo $! >"$dir/nats.pid"
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$nats_port") 2>/dev/null && break
    sleep 0.1
  done
  (exec 3<>"/dev/tcp/127.0.0.1/$nats_port") 2>/dev/null || { log "nats-server did not start"; cat "$dir/nats.log" >&2; exit 1; }
fi

# One Python venv for the tests that compare with reference tools: jsonschema (with its format
# extras, as Data.gov H2.0 installs it) for DCAT-US 3.0 verdicts (dcatus:
# TestDCATUS3VerdictsEqualPython), pySHACL for the shacl parity test, and ckanapi (the CKAN
# client the CKAN-compatible API is checked with: api TestCKANAPIClient). Made once, kept.
venv="$dir/venv"
if ! "$venv/bin/python" -c 'import jsonschema, rfc3987, pyshacl, ckanapi' 2>/dev/null; then
  log "making $venv with jsonschema, pyshacl and ckanapi"
  # A failure here is not fatal to the services: the parity tests say what is missing (and
  # fail in CI).
  { python3 -m venv "$venv" >&2 &&
    "$venv/bin/pip" install -q --disable-pip-version-check 'jsonschema[format]==4.23.0' 'pyshacl==0.40.1' 'ckanapi==4.11' >&2; } ||
    log "warning: could not make $venv with jsonschema, pyshacl and ckanapi; the parity tests will not run"
fi
"$venv/bin/python" -c 'import jsonschema, rfc3987, pyshacl, ckanapi' 2>/dev/null && echo "export HARVESTER_TEST_PYTHON='$venv/bin/python'"
# pycsw (PyPI, pinned) for the CSW acceptance tests: its own venv, so that its pins (SQLAlchemy<2,
# OWSLib<0.29) never touch the one above. Wheels only; made once, kept. pycsw's wheel declares no
# dependencies, so its requirements.txt is pinned here. internal/pycswtest starts a
# server per test from it (records: internal/pycswtest/testdata; pycsw's PyPI release ships none).
pycsw_version=2.6.2
pycsw_venv="$dir/pycsw-venv"
pycsw_ok() { "$pycsw_venv/bin/python" -W ignore -c "import pycsw, pycsw.server, pycsw.core.admin; assert pycsw.__version__ == '$pycsw_version'" 2>/dev/null; }
if ! pycsw_ok; then
  log "making $pycsw_venv with pycsw $pycsw_version"
  { python3 -m venv "$pycsw_venv" >&2 &&
    "$pycsw_venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: "pycsw==$pycsw_version" \
      'SQLAlchemy==1.4.54' 'OWSLib==0.28.1' 'lxml==6.1.3' 'shapely==2.2.0' 'pyproj==3.7.2' \
      'xmltodict==1.0.4' 'geolinks==0.2.3' >&2; } ||
    log "warning: could not make $pycsw_venv with pycsw $pycsw_version; the CSW acceptance tests will not run"
fi
pycsw_ok && echo "export HARVESTER_TEST_PYCSW='$pycsw_venv/bin/python'"
chromium=$(command -v chromium || true)
[ -n "$chromium" ] && echo "export HARVESTER_TEST_CHROMIUM='$chromium'"
echo "export DATABASE_URL='postgres://postgres@127.0.0.1:$pg_port/harvester?sslmode=disable'"
echo "export NATS_URL='nats://127.0.0.1:$nats_port'"
echo "export PATH='$dir/bin':\"\$PATH\""
