# Harvester's build commands (GNU make). The Go toolchain is the only requirement of build;
# image needs a Docker (or compatible: IMAGE_TOOL=podman) engine; deploy-validate installs its
# tools once (scripts/deploy-tools.sh) and checks deploy/ as scripts/test.sh does.
GO ?= go
IMAGE ?= harvester:dev
IMAGE_TOOL ?= docker

.PHONY: build image image-buildah deploy-validate test

# build: the static binary ./harvester, as the Dockerfile builds it.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags="-s -w" -o harvester ./cmd/harvester

# image: the container image of the Dockerfile, tagged $(IMAGE).
image:
	$(IMAGE_TOOL) build -t $(IMAGE) .

# image-buildah: the same image built with Debian's buildah from scratch, without a registry
# or a Docker engine, then checked (scripts/image.sh; CI runs it).
image-buildah:
	bash scripts/image.sh $(IMAGE)

# deploy-validate: kustomize build of every overlay, kubernetes-validate of the output, and the
# Go tests of deploy/ (compose file, Dockerfile, KEDA/HPA objects against the real topology).
deploy-validate:
	bash scripts/deploy-validate.sh

# test: the whole suite with its services (scripts/test.sh).
test:
	bash scripts/test.sh
