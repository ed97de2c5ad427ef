# syntax=docker/dockerfile:1
# Parley: a static binary on a distroless base, as a non-root user, with
# its data in the /data volume. Build: docker build -t parley .
# Run:   docker run -p 8080:8080 -v parley-data:/data -e PARLEY_ADMIN_TOKEN=... parley

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The Redoc bundle of /docs is vendored (api/docs), so no npm here.
# `parley version` prints VERSION (docker build --build-arg VERSION=1.4.0);
# the commit is unknown in the image, since .git is not copied in.
ARG VERSION=dev
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/parley ./cmd/parley
RUN mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/parley /usr/local/bin/parley
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
VOLUME ["/data"]
EXPOSE 8080
# Plain HTTP on every interface is meant for a TLS-terminating proxy in
# front; give PARLEY_TLS_CERT and PARLEY_TLS_KEY to serve HTTPS instead.
# Behind a proxy, set PARLEY_TRUSTED_PROXIES to its address (or network)
# so per-address limits see the clients' X-Forwarded-For, not the proxy.
ENV PARLEY_ADDR=0.0.0.0:8080 \
    PARLEY_DATA=/data \
    PARLEY_INSECURE_HTTP=true \
    PARLEY_LOG_FORMAT=json
ENTRYPOINT ["/usr/local/bin/parley"]
CMD ["serve"]
