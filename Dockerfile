# The ceph-scale-signals sidecar exporter.
#   docker build -t ceph-scale-exporter .
#   docker run -v /etc/ceph:/etc/ceph:ro -v ceph-scale-state:/var/lib/ceph-scale \
#     -p 9928:9928 ceph-scale-exporter --ceph-user ceph-scale \
#     --rgw-endpoint http://rgw:8080 --rgw-credentials-file /etc/ceph-scale/rgw-admin.json
# The build steps are docker/install.sh, which CI also runs on the host.
FROM debian:12-slim
COPY exporter /src/exporter
COPY docker /src/docker
RUN /src/docker/install.sh && rm -rf /src
COPY docker/healthcheck.py /usr/local/lib/ceph-scale-healthcheck.py
USER 10001:10001
WORKDIR /var/lib/ceph-scale
EXPOSE 9928
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
  CMD ["/usr/bin/python3", "/usr/local/lib/ceph-scale-healthcheck.py"]
ENTRYPOINT ["/usr/local/bin/ceph-scale-exporter", "--state-file", "/var/lib/ceph-scale/state.json"]
CMD ["--web.listen-address", ":9928"]
