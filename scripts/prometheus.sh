#!/usr/bin/env bash
# Installs Debian's prometheus package once (the Prometheus server and promtool), for the alert
# rule checks (promtool check rules / test rules on deploy/prometheus/) and the scrape test of
# `harvester serve` (cmd/harvester TestPrometheusScrapesServe). Idempotent and quiet: nothing
# is installed when both binaries are on PATH. The package's own service is not needed (the
# test runs its own server on loopback with a config it writes). Prints the environment to use:
#   eval "$(scripts/prometheus.sh)"
set -euo pipefail
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  echo "prometheus.sh: installing Debian's prometheus package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 ||
    { echo "$0: apt-get update failed (another package manager holding its lock for 10 minutes, or no network)" >&2; exit 1; }
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends prometheus >&2 ||
    { echo "$0: apt-get install --no-install-recommends prometheus failed (see above)" >&2; exit 1; }
fi
echo "export HARVESTER_PROMETHEUS=$(command -v prometheus) HARVESTER_PROMTOOL=$(command -v promtool)"
