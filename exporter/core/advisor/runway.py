"""The runway of each study limit: seconds until it is reached at the fitted growth (docs/runway.md).

0: reached now. inf: the growth behind it is fitted and not positive. None: no fit yet. Each
comes with the span of history its growth was fitted over and whether that growth is steady.
"""

from __future__ import annotations

import math

from ..config import Thresholds
from ..signals.spillover import usable_db_bytes
from . import scrub
from .model import Growth, Measured, Runway


def until(left: float, rate: float | None) -> float | None:
    """Seconds to use up `left` at `rate` per second."""
    if left <= 0:
        return 0.0
    if rate is None:
        return None
    return left / rate if rate > 0 else math.inf


def _growth_conf(g: Growth | None) -> tuple[float, bool | None]:
    return (g.span, g.steady) if g is not None and g.rate is not None else (0.0, None)


def fill_cluster(m: Measured, th: Thresholds) -> Runway:
    g = m.raw_used
    if g is None or m.raw_total_bytes <= 0:
        return Runway("fill_cluster", None, 0.0, None, "no capacity data")
    left = th.fill_target_ratio * m.raw_total_bytes - g.now
    return Runway("fill_cluster", until(left, g.rate), *_growth_conf(g), f"raw use {g.now / m.raw_total_bytes:.1%}")


def fill_osd(m: Measured, th: Thresholds) -> Runway:
    """Each OSD takes its share of the raw growth in proportion to what it holds: CRUSH keeps
    the imbalance it has, so the fullest OSD crosses first."""
    g = m.raw_used
    if g is None or not m.osd_fill:
        return Runway("fill_osd", None, 0.0, None, "no OSD fill data")
    best: tuple[float, str] | None = None
    held = sum(o.used_bytes for o in m.osd_fill)
    for o in m.osd_fill:
        left = th.fill_target_ratio * o.size_bytes - o.used_bytes
        if left <= 0:
            return Runway("fill_osd", 0.0, *_growth_conf(g), f"{o.daemon} is past the fill target")
        if g.rate is None:
            continue
        share = o.used_bytes / held if held > 0 else 1 / len(m.osd_fill)
        seconds = until(left, g.rate * share)
        if seconds is not None and (best is None or seconds < best[0]):
            best = (seconds, o.daemon)
    if best is None:
        return Runway("fill_osd", None, 0.0, None, "no raw growth fitted yet")
    return Runway("fill_osd", best[0], *_growth_conf(g), f"{best[1]} first")


def db_limit(db_bytes: int, used: int, th: Thresholds) -> int:
    """What the DB use must stay under: the whole levels that fit; once past them without
    spilling (Pacific's volume selector lets a level use spare space), the device itself."""
    usable = usable_db_bytes(db_bytes, th)
    return usable if used < usable else db_bytes


def db_levels(m: Measured, th: Thresholds) -> Runway:
    if not m.dbs:
        return Runway("db_levels", None, 0.0, None, "no OSD with a DB device")
    spilling = [d for d in m.dbs if d.spilled_bytes > 0]
    if spilling:
        return Runway("db_levels", 0.0, 0.0, None, f"{len(spilling)} of {len(m.dbs)} OSDs spill now")
    best: tuple[float, str, Growth] | None = None
    for d in m.dbs:
        seconds = until(db_limit(d.db_bytes, d.used_bytes, th) - d.used_bytes, d.growth.rate)
        if seconds is not None and (best is None or seconds < best[0]):
            best = (seconds, d.daemon, d.growth)
    if best is None:
        return Runway("db_levels", None, 0.0, None, "no DB growth fitted yet")
    return Runway("db_levels", best[0], *_growth_conf(best[2]), f"{best[1]} first")


def hdd_load(m: Measured, th: Thresholds, at: float = 0.0) -> tuple[float, float] | None:
    """(load, its growth per second) per HDD OSD as a share of the baseline: the larger of the
    mixed ops (put/60 + get/90) and the mixed bytes (put/34 MB + get/37 MB) [004]."""
    if m.hdd_osds <= 0 or "put_ops" not in m.s3:
        return None
    mixes = []
    for (put, put_base), (get, get_base) in (
        (("put_ops", th.baseline_put_ops_per_hdd), ("get_ops", th.baseline_get_ops_per_hdd)),
        (("put_bytes", th.baseline_put_bytes_per_hdd), ("get_bytes", th.baseline_get_bytes_per_hdd)),
    ):
        p, g = m.s3[put], m.s3[get]
        level = (p.at(at) / put_base + g.at(at) / get_base) / m.hdd_osds
        rate = ((p.rate or 0.0) / put_base + (g.rate or 0.0) / get_base) / m.hdd_osds
        mixes.append((level, rate))
    return max(mixes)


def rgw_load(m: Measured, th: Thresholds, at: float = 0.0) -> tuple[float, float] | None:
    """(load, growth) per RGW as a share of the per-RGW figure: put/1,000 + get/500 [000]."""
    if m.rgw_instances <= 0 or "put_ops" not in m.s3:
        return None
    p, g = m.s3["put_ops"], m.s3["get_ops"]
    level = (p.at(at) / th.rgw_put_ops_per_instance + g.at(at) / th.rgw_get_ops_per_instance) / m.rgw_instances
    rate = (p.rate or 0.0) / th.rgw_put_ops_per_instance + (g.rate or 0.0) / th.rgw_get_ops_per_instance
    return level, rate / m.rgw_instances


def _load(limit: str, m: Measured, load: tuple[float, float] | None, what: str) -> Runway:
    if load is None:
        return Runway(limit, None, 0.0, None, "no S3 rates yet")
    level, rate = load
    fitted = m.s3["put_ops"].rate is not None
    seconds = until(1.0 - level, rate if fitted else None)
    return Runway(limit, seconds, m.s3_span if fitted else 0.0, m.s3_steady, f"{level:.0%} of the {what} now")


def scrub_capacity(m: Measured, th: Thresholds) -> Runway:
    """Scrub durations grow with the data in each PG, so utilization grows with raw use."""
    if m.scrub is None:
        return Runway("scrub", None, 0.0, None, "no scrub completed yet")
    u = scrub.utilization(m.scrub)
    if u is None:
        return Runway("scrub", None, 0.0, None, "no scrub completed yet")
    g = m.raw_used
    detail = f"scrubs use {u:.0%} of the scrub slots"
    if u >= 1:
        return Runway("scrub", 0.0, m.scrub.span, None, detail)
    if g is None or g.rate is None or g.now <= 0:
        return Runway("scrub", None, 0.0, None, detail)
    if u <= 0:  # scrubs complete, none was ever seen running: too short to weigh
        return Runway("scrub", math.inf, min(m.scrub.span, g.span), g.steady, detail)
    return Runway("scrub", until((1 / u - 1) * g.now, g.rate), min(m.scrub.span, g.span), g.steady, detail)


def shard(m: Measured) -> Runway:
    o = m.shards
    if o is None:
        return Runway("shard", None, 0.0, None, "no bucket data")
    detail = f"{o.over_limit} bucket(s) past the limit" if o.over_limit else f"{o.due} bucket(s) due by the target"
    steady = m.objects_steady if o.span > 0 else None
    return Runway("shard", o.runway, o.span, steady, detail)


def runways(m: Measured, th: Thresholds) -> tuple[Runway, ...]:
    return (
        fill_cluster(m, th),
        fill_osd(m, th),
        db_levels(m, th),
        _load("load_hdd", m, hdd_load(m, th), "HDD baseline"),
        _load("load_rgw", m, rgw_load(m, th), "per-RGW figure"),
        scrub_capacity(m, th),
        shard(m),
    )
