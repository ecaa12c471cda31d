"""ceph-scale-signals' two shared packages, owned by neither producer: `core` (pure: the
snapshot, a parser module per source, the signals, the advisor, the exposition) and `io` (the
runner and loop, bounded HTTP, Admin Ops, radosgw-admin, SigV4, the librados reads, serving).
The sidecar (exporter/) and the ceph-mgr module (mgr_module/scale) are thin adapters over them.
"""
