"""Hot HDD OSDs, each judged against the mean of its own device class [004].

The rules once joined three per-OSD families across every cluster each round to
find these (about 32,000 series at 100 study-size clusters); the exporter already
holds each OSD's op rate and class, so it emits the few figures the alert reads.
The mean is per HDD device class, so an archive class busier than the hdd class
does not make all its OSDs "hot"; the OSD map carries no CRUSH root, so two
roots of one class still share a mean.
"""

from __future__ import annotations

import heapq

from ...config import Thresholds
from ...families import Family, gauge
from ...snapshot import Snapshot


def hdd_hotspot_families(snap: Snapshot, th: Thresholds, ops: dict[int, float]) -> list[Family]:
    """ops: the client op rate (read + write) of each OSD that has one."""
    if snap.osd_map is None:
        return []
    by_class: dict[str, dict[int, float]] = {}
    for o in snap.osd_map.osds:
        if o.up and o.in_cluster and o.device_class in th.hdd_classes and o.osd_id in ops:
            by_class.setdefault(o.device_class, {})[o.osd_id] = ops[o.osd_id]
    top = gauge(
        "hdd_osd_hotspot_ratio",
        "Top-K up and in HDD OSDs by op rate: rate / the mean of their device class.",
        "ceph_daemon",
        "device_class",
    )
    hottest = gauge("hdd_osd_hottest_ratio", "The busiest HDD OSD's op rate / the mean of its class.", "device_class")
    hot = gauge("hdd_osd_hotspots", "HDD OSDs above osd_hotspot_ratio x the mean of their class.", "device_class")
    for device_class, rates in sorted(by_class.items()):
        mean = sum(rates.values()) / len(rates)
        if mean <= 0:  # no load: no OSD is hotter than the others
            continue
        ranked = heapq.nlargest(max(1, th.osd_top_hot), rates.items(), key=lambda kv: (kv[1], -kv[0]))
        for osd_id, rate in ranked[: th.osd_top_hot]:
            top.add(rate / mean, f"osd.{osd_id}", device_class)
        hottest.add(ranked[0][1] / mean, device_class)
        hot.add(sum(1 for r in rates.values() if r > th.osd_hotspot_ratio * mean), device_class)
    return [top, hottest, hot]
