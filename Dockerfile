# The ceph-scale-signals sidecar exporter.
#   podman build --format docker -t ceph-scale-exporter .     # or docker build; docker/image.sh
#   podman run --network host -v /etc/ceph/ceph.conf:/etc/ceph/ceph.conf:ro \
#     -v /etc/ceph/ceph.client.ceph-scale.keyring:/etc/ceph/ceph.client.ceph-scale.keyring:ro \
#     -v /etc/ceph-scale/rgw-admin.json:/etc/ceph-scale/rgw-admin.json:ro \
#     ceph-scale-exporter --ceph-user ceph-scale --web.listen-address :9928 \
#     --rgw-endpoint http://rgw:8080 --rgw-credentials-file /etc/ceph-scale/rgw-admin.json
# The mounted files must be readable by uid 10001 (docs/deploy.md). The build steps are
# docker/install.sh, which CI also runs on the host; tests/deploy/test_image.py builds this
# image with podman and runs it against the real test cluster.
FROM debian:12-slim
# The packages first: a change of the exporter's code reuses that layer.
COPY docker /src/docker
RUN /src/docker/install.sh --only packages
COPY exporter /src/exporter
RUN /src/docker/install.sh --only files && rm -rf /src
COPY docker/healthcheck.py /usr/local/lib/ceph-scale-healthcheck.py
USER 10001:10001
WORKDIR /var/lib/ceph-scale
EXPOSE 9928
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["/usr/bin/python3", "/usr/local/lib/ceph-scale-healthcheck.py"]
ENTRYPOINT ["/usr/local/bin/ceph-scale-exporter", "--state-file", "/var/lib/ceph-scale/state.json"]
CMD ["--web.listen-address", ":9928"]
