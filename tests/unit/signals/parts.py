"""Snapshot parts the signals' tests build: buckets and OSDs with the fields a test sets."""

from __future__ import annotations

from ceph_scale.core.snapshot import Bucket, FullRatios, Osd, OsdMapPart

MiB, GiB = 1024**2, 1024**3


def bucket(name, bid, shards, objects, marker="m-" + "x"):
    return Bucket(name=name, tenant="", bucket_id=bid, num_shards=shards, num_objects=objects, marker=marker)


def osd(i, cls="hdd", up=True, size=4 * GiB, used=GiB, root="default"):
    return Osd(
        osd_id=i,
        device_class=cls,
        host="h",
        up=up,
        in_cluster=True,
        size_bytes=size,
        used_bytes=used,
        crush_root=root,
    )


def osd_map(osds, t=100.0):
    return OsdMapPart(collected_at=t, osds=tuple(osds), ratios=FullRatios(0.85, 0.9, 0.95))
