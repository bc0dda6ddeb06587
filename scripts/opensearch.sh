#!/usr/bin/env bash
# Installs (from Maven Central: OpenSearch's integ-test-zip distribution, which has no security
# plugin and only the transport-netty4 module, plus the analysis-common and geo modules) and starts a
# single OpenSearch node for tests, on loopback only, plain HTTP. Idempotent: a node that
# already answers is left alone; the zip is downloaded once and cached under the services dir.
# Prints the environment to use:
#   eval "$(scripts/opensearch.sh)"
# Settings (env): HARVESTER_SERVICES_DIR (default /tmp/harvester-services),
# HARVESTER_OPENSEARCH_PORT (default 19200), HARVESTER_OPENSEARCH_VERSION (default 2.19.6, the
# newest 2.19 that runs on Java 17), OPENSEARCH_JAVA_OPTS (default -Xms512m -Xmx512m).
# Stop it with: kill "$(cat "$HARVESTER_SERVICES_DIR/opensearch/opensearch.pid")"
set -euo pipefail

dir=${HARVESTER_SERVICES_DIR:-/tmp/harvester-services}
port=${HARVESTER_OPENSEARCH_PORT:-19200}
version=${HARVESTER_OPENSEARCH_VERSION:-2.19.6}
base="$dir/opensearch"
url="http://127.0.0.1:$port"
log() { echo "opensearch: $*" >&2; }

healthy() {
  curl -s -m 5 "$url/_cluster/health" 2>/dev/null | grep -Eq '"status":"(green|yellow)"'
}

if healthy; then
  log "already up on $url"
  echo "export OPENSEARCH_URL='$url'"
  exit 0
fi

# One invocation at a time past this point (two nodes on one data dir fight for its lock).
mkdir -p "$base"
exec 9>"$base/.lock"
flock 9
if healthy; then
  log "up on $url (started by a concurrent invocation)"
  echo "export OPENSEARCH_URL='$url'"
  exit 0
fi

