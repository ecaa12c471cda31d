"""Hot HDD OSDs, each judged against the mean of the OSDs of its own device class
under its own CRUSH root [004].

The rules once joined three per-OSD families across every cluster each round to
find these (about 32,000 series at 100 study-size clusters); the exporter already
holds each OSD's op rate, class and root, so it emits the few figures the alert
reads. Pools are placed by CRUSH root and device class: OSDs of one root serve
its pools' load, and a root holding a busier pool (an index or a hot tenant's
data) does not make all its OSDs "hot" against the others. An OSD in no tree
(a stray, or a plain `osd df` answer) has the root "".

How hot is too hot is a second figure: the hottest OSD's rate against the mean
of every up and in HDD OSD of the cluster, the OSDs the cluster's load ratio
divides by, so that (that figure) x (the load ratio) is this OSD's own load
against one HDD OSD's baseline. Its ratio to its root's mean would overstate a
quiet root's hottest OSD (2.5x an archive root's 2 ops/s is still idle).
"""

from __future__ import annotations

import heapq

from ...config import Thresholds
from ...families import Family, gauge
from ...snapshot import Snapshot
from .result import Hotspot


def hdd_hotspots(
    snap: Snapshot, th: Thresholds, ops: dict[int, float], load: float | None
) -> tuple[list[Family], tuple[Hotspot, ...], int]:
    """ops: the client op rate (read + write) of each OSD that has one; load: the cluster's mixed
    load ratio, if known. Returns the families, the top-K OSDs of every class and root by their
    ratio (for the health check and the status) and how many are hot as the alert judges them:
    above osd_hotspot_ratio x their root's mean, and carrying past one HDD OSD's baseline."""
    if snap.osd_map is None:
        return [], (), 0
    groups: dict[tuple[str, str], dict[int, float]] = {}
    for o in snap.osd_map.osds:
        if o.up and o.in_cluster and o.device_class in th.hdd_classes and o.osd_id in ops:
            groups.setdefault((o.device_class, o.crush_root), {})[o.osd_id] = ops[o.osd_id]
    top = gauge(
        "hdd_osd_hotspot_ratio",
        "Top-K up and in HDD OSDs by op rate: rate / the mean of their device class under their CRUSH root.",
        "ceph_daemon",
        "device_class",
        "crush_root",
    )
    hottest = gauge(
        "hdd_osd_hottest_ratio",
        "The busiest HDD OSD's op rate / the mean of its device class under its CRUSH root.",
        "device_class",
        "crush_root",
    )
    against_cluster = gauge(
        "hdd_osd_hottest_cluster_ratio",
        "The busiest HDD OSD of its device class under its CRUSH root: its op rate / the mean of every up "
        "and in HDD OSD of the cluster (the OSDs the load ratio divides by).",
        "device_class",
        "crush_root",
    )
    hot = gauge(
        "hdd_osd_hotspots",
        "HDD OSDs above osd_hotspot_ratio x the mean of their device class under their CRUSH root.",
        "device_class",
        "crush_root",
    )
    judged: list[Hotspot] = []
    count = 0
    every = [r for rates in groups.values() for r in rates.values()]
    cluster_mean = sum(every) / len(every) if every else 0.0
    for (device_class, root), rates in sorted(groups.items()):
        mean = sum(rates.values()) / len(rates)
        if mean <= 0:  # no load: no OSD is hotter than the others
            continue
        ranked = heapq.nlargest(max(1, th.osd_top_hot), rates.items(), key=lambda kv: (kv[1], -kv[0]))
        for osd_id, rate in ranked[: th.osd_top_hot]:
            top.add(rate / mean, f"osd.{osd_id}", device_class, root)
            judged.append(Hotspot(f"osd.{osd_id}", rate / mean, device_class, root, rate / cluster_mean))
        hottest.add(ranked[0][1] / mean, device_class, root)
        # cluster_mean > 0 here: this group's OSDs are among its OSDs, and their mean is > 0
        against_cluster.add(ranked[0][1] / cluster_mean, device_class, root)
        above = sum(1 for r in rates.values() if r > th.osd_hotspot_ratio * mean)
        hot.add(above, device_class, root)
        if load is not None:
            count += sum(1 for r in rates.values() if r > th.osd_hotspot_ratio * mean and r / cluster_mean * load >= 1)
    judged.sort(key=lambda h: (-h.ratio, h.ceph_daemon))
    return [top, hottest, against_cluster, hot], tuple(judged[: th.osd_top_hot]), count
