// Package deploy holds no code: its tests check the deployment files of this directory and the
// repository's Dockerfile. They parse ../Dockerfile (a multi-stage static build whose last stage
// runs non-root), load compose.yaml with compose-go (the Compose Specification loader and
// schema that `docker compose config` uses), build the kustomizations of k8s/ with the
// kustomize binary (HARVESTER_KUSTOMIZE, or kustomize on PATH; scripts/deploy-tools.sh installs
// it) and check the objects' structure, and compare the KEDA ScaledObjects' streams and
// consumers with those a running pipeline creates for each worker Deployment's stages.
package deploy
