"""SCALE_LOAD_ABOVE_BASELINE: the S3 load per HDD OSD above a multiple of the study's baseline,
in ops or in bytes, with the hot OSDs that take more than their share."""

from __future__ import annotations

from ...config import Thresholds
from ..check_options import CheckOptions
from ..judging import HealthCheck, JsonObject, health_check
from .result import LoadResult


def check_load(load: LoadResult | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    per_hdd = load.per_hdd if load is not None else None
    if load is None or per_hdd is None:
        return None
    limit = opts.load_warn_ratio
    lines = []
    mixed = per_hdd.mixed_ratio
    if mixed > limit:
        lines.append(
            (
                -mixed,
                f"S3 ops per HDD OSD are {mixed:.2f} x the study's baseline: {per_hdd.put_ops:.1f} PUT/s + "
                f"{per_hdd.get_ops:.1f} GET/s against {th.baseline_put_ops_per_hdd:g} PUT/s or "
                f"{th.baseline_get_ops_per_hdd:g} GET/s (64 KB objects)",
            )
        )
    for op, ratio, base in (
        ("put", per_hdd.put_bytes_ratio, th.baseline_put_bytes_per_hdd),
        ("get", per_hdd.get_bytes_ratio, th.baseline_get_bytes_per_hdd),
    ):
        if ratio > limit:
            lines.append(
                (-ratio, f"S3 {op.upper()} bytes per HDD OSD are {ratio:.2f} x the baseline of {base / 1e6:g} MB/s")
            )
    if not lines:
        return None
    lines.sort()
    hot = [h for h in load.hotspots if h.hot(th.osd_hotspot_ratio, mixed)]  # as the alert judges; hottest first
    text = [line for _, line in lines] + [
        f"{h.ceph_daemon} takes {h.ratio:.1f} x the mean op rate of the {h.device_class} OSDs under CRUSH root "
        f"{h.crush_root or '(none)'}"
        for h in hot
    ]
    worst = -lines[0][0]
    summary = f"S3 load per HDD OSD is {worst:.2f} x the measured baseline (warn above {limit:g})"
    return health_check("warning", summary, len(text), text, opts.health_detail_max)


CHECKS = (HealthCheck("SCALE_LOAD_ABOVE_BASELINE", check_load),)
