"""Distance to the 80 % fill line [001, 000, 003].

The fill rate is fitted over the exporter's own history, so a prediction is
there even without a Prometheus recording rule, and both producers agree.
"""

from __future__ import annotations

from ...config import Thresholds
from ...families import Family, gauge
from ...history import KeyedSeries, Series
from ..signal_input import SignalInput
from .result import ClusterFill, FillResult, OsdFill, PoolFill


class FillState:
    def __init__(self, th: Thresholds) -> None:
        self.cluster_used = Series(th.fill_forecast_window_seconds, th.forecast_min_span_seconds)
        self.pool_ratio = KeyedSeries(th.fill_forecast_window_seconds, th.forecast_min_span_seconds)


def _thresholds(th: Thresholds) -> tuple[tuple[str, float], ...]:
    return (("warn", th.fill_warn_ratio), ("target", th.fill_target_ratio), ("critical", th.fill_critical_ratio))


def derive(given: SignalInput, state: FillState) -> list[Family]:
    snap, th = given.snap, given.th
    families: list[Family] = []
    cluster: ClusterFill | None = None
    pools: list[PoolFill] = []
    osds: list[OsdFill] = []
    fullest: tuple[float, str] | None = None
    cap = snap.capacity
    if cap is not None and cap.total_bytes > 0:
        state.cluster_used.add(cap.collected_at, cap.used_bytes)
        ratio = cap.used_bytes / cap.total_bytes
        families.append(gauge("cluster_size_bytes", "Raw cluster capacity.").add(cap.total_bytes))
        families.append(gauge("cluster_used_bytes", "Raw bytes used.").add(cap.used_bytes))
        families.append(gauge("cluster_used_ratio", "Raw used / raw capacity.").add(ratio))
        to_threshold = gauge(
            "cluster_fill_seconds_to_threshold",
            "Predicted seconds until the threshold is reached at the fitted fill rate; 0 once crossed.",
            "threshold",
        )
        slope = state.cluster_used.slope()
        for name, limit in _thresholds(th):
            left = limit * cap.total_bytes - cap.used_bytes
            eta: float | None = None
            if left <= 0:
                eta = 0.0
            elif slope is not None and slope > 0:
                eta = left / slope
            if eta is not None:
                to_threshold.add(eta, name)
            if name == "target":
                cluster = ClusterFill(ratio, left, eta)
        families.append(to_threshold)
        if slope is not None:
            families.append(
                gauge("cluster_fill_rate_bytes_per_second", "Fitted raw fill rate over the forecast window.").add(slope)
            )

    if cap is not None and cap.pools:
        state.pool_ratio.update(cap.collected_at, {p.pool_id: p.used_ratio for p in cap.pools})
        used = gauge("pool_used_ratio", "Pool fill: percent_used of df detail as a ratio.", "pool_id", "name")
        headroom_bytes = gauge(
            "pool_fill_headroom_bytes", "Client bytes the pool can take before reaching the target.", "pool_id", "name"
        )
        to_target = gauge(
            "pool_fill_seconds_to_target", "Predicted seconds until the pool reaches the target.", "pool_id", "name"
        )
        amplification = gauge("pool_space_amplification_ratio", "Raw bytes used per stored byte.", "pool_id", "name")
        expected = gauge(
            "pool_expected_amplification_ratio",
            "Raw bytes per stored byte the redundancy scheme implies.",
            "pool_id",
            "name",
        )
        target = th.fill_target_ratio
        for p in sorted(cap.pools, key=lambda p: p.pool_id):
            pid = str(p.pool_id)
            used.add(p.used_ratio, pid, p.name)
            # percent_used = stored / (stored + max_avail) in client bytes.
            headroom_bytes.add(target * (p.stored_bytes + p.max_avail_bytes) - p.stored_bytes, pid, p.name)
            pool_eta: float | None = None
            if p.used_ratio >= target:
                pool_eta = 0.0
            else:
                slope = state.pool_ratio.slope(p.pool_id)
                if slope is not None and slope > 0:
                    pool_eta = (target - p.used_ratio) / slope
            if pool_eta is not None:
                to_target.add(pool_eta, pid, p.name)
            pools.append(PoolFill(pid, p.name, p.used_ratio, pool_eta))
            if p.stored_bytes > 0:
                amplification.add(p.used_bytes / p.stored_bytes, pid, p.name)
            if p.data_chunks > 0:
                expected.add((p.data_chunks + p.coding_chunks) / p.data_chunks, pid, p.name)
        families += [used, headroom_bytes, to_target, amplification, expected]

    osd_map = snap.osd_map
    if osd_map is not None:
        ratios = gauge("osd_full_ratio", "The cluster's nearfull / backfillfull / full ratios.", "kind")
        ratios.add(osd_map.ratios.nearfull, "nearfull")
        ratios.add(osd_map.ratios.backfillfull, "backfillfull")
        ratios.add(osd_map.ratios.full, "full")
        families.append(ratios)
        per_osd = gauge("osd_used_ratio", "OSD fill ratio.", "ceph_daemon", "device_class")
        for o in sorted(osd_map.osds, key=lambda o: o.osd_id):
            if o.size_bytes <= 0:
                continue  # an OSD that never booted reports no size: not 0 % full
            r = o.used_bytes / o.size_bytes
            per_osd.add(r, o.ceph_daemon, o.device_class)
            osds.append(OsdFill(o.ceph_daemon, r))
            if o.up and o.in_cluster and (fullest is None or r > fullest[0]):
                fullest = (r, o.ceph_daemon)
        families.append(per_osd)
        if fullest is not None:
            families.append(
                gauge("osd_fullest_used_ratio", "Fill of the fullest up and in OSD.", "ceph_daemon").add(
                    fullest[0], fullest[1]
                )
            )
    top = OsdFill(fullest[1], fullest[0]) if fullest is not None else None
    given.judged(FillResult(cluster, tuple(pools), tuple(osds), top))
    return families
