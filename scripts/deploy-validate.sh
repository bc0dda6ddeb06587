#!/usr/bin/env bash
# Checks deploy/ as scripts/test.sh (and `make deploy-validate`) does:
#   1. installs kustomize and kubernetes-validate once (scripts/deploy-tools.sh);
#   2. `kustomize build` of the base and of every overlay succeeds;
#   3. every object of those builds passes `kubernetes-validate --strict` for Kubernetes
#      $HARVESTER_K8S_VERSION (default 1.37.0, the newest schemas kubernetes-validate ships).
#      Kinds it has no schema for (KEDA's ScaledObject) are only warned about here: deploy's
#      Go tests check them field by field and against the consumers Harvester creates;
#   4. the Go tests of deploy/ (Dockerfile, compose.yaml loaded by compose-go, the builds'
#      structure, KEDA and HPA objects against the pipeline's topology).
# Needs Go and python3 (with venv); prints the tools' environment on stdout for an eval.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=$(bash scripts/deploy-tools.sh)
eval "$tools"
k8s_version=${HARVESTER_K8S_VERSION:-1.37.0}
work=$(mktemp -d "${TMPDIR:-/tmp}/harvester-deploy.XXXXXX")
trap 'rm -rf "$work"' EXIT
for dir in deploy/k8s/base deploy/k8s/overlays/*/; do
  dir=${dir%/}
  out="$work/$(echo "$dir" | tr / _).yaml"
  "$HARVESTER_KUSTOMIZE" build "$dir" >"$out" || { echo "deploy-validate: kustomize build $dir failed" >&2; exit 1; }
  "$HARVESTER_KUBERNETES_VALIDATE" --strict --quiet -k "$k8s_version" "$out" >"$work/validate.log" 2>&1 ||
    { echo "deploy-validate: $dir does not validate against Kubernetes $k8s_version:" >&2; cat "$work/validate.log" >&2; exit 1; }
  echo "deploy-validate: $dir: kustomize build and kubernetes-validate $k8s_version passed ($(grep -c '^kind:' "$out") objects)" >&2
done
go test -count=1 ./deploy/ >&2
echo "$tools"
