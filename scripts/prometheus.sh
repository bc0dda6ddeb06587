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
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends prometheus >&2
fi
echo "export HARVESTER_PROMETHEUS=$(command -v prometheus) HARVESTER_PROMTOOL=$(command -v promtool)"
