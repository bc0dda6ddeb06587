#!/usr/bin/env bash
# Builds Harvester's container image with Debian's buildah, from scratch, with no registry and
# no Docker engine (the Dockerfile's base images come from registries CI cannot reach), and
# checks it. The image is the Dockerfile's: the static binary at /harvester, CA certificates,
# tzdata, /etc/passwd and /etc/group with the nonroot user 65532, /tmp, the data volume
# /var/lib/harvester owned by 65532, HARVESTER_DATA_DIR and HARVESTER_ADDR, user 65532:65532,
# ENTRYPOINT ["/harvester"], CMD ["serve"], port 8080.
#
#   scripts/image.sh [TAG]     # default harvester:dev, stored under $HARVESTER_SERVICES_DIR/buildah
#
# Checks: the image's config; the binary inside is statically linked; the files are there; and
# `harvester harvest --file` of a corpus catalog runs inside the image. That run uses buildah's
# OCI runtime (crun) where the machine lets it make a container; where it cannot (this kind of
# machine refuses crun: cgroups in hybrid mode, setrlimit), that step says why and the run is made
# in a chroot of the image's root instead (same files, same user, no resource limits).
# buildah is installed from Debian when missing; when that fails, the build is skipped with the
# reason (exit 0), never silently. Any failed check exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."
tag=${1:-harvester:dev}
log() { echo "image: $*" >&2; }
if ! command -v buildah >/dev/null; then
  log "installing buildah (Debian)"
  if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q buildah >/dev/null 2>&1 ||
         { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q buildah >/dev/null 2>&1; }; }; then
    log "SKIPPED: buildah could not be installed from Debian (apt-get install buildah failed); the image was not built"
    exit 0
  fi
fi
for f in /etc/ssl/certs/ca-certificates.crt /usr/share/zoneinfo/UTC; do
  [ -e "$f" ] || { log "SKIPPED: $f is missing on this machine (packages ca-certificates, tzdata); the image was not built"; exit 0; }
done
dir="${HARVESTER_SERVICES_DIR:-/tmp/harvester-services}/buildah"
B=(buildah --storage-driver vfs --root "$dir/root" --runroot "$dir/run")
work=$(mktemp -d "${TMPDIR:-/tmp}/harvester-image.XXXXXX")
ctr=""
cleanup() {
  if [ -n "$ctr" ]; then "${B[@]}" rm "$ctr" >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

log "building the static binary"
CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o "$work/harvester" ./cmd/harvester
if readelf -l "$work/harvester" | grep -q 'program interpreter'; then
  log "FAILED: the binary is not static (it asks for a program interpreter)"; exit 1
fi
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$work/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$work/group"
mkdir -p "$work/data" "$work/tmp" "$work/home"
chmod 1777 "$work/tmp"

log "building $tag"
ctr=$("${B[@]}" from scratch)
"${B[@]}" copy "$ctr" "$work/harvester" /harvester >/dev/null
"${B[@]}" copy "$ctr" /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt >/dev/null
"${B[@]}" copy "$ctr" /usr/share/zoneinfo /usr/share/zoneinfo >/dev/null
"${B[@]}" copy "$ctr" "$work/passwd" /etc/passwd >/dev/null
"${B[@]}" copy "$ctr" "$work/group" /etc/group >/dev/null
"${B[@]}" copy "$ctr" "$work/tmp" /tmp >/dev/null
"${B[@]}" copy --chown 65532:65532 "$ctr" "$work/home" /home/nonroot >/dev/null
"${B[@]}" copy --chown 65532:65532 "$ctr" "$work/data" /var/lib/harvester >/dev/null
"${B[@]}" config --user 65532:65532 --workingdir / \
  --env HARVESTER_DATA_DIR=/var/lib/harvester --env HARVESTER_ADDR=0.0.0.0:8080 \
  --volume /var/lib/harvester --port 8080 --entrypoint '["/harvester"]' --cmd serve \
  --label org.opencontainers.image.source=https://github.com/harvester-dev/harvester "$ctr"
"${B[@]}" commit --quiet "$ctr" "$tag" >/dev/null
"${B[@]}" rm "$ctr" >/dev/null
ctr=""
"${B[@]}" rmi --prune >/dev/null 2>&1 || true # the image this tag named before

log "checking $tag's config"
"${B[@]}" inspect --type image "$tag" >"$work/inspect.json"
python3 - "$work/inspect.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["OCIv1"]["config"]
want = {"User": "65532:65532", "Entrypoint": ["/harvester"], "Cmd": ["serve"]}
bad = [f"{k}: {c.get(k)!r}, want {v!r}" for k, v in want.items() if c.get(k) != v]
if "/var/lib/harvester" not in (c.get("Volumes") or {}): bad.append("no volume /var/lib/harvester")
if "8080/tcp" not in (c.get("ExposedPorts") or {}) and "8080" not in (c.get("ExposedPorts") or {}): bad.append("port 8080 not exposed")
for e in ("HARVESTER_DATA_DIR=/var/lib/harvester", "HARVESTER_ADDR=0.0.0.0:8080"):
    if e not in (c.get("Env") or []): bad.append("no env " + e)
if bad:
    print("image: FAILED: the image's config: " + "; ".join(bad), file=sys.stderr); sys.exit(1)
PY

log "checking its files"
ctr=$("${B[@]}" from "$tag")
mnt=$("${B[@]}" mount "$ctr")
for f in harvester etc/ssl/certs/ca-certificates.crt usr/share/zoneinfo/America/New_York etc/passwd var/lib/harvester tmp; do
  [ -e "$mnt/$f" ] || { log "FAILED: /$f is missing from the image"; exit 1; }
done
if readelf -l "$mnt/harvester" | grep -q 'program interpreter'; then log "FAILED: /harvester in the image is not static"; exit 1; fi
grep -q '^nonroot:x:65532:65532:' "$mnt/etc/passwd" || { log "FAILED: no user 65532 in /etc/passwd"; exit 1; }
[ "$(stat -c %u "$mnt/var/lib/harvester")" = 65532 ] || { log "FAILED: /var/lib/harvester is not owned by 65532"; exit 1; }
"${B[@]}" umount "$ctr" >/dev/null

corpus=../shared/corpus/dcatus/agency-gsa-2025-07.data.json
run_args=(--volume "$(cd "$(dirname "$corpus")" && pwd)/$(basename "$corpus"):/in/catalog.json:ro" "$ctr" --
  /harvester harvest --file /in/catalog.json --schema-type "dcatus1.1: federal" --format json)
log "running harvest --file inside the image"
if "${B[@]}" run "${run_args[@]}" >"$work/run.json" 2>"$work/run.err"; then
  how="a container (buildah run, crun)"
else
  log "the OCI runtime could not make a container on this machine, so the run uses a chroot of the image instead: $(grep -m1 -iE 'error|denied|not supported' "$work/run.err" || tail -1 "$work/run.err")"
  "${B[@]}" run --isolation chroot "${run_args[@]}" >"$work/run.json" 2>"$work/run.err" ||
    { log "FAILED: harvest --file inside the image:"; cat "$work/run.err" "$work/run.json" >&2; exit 1; }
  how="a chroot of the image (buildah run --isolation chroot)"
fi
grep -q '"status":"complete"' "$work/run.json" || { log "FAILED: the harvest inside the image did not complete:"; cat "$work/run.json" "$work/run.err" >&2; exit 1; }
log "ok: $tag built and checked; harvest --file ran in $how: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print({k: d.get(k) for k in ("status", "added", "errored")})' "$work/run.json" 2>/dev/null || head -c 200 "$work/run.json")"
