# syntax=docker/dockerfile:1
# Harvester's container image: one static binary on distroless/static (CA certificates, tzdata,
# /etc/passwd with the nonroot user, no shell), run as that non-root user. Build:
#   make image            # = docker build -t harvester:dev .
# The root filesystem may be mounted read-only: the process writes only to HARVESTER_DATA_DIR
# (/var/lib/harvester, a volume: the embedded default's SQLite, JetStream and bleve data) and
# to /tmp (spooled downloads, RDF graphs past --rdf-mem-triples): give both a volume.

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO_ENABLED=0: a static binary (SQLite is modernc.org/sqlite, pure Go).
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/harvester ./cmd/harvester && \
    mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/harvester /harvester
COPY --from=build --chown=65532:65532 /out/data /var/lib/harvester
ENV HARVESTER_DATA_DIR=/var/lib/harvester \
    HARVESTER_ADDR=0.0.0.0:8080
USER 65532:65532
VOLUME ["/var/lib/harvester"]
EXPOSE 8080
ENTRYPOINT ["/harvester"]
CMD ["serve"]
