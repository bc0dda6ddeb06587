#!/usr/bin/env bash
# Soak of the history's retention (issue 34 item 18, docs/retention.md): `harvester serve` on a
# scratch Postgres database re-harvests corpus data.json sources every round, a third of them as
# force harvests (each writes a new version of every record), and after each round the script
# prints the database's size and the rows of the history's tables. With a retention shorter
# than the run, the size must stop growing once the history is older than the retention; with
# RETENTION=0 it grows every round (the issue's 7.6 MB a round on 15 sources).
#
#   eval "$(scripts/services.sh)"      # Postgres (DATABASE_URL)
#   scripts/soak-retention.sh          # RETENTION=60s ROUNDS=40 INTERVAL=10 SOURCES=15 SKIP=4
#   RETENTION=0 scripts/soak-retention.sh
#
# Everything runs on this machine: the corpus is served from ../shared/corpus on 127.0.0.1, NATS
# is serve's in-process server, there is no search index. The sources are the corpus's data.json
# catalogs but the SKIP largest (the four of 1.5 to 4 MB take longer than a round on a loaded
# machine), so that every source runs a job most rounds and passes the 20 jobs a source keeps
# whatever their age within the run. The run is bounded by ROUNDS x INTERVAL (under 7 minutes by
# default) and stops by itself; the scratch database is dropped at the end (KEEP=1 keeps it).
set -euo pipefail

: "${DATABASE_URL:?set DATABASE_URL to a Postgres server (eval \"\$(scripts/services.sh)\")}"
RETENTION=${RETENTION:-60s}
ROUNDS=${ROUNDS:-40}
INTERVAL=${INTERVAL:-10}
SOURCES=${SOURCES:-15}
SKIP=${SKIP:-4}

repo=$(cd "$(dirname "$0")/.." && pwd)
corpus=$repo/../shared/corpus/dcatus
[ -d "$corpus" ] || { echo "soak-retention: no corpus at $corpus (../shared/corpus beside the repository)" >&2; exit 1; }
work=$(mktemp -d)
db=soak_retention_$$
pids=()

cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	if [ "${KEEP:-0}" != 1 ]; then
		psql -q "$DATABASE_URL" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

psql -q "$DATABASE_URL" -c "CREATE DATABASE $db" >/dev/null
soak_url=$(python3 -c 'import sys, urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/"+sys.argv[2])))' "$DATABASE_URL" "$db")

(cd "$repo" && go build -o "$work/harvester" ./cmd/harvester)

files_port=$(free_port)
python3 -m http.server --bind 127.0.0.1 --directory "$corpus" "$files_port" >"$work/files.log" 2>&1 &
pids+=($!)

port=$(free_port)
key=soak-$$
HARVESTER_API_KEY=$key "$work/harvester" serve --database-url "$soak_url" --nats-url "" --data-dir "$work/data" \
	--search-index none --allow-private-sources --retention "$RETENTION" --addr "127.0.0.1:$port" --log-level info \
	>"$work/serve.log" 2>&1 &
pids+=($!)
api=http://127.0.0.1:$port
for _ in $(seq 600); do
	curl -fsS "$api/readyz" >/dev/null 2>&1 && break
	sleep 0.2
done
curl -fsS "$api/readyz" >/dev/null || { echo "soak-retention: serve did not start" >&2; cat "$work/serve.log" >&2; exit 1; }

# The corpus's data.json catalogs (the invalid ones too: their errors are history as well),
# largest first but the SKIP largest, SOURCES of them.
mapfile -t files < <(cd "$corpus" && ls -S -- *.data.json | tail -n "+$((SKIP + 1))" | head -n "$SOURCES")
ids=()
for f in "${files[@]}"; do
	body=$(jq -n --arg name "$f" --arg url "http://127.0.0.1:$files_port/$f" \
		'{name: $name, url: $url, source_type: "document", schema_type: "dcatus1.1: non-federal"}')
	ids+=("$(curl -fsS -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d "$body" \
		"$api/api/v1/harvest_sources" | jq -r .id)")
done

sql() { psql -qAtX "$soak_url" -c "$1"; }
pruned() { curl -fsS "$api/metrics" | awk '/^harvester_pruned_rows_total/ {n += $2} END {printf "%d", n}'; }

echo "# retention $RETENTION, ${#ids[@]} sources, $ROUNDS rounds of ${INTERVAL}s, $(date -u +%FT%TZ)"
printf '%5s %7s %9s %9s %8s %11s %10s %10s %9s\n' round seconds db_mb records jobs identifiers outcomes rec_errors pruned
start=$(date +%s)
for round in $(seq "$ROUNDS"); do
	round_start=$(date +%s)
	for i in "${!ids[@]}"; do
		type=harvest
		[ $(((i + round) % 3)) = 0 ] && type=force_harvest
		# A source whose last job is still running answers 409: it is skipped this round.
		curl -sS -o /dev/null -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
			-d "{\"job_type\": \"$type\"}" "$api/api/v1/harvest_sources/${ids[$i]}/jobs" || true
	done
	sleep $((INTERVAL - ($(date +%s) - round_start) > 0 ? INTERVAL - ($(date +%s) - round_start) : 0))
	printf '%5d %7d %9.1f %9d %8d %11d %10d %10d %9d\n' "$round" $(($(date +%s) - start)) \
		"$(sql "SELECT pg_database_size(current_database()) / 1048576.0")" \
		"$(sql 'SELECT count(*) FROM harvest_record')" "$(sql 'SELECT count(*) FROM harvest_job')" \
		"$(sql 'SELECT count(*) FROM harvest_job_identifier')" "$(sql 'SELECT count(*) FROM harvest_job_outcome')" \
		"$(sql 'SELECT count(*) FROM harvest_record_error')" "$(pruned)"
done
echo "# datasets $(sql 'SELECT count(*) FROM dataset'), jobs by status: $(sql "SELECT string_agg(status || ' ' || n, ', ') FROM (SELECT status, count(*) n FROM harvest_job GROUP BY status) s")"
grep -c 'history pruned' "$work/serve.log" | sed 's/^/# prune runs that deleted rows: /'