# A Java 11..21 runtime (2.19 needs the security manager, which Java 24 removed), Maven to fetch
# the distribution, curl and unzip.
java_home() {
  local j v
  for j in ${OPENSEARCH_JAVA_HOME:-} /usr/lib/jvm/java-17-openjdk-* /usr/lib/jvm/java-21-openjdk-* \
    "$(dirname "$(dirname "$(readlink -f "$(command -v java 2>/dev/null || echo /nonexistent)")")")"; do
    [ -x "$j/bin/java" ] || continue
    v=$("$j/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
    [ -n "$v" ] && [ "$v" -ge 11 ] && [ "$v" -le 21 ] && { echo "$j"; return 0; }
  done
  return 1
}
need=()
java_home >/dev/null || need+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || need+=(maven)
command -v curl >/dev/null || need+=(curl)
command -v unzip >/dev/null || need+=(unzip)
if [ ${#need[@]} -gt 0 ]; then
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 ||
    { echo "$0: apt-get update failed (another package manager holding its lock for 10 minutes, or no network)" >&2; exit 1; }
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need[@]}" >&2 ||
    { echo "$0: apt-get install ${need[@]} failed (see above)" >&2; exit 1; }
fi
jhome=$(java_home)

# fetch ARTIFACT DIR: Maven Central through mvn (and its ~/.m2 cache); Debian's mvn 3.8 prints
# colour codes even when quiet, which we strip.
fetch() {
  JAVA_HOME=$jhome mvn -B -q org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
    -Dartifact="$1" -DoutputDirectory="$2" 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2 || true
}
mkdir -p "$base/dist"
zip="$base/dist/opensearch-$version.zip"
if [ ! -s "$zip" ]; then
  log "downloading org.opensearch.distribution.integ-test-zip:opensearch:$version:zip"
  fetch "org.opensearch.distribution.integ-test-zip:opensearch:$version:zip" "$base/dist"
  [ -s "$zip" ] || { log "download failed: $zip missing"; exit 1; }
fi
home="$base/opensearch-$version"
if [ ! -x "$home/bin/opensearch" ]; then
  log "unpacking $zip"
  rm -rf "$base/unpack" "$home"
  mkdir -p "$base/unpack"
  unzip -q "$zip" -d "$base/unpack"
  mv "$base/unpack/opensearch-$version" "$home"
  rm -rf "$base/unpack"
fi

# The integ-test zip has only the transport-netty4 module. Graft, from their Maven jars (neither
# needs a third-party jar): analysis-common (the language analyzers and the lowercase/
# asciifolding/ngram/stemmer/synonym... filters and tokenizers; the painless extension it
# declares is unused) and geo (the geo_shape field type). Other modules (mapper-extras, reindex,
# ...) are not published on Maven Central as jars or zips.
graft() { # NAME CLASSNAME DESCRIPTION
  local mod="$home/modules/$1"
  [ -s "$mod/plugin-descriptor.properties" ] && return 0
  log "adding module $1 from org.opensearch.plugin:$1:$version"
  mkdir -p "$mod"
  fetch "org.opensearch.plugin:$1:$version" "$mod"
  [ -s "$mod/$1-$version.jar" ] || { log "download failed: $1"; exit 1; }
  cat >"$mod/plugin-descriptor.properties" <<EOF
description=$3
version=$version
name=$1
classname=$2
java.version=11
opensearch.version=$version
custom.foldername=
extended.plugins=
has.native.controller=false
EOF
}
graft analysis-common org.opensearch.analysis.common.CommonAnalysisPlugin 'Adds "built in" analyzers to OpenSearch.'
graft geo org.opensearch.geo.GeoModulePlugin 'Plugin for geospatial features in OpenSearch.'

# Our own config dir (the unpacked home stays pristine); OpenSearch writes its keystore there.
conf="$base/config"
mkdir -p "$conf" "$base/data" "$base/logs"
cp "$home/config/log4j2.properties" "$conf/"
# bin/opensearch runs from the (root-owned) home: point its relative paths to $base instead.
sed -e "s#logs/gc.log#$base/logs/gc.log#" -e "s#HeapDumpPath=data#HeapDumpPath=$base/data#" \
  -e "s#ErrorFile=logs/#ErrorFile=$base/logs/#" "$home/config/jvm.options" >"$conf/jvm.options"
mkdir -p "$conf/jvm.options.d"
cat >"$conf/opensearch.yml" <<EOF
cluster.name: harvester
node.name: harvester-1
discovery.type: single-node
network.host: 127.0.0.1
http.port: $port
path.data: $base/data
path.logs: $base/logs
# tests run on machines with nearly full disks: never go read-only for that
cluster.routing.allocation.disk.threshold_enabled: false
EOF

# OpenSearch refuses to run as root: the node belongs to the opensearch user.
if [ "$(id -u)" = 0 ]; then
  id -u opensearch >/dev/null 2>&1 ||
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin opensearch
  chown opensearch:opensearch "$base"  # for the pid file
  chown -R opensearch:opensearch "$conf" "$base/data" "$base/logs"
  as_os=(runuser -u opensearch --)
else
  as_os=()
fi

cd /  # the opensearch user may not be able to enter the caller's directory
pid=$(cat "$base/opensearch.pid" 2>/dev/null || true)
if [ -n "$pid" ] && grep -qs org.opensearch.bootstrap "/proc/$pid/cmdline"; then
  log "OpenSearch (pid $pid) is starting; waiting for it"
  launcher=$pid
else
  log "starting OpenSearch $version on $url"
  rm -f "$base/opensearch.pid"
  setsid "${as_os[@]}" env OPENSEARCH_JAVA_HOME="$jhome" OPENSEARCH_PATH_CONF="$conf" \
    OPENSEARCH_JAVA_OPTS="${OPENSEARCH_JAVA_OPTS:--Xms512m -Xmx512m}" \
    "$home/bin/opensearch" -p "$base/opensearch.pid" >"$base/logs/stdout.log" 2>&1 </dev/null 9>&- &
  launcher=$!
fi

deadline=$((SECONDS + 120))
while [ "$SECONDS" -lt "$deadline" ]; do
  healthy && break
  kill -0 "$launcher" 2>/dev/null || break  # the node died
  sleep 0.5
done
if ! healthy; then
  log "OpenSearch did not become healthy on $url; log tail:"
  tail -n 40 "$base/logs/stdout.log" >&2 || true
  tail -n 40 "$base/logs/harvester.log" >&2 2>/dev/null || true
  pid=$(cat "$base/opensearch.pid" 2>/dev/null || true)
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  exit 1
fi
log "up (pid $(cat "$base/opensearch.pid" 2>/dev/null || echo "$launcher"))"
echo "export OPENSEARCH_URL='$url'"
