#!/usr/bin/env bash
# Installs the tools that check deploy/ (scripts/deploy-validate.sh), once, into the services
# directory that scripts/services.sh uses (HARVESTER_SERVICES_DIR, default
# /tmp/harvester-services):
#   - kustomize, built by `go install` from the Go module proxy at an exact version, into
#     $HARVESTER_SERVICES_DIR/bin (the directory services.sh puts first on PATH);
#   - kubernetes-validate (PyPI; it ships the Kubernetes JSON schemas) in a venv of its own,
#     $HARVESTER_SERVICES_DIR/venv-deploy.
# Idempotent: a tool already at its version is left alone. Prints the environment to use:
#   eval "$(bash scripts/deploy-tools.sh)"
# which sets HARVESTER_KUSTOMIZE and HARVESTER_KUBERNETES_VALIDATE (paths of the two tools).
set -euo pipefail

dir=${HARVESTER_SERVICES_DIR:-/tmp/harvester-services}
kustomize_version=v5.8.1
kubernetes_validate_version=1.37.0
log() { echo "deploy-tools: $*" >&2; }

mkdir -p "$dir/bin"
kustomize="$dir/bin/kustomize-$kustomize_version"
if [ ! -x "$kustomize" ]; then
  log "building kustomize $kustomize_version (go install)"
  gobin=$(mktemp -d "$dir/bin/.kustomize.XXXXXX")
  # Outside any module, so the project's go.mod is not touched.
  (cd "$gobin" && GOBIN="$gobin" GOFLAGS=-mod=mod go install "sigs.k8s.io/kustomize/kustomize/v5@$kustomize_version") >&2
  mv "$gobin/kustomize" "$kustomize"
  rm -rf "$gobin"
fi
ln -sf "$(basename "$kustomize")" "$dir/bin/kustomize"

venv="$dir/venv-deploy"
if ! "$venv/bin/kubernetes-validate" --version 2>/dev/null | grep -qF "$kubernetes_validate_version"; then
  log "making $venv with kubernetes-validate $kubernetes_validate_version"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$kubernetes_validate_version" >&2
fi

echo "export HARVESTER_KUSTOMIZE='$kustomize'"
echo "export HARVESTER_KUBERNETES_VALIDATE='$venv/bin/kubernetes-validate'"
