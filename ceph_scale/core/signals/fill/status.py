"""The fill signal's section of `ceph scale status`: the cluster against the fill target, the
fullest OSD, and the pools, fullest first."""

from __future__ import annotations

from typing import Any

from ..judging import JsonObject, Judged, Raised, StatusSection, section, status_word
from ..wording import duration, pct, size
from .result import FillResult


def fill(r: Judged, checks: Raised, top: int) -> JsonObject:
    target = r.th.fill_target_ratio
    judged = r.results.get(FillResult)
    lines: list[str] = []
    data: dict[str, Any] = {"target_ratio": target}
    cluster = judged.cluster if judged is not None else None
    if cluster is not None:
        used, headroom, eta = cluster.used_ratio, float(cluster.headroom_bytes), cluster.seconds_to_target
        data.update({"cluster_used_ratio": used, "cluster_headroom_bytes": headroom, "cluster_seconds_to_target": eta})
        if used >= target:
            lines.append(
                f"cluster {pct(used)} used: {pct(used - target)} ({size(-headroom)} raw) past the {pct(target)} target"
            )
        else:
            when = "not filling" if eta is None else f"reached in {duration(eta)} at the current fill rate"
            lines.append(
                f"cluster {pct(used)} used: {pct(target - used)} ({size(headroom)} raw) "
                f"below the {pct(target)} target; target {when}"
            )
    fullest = judged.fullest if judged is not None else None
    if fullest is not None:
        data["fullest_osd"] = {"ceph_daemon": fullest.ceph_daemon, "used_ratio": fullest.used_ratio}
        lines.append(f"fullest OSD {fullest.ceph_daemon} at {pct(fullest.used_ratio)}: it fills first")
    pools = sorted(judged.pools if judged is not None else (), key=lambda p: (-p.used_ratio, p.pool_id))
    offenders: list[dict[str, Any]] = [
        {
            "pool_id": p.pool_id,
            "name": p.name,
            "used_ratio": float(p.used_ratio),
            "seconds_to_target": p.seconds_to_target,
        }
        for p in pools
    ]
    if offenders:
        lines.append("pools, fullest first:")
        for o in offenders[:top]:
            seconds = o["seconds_to_target"]
            lines.append(
                f"  {o['name']} (id {o['pool_id']}): {pct(o['used_ratio'])} used"
                + ("" if seconds is None else f", target in {duration(seconds)}")
            )
    osds = judged.osds if judged is not None else ()
    # Near the target as SCALE_FILL_HEADROOM judges an OSD: within its margin of it.
    near = target - r.opts.fill_headroom_warn_margin
    data["osds_near_target"] = sum(1 for o in osds if o.used_ratio >= near)
    has = cluster is not None or bool(pools) or bool(osds)
    if not has:
        lines = ["no capacity data yet (sources capacity, osd_map)"]
    return section(status_word(has, "SCALE_FILL_HEADROOM" in checks), lines, data, offenders)


SECTION = StatusSection("2. Distance to the fill target", fill)
