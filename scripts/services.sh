#!/usr/bin/env bash
# Installs (from Debian's packages) and starts the services Harvester's tests and production-style
# runs need: a PostgreSQL cluster and a nats-server with JetStream, both on loopback only.
# Idempotent: a service that already answers is left alone. Prints the environment to use:
#   eval "$(scripts/services.sh)"
# Settings (env): HARVESTER_SERVICES_DIR (default /tmp/harvester-services), HARVESTER_PG_PORT
# (default 54329), HARVESTER_NATS_PORT (default 42229).
set -euo pipefail

dir=${HARVESTER_SERVICES_DIR:-/tmp/harvester-services}
pg_port=${HARVESTER_PG_PORT:-54329}
nats_port=${HARVESTER_NATS_PORT:-42229}
log() { echo "services: $*" >&2; }

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  return 1
}

need=()
pg_bin >/dev/null || need+=(postgresql)
command -v nats-server >/dev/null || need+=(nats-server)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq "${need[@]}" >&2
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

# nats-server with JetStream; Debian ships 2.9.x.
if ! (exec 3<>"/dev/tcp/127.0.0.1/$nats_port") 2>/dev/null; then
  log "starting nats-server -js on 127.0.0.1:$nats_port"
  mkdir -p "$dir/nats"
  nohup nats-server -a 127.0.0.1 -p "$nats_port" -js -sd "$dir/nats" >"$dir/nats.log" 2>&1 &
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$nats_port") 2>/dev/null && break
    sleep 0.1
  done
  (exec 3<>"/dev/tcp/127.0.0.1/$nats_port") 2>/dev/null || { log "nats-server did not start"; cat "$dir/nats.log" >&2; exit 1; }
fi

echo "export DATABASE_URL='postgres://postgres@127.0.0.1:$pg_port/harvester?sslmode=disable'"
echo "export NATS_URL='nats://127.0.0.1:$nats_port'"
