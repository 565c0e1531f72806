# HAProxy from Debian's package with deploy/haproxy.cfg, for deploy/compose.cluster.yaml (socat: to
# talk to its runtime API, docs/deploy.md "Rolling deploys").
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends haproxy socat \
    && rm -rf /var/lib/apt/lists/* \
    && mkdir -p /run/haproxy
COPY haproxy.cfg /etc/haproxy/haproxy.cfg
EXPOSE 80
# -W: master-worker, so "docker kill -s USR2" reloads the configuration; -db: foreground.
CMD ["haproxy", "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"]
