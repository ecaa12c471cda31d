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
#
# DEBIAN_SUITE chooses the Ceph client, Debian's librados: trixie (Reef 18.2, the default)
# reads Pacific, Reef and Tentacle clusters, but not Tentacle's default AES256KRB5 cephx keys;
# sid (Tentacle 20.2) reads those too; bookworm is Pacific 16.2's.
#   podman build --format docker --build-arg DEBIAN_SUITE=sid -t ceph-scale-exporter:tentacle .
ARG DEBIAN_SUITE=trixie
FROM debian:${DEBIAN_SUITE}-slim
# true unless the mirror is a dated snapshot (docker/image.sh): then apt checks signatures alone.
ARG APT_CHECK_VALID_UNTIL=true
# The packages first: a change of the exporter's code (or of docker/image.sh) reuses that layer.
COPY docker/install.sh docker/packages.txt docker/packages-if-available.txt /src/docker/
RUN /src/docker/install.sh --only packages
COPY ceph_scale /src/ceph_scale
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
