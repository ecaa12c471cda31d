"""SCALE_DB_SHARE_LOW (DB devices below the study's share of the data device),
SCALE_BLUEFS_SPILL_SOON (OSDs predicted to spill RocksDB onto the slow device soon) and
SCALE_BLUEFS_OVERSIZED (BlueFS past bluefs_warn_ratio of the main device: what newer Ceph
raises as BLUESTORE_BLUEFS_OVERSIZED, here on every release)."""

from __future__ import annotations

from ...config import Thresholds
from ..check_options import CheckOptions
from ..judging import DAY, HealthCheck, JsonObject, health_check
from ..wording import duration, number, pct, size
from .result import SpilloverResult


def check_db_share(spill: SpilloverResult | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    if spill is None or not spill.share_below_min_osds:
        return None
    below = spill.share_below_min_osds
    minimum = th.bluefs_db_share_min_ratio
    rows = sorted(
        (o.db_share_ratio, o.ceph_daemon)
        for o in spill.osds
        if o.db_share_ratio is not None and o.db_share_ratio < minimum
    )
    lines = [f"{d}: DB device is {pct(ratio)} of the data device (study: at least {pct(minimum)})" for ratio, d in rows]
    summary = f"{number(below)} OSD(s) with a DB device below {pct(minimum)} of the data device"
    return health_check("warning", summary, below, lines, opts.health_detail_max)


def check_spill_soon(spill: SpilloverResult | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    if spill is None or not opts.forecasts(th):
        return None
    horizon = opts.bluefs_spill_warn_days * DAY
    usable = {o.ceph_daemon: o.db_usable_bytes for o in spill.osds}
    rows = sorted((e.seconds, e.ceph_daemon) for e in spill.next_level if 0 < e.seconds <= horizon)
    if not rows:
        return None
    lines = [
        f"{d}: DB use passes the usable {size(usable.get(d, 0))} (RocksDB levels that fit whole) in {duration(e)}"
        for e, d in rows
    ]
    days = opts.bluefs_spill_warn_days
    summary = f"{len(rows)} OSD(s) predicted to spill RocksDB onto the slow device within {days:g} days"
    return health_check("warning", summary, len(rows), lines, opts.health_detail_max)


def check_oversized(spill: SpilloverResult | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    if spill is None or not spill.oversized:
        return None
    ratio = th.bluefs_warn_ratio
    lines = [
        f"{o.ceph_daemon}: BlueFS uses {size(o.used_bytes)} (DB + WAL + spilled), {pct(o.ratio)} of the "
        f"{size(o.main_bytes)} main device (bluefs_warn_ratio {pct(ratio)})"
        for o in spill.oversized
    ]
    n = len(spill.oversized)
    summary = f"{number(n)} OSD(s) with BlueFS using more than {pct(ratio)} of the main device"
    return health_check("warning", summary, n, lines, opts.health_detail_max)


CHECKS = (
    HealthCheck("SCALE_DB_SHARE_LOW", check_db_share),
    HealthCheck("SCALE_BLUEFS_SPILL_SOON", check_spill_soon),
    HealthCheck("SCALE_BLUEFS_OVERSIZED", check_oversized),
)
