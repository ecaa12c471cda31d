"""The load signal's section of `ceph scale status`: the S3 load per HDD OSD against the study's
baseline, the headroom left, and the busiest OSDs."""

from __future__ import annotations

from typing import Any

from ..judging import JsonObject, Judged, Raised, StatusSection, count, section, status_word
from ..wording import number
from .result import LoadResult


def load(r: Judged, checks: Raised, top: int) -> JsonObject:
    judged = r.results.get(LoadResult)
    hdds = None if judged is None or judged.hdd_osds is None else float(judged.hdd_osds)
    if judged is None or (judged.s3_ops is None and not judged.osd_rates):
        return section("NO DATA", ["no op rates yet (source perf; rates need two samples)"], {"hdd_osds": hdds}, [])
    ops = {"put": judged.s3_ops[0], "get": judged.s3_ops[1]} if judged.s3_ops is not None else {}
    h = judged.per_hdd
    per_hdd = {"put": h.put_ops, "get": h.get_ops} if h is not None else {}
    ratios = (
        {
            ("put", "ops"): h.put_ops_ratio,
            ("get", "ops"): h.get_ops_ratio,
            ("put", "bytes"): h.put_bytes_ratio,
            ("get", "bytes"): h.get_bytes_ratio,
            ("mixed", "ops"): h.mixed_ratio,
        }
        if h is not None
        else {}
    )
    headroom = {"put": h.put_headroom, "get": h.get_headroom} if h is not None else {}
    data: dict[str, Any] = {
        "hdd_osds": hdds,
        "s3_ops_per_second": ops,
        "s3_ops_per_hdd_osd": per_hdd,
        "load_ratio": {f"{op}_{unit}": val for (op, unit), val in ratios.items()},
        "headroom_ops_per_second": headroom,
    }
    lines = []
    if ops:
        lines.append(
            f"S3 {ops.get('put', 0):.1f} PUT/s, {ops.get('get', 0):.1f} GET/s over {number(hdds or 0)} up+in HDD OSDs"
        )
    if ("mixed", "ops") in ratios:
        lines.append(
            f"per HDD OSD {per_hdd.get('put', 0):.2f} PUT/s + {per_hdd.get('get', 0):.2f} GET/s = "
            f"{ratios[('mixed', 'ops')]:.2f} x the baseline ({r.th.baseline_put_ops_per_hdd:g} PUT / "
            f"{r.th.baseline_get_ops_per_hdd:g} GET); bytes: PUT "
            f"{ratios.get(('put', 'bytes'), 0):.2f} x, GET {ratios.get(('get', 'bytes'), 0):.2f} x"
        )
        lines.append(f"headroom: {headroom.get('put', 0):.0f} more PUT/s or {headroom.get('get', 0):.0f} more GET/s")
    hot = sorted(judged.hotspots, key=lambda o: (-o.ratio, o.ceph_daemon))
    offenders = [
        {"ceph_daemon": o.ceph_daemon, "hotspot_ratio": o.ratio, "device_class": o.device_class,
         "crush_root": o.crush_root, "cluster_ratio": o.cluster_ratio}
        for o in hot
    ]  # fmt: skip
    if hot:
        hot_count = count(judged.hotspot_count)
        lines.append(
            f"{number(hot_count)} hot HDD OSD(s) (above {r.th.osd_hotspot_ratio:g} x the mean of their class under "
            "their CRUSH root, and past one HDD OSD's baseline); busiest:"
        )
        for o in hot[:top]:
            root = o.crush_root or "(none)"
            lines.append(f"  {o.ceph_daemon}: {o.ratio:.2f} x the mean ({o.device_class}, root {root})")
    return section(status_word(True, "SCALE_LOAD_ABOVE_BASELINE" in checks), lines, data, offenders)


SECTION = StatusSection("5. S3 load per HDD OSD against the study's baseline", load)
