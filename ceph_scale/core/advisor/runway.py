"""The runway of each study limit: seconds until it is reached at the fitted growth (docs/runway.md).

0: reached now. inf: the growth behind it is fitted and not positive. None: no fit yet. Each
comes with its 95 % interval (earliest, latest: inf only when no growth is within the interval),
the span of history its growth was fitted over, whether that growth is steady and its shape.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..config import Thresholds
from ..signals.spillover.derive import usable_db_bytes
from . import scrub
from .model import Growth, Measured, Runway


def until(left: float, rate: float | None) -> float | None:
    """Seconds to use up `left` at `rate` per second."""
    if left <= 0:
        return 0.0
    if rate is None:
        return None
    return left / rate if rate > 0 else math.inf


def at_rate(left: float, rate: float, acceleration: float = 0.0) -> float:
    """Seconds to use up `left` (> 0) at `rate`, the rate compounding by `acceleration` per second."""
    if rate <= 0:
        return math.inf
    if acceleration > 0:
        return math.log1p(acceleration * left / rate) / acceleration
    return left / rate


def reach(left: float, g: Growth | None, share: float = 1.0) -> tuple[float | None, float | None, float | None]:
    """(runway, earliest, latest) to use up `left` at `share` of the growth `g`. The earliest
    takes the fastest rate of the interval and the level at the top of its band, compounding
    as fitted; the latest the slowest rate, the level at the bottom, no compounding: "never"
    (inf) only where the interval holds no growth."""
    if left <= 0:
        return 0.0, 0.0, 0.0
    if g is None or g.rate is None:
        return None, None, None
    rate = g.rate * share
    high = (g.high if g.high is not None else g.rate) * share
    low = (g.low if g.low is not None else g.rate) * share
    error = g.level_error * share
    return (
        at_rate(left, rate, g.acceleration),
        0.0 if left <= error else at_rate(left - error, max(high, rate), g.acceleration),
        at_rate(left + error, min(low, rate)),
    )


def judged(limit: str, left: float, g: Growth | None, detail: str, share: float = 1.0, span: float | None = None,
           steady: bool | None = None) -> Runway:  # fmt: skip
    """The runway of `limit` from `left` and the growth behind it, with its interval and fit."""
    seconds, earliest, latest = reach(left, g, share)
    if g is None or g.rate is None:
        return Runway(limit, seconds, 0.0, None, detail, earliest, latest)
    return Runway(
        limit,
        seconds,
        g.span if span is None else span,
        g.steady if steady is None else steady,
        detail,
        earliest,
        latest,
        g.shape,
    )


def fill_cluster(m: Measured, th: Thresholds) -> Runway:
    g = m.raw_used
    if g is None or m.raw_total_bytes <= 0:
        return Runway("fill_cluster", None, 0.0, None, "no capacity data")
    left = th.fill_target_ratio * m.raw_total_bytes - g.now
    return judged("fill_cluster", left, g, f"raw use {g.now / m.raw_total_bytes:.1%}")


def fill_osd(m: Measured, th: Thresholds) -> Runway:
    """Each OSD takes its share of the raw growth in proportion to what it holds: CRUSH keeps
    the imbalance it has, so the fullest OSD crosses first."""
    g = m.raw_used
    if g is None or not m.osd_fill:
        return Runway("fill_osd", None, 0.0, None, "no OSD fill data")
    # The OSD with the least room for its share of the growth: first whatever the growth (one not
    # growing beyond noise is "never" for every OSD, and its interval's end is the fullest's).
    best: tuple[float, str, float, float] | None = None
    held = sum(o.used_bytes for o in m.osd_fill)
    for o in m.osd_fill:
        left = th.fill_target_ratio * o.size_bytes - o.used_bytes
        if left <= 0:
            return judged("fill_osd", 0.0, g, f"{o.daemon} is past the fill target")
        share = o.used_bytes / held if held > 0 else 1 / len(m.osd_fill)
        room = left / share if share > 0 else math.inf
        if best is None or room < best[0]:
            best = (room, o.daemon, left, share)
    if best is None or g.rate is None:
        return Runway("fill_osd", None, 0.0, None, "no raw growth fitted yet")
    return judged("fill_osd", best[2], g, f"{best[1]} first", best[3])


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
    best: tuple[float, float, str, Growth] | None = None
    for d in m.dbs:
        left = db_limit(d.db_bytes, d.used_bytes, th) - d.used_bytes
        seconds = until(left, d.growth.rate)
        # Where none grows (all "never"), the DB with the least room left.
        if seconds is not None and (best is None or (seconds, left) < best[:2]):
            best = (seconds, left, d.daemon, d.growth)
    if best is None:
        return Runway("db_levels", None, 0.0, None, "no DB growth fitted yet")
    return judged("db_levels", best[1], best[3], f"{best[2]} first")


def mix(m: Measured, weights: dict[str, float]) -> Growth:
    """A weighted sum of the S3 growths: its level, rate, interval (half-widths add: never narrower
    than its parts) and compounding."""
    parts = [(m.s3[name], w) for name, w in weights.items()]
    fitted = all(g.rate is not None for g, _ in parts)

    def total(pick: object) -> float:
        return sum(w * pick(g) for g, w in parts)  # type: ignore[operator]

    if not fitted:
        return Growth(total(lambda g: g.now))
    # The sum compounds at its parts' relative rates weighted by their growth (GETs doubling weekly
    # beside steady PUTs compound the load as the GETs do), and takes the shape of the part that
    # leads it: one that compounds, else the one growing most.
    growing = [(g, w * (g.rate or 0.0)) for g, w in parts]
    rate = sum(r for _, r in growing)
    acceleration = sum(r * g.acceleration for g, r in growing) / rate if rate > 0 else 0.0
    lead = max(growing, key=lambda p: (p[0].acceleration > 0 and p[1] > 0, abs(p[1])))[0]
    return Growth(
        total(lambda g: g.now),
        total(lambda g: g.rate),
        m.s3_span,
        m.s3_steady,
        total(lambda g: g.rate if g.low is None else g.low),
        total(lambda g: g.rate if g.high is None else g.high),
        total(lambda g: g.level_error),
        max(0.0, acceleration),
        lead.shape,
    )


def hdd_load_growth(m: Measured, th: Thresholds) -> Growth | None:
    """The load per HDD OSD as a share of the baseline: the larger of the mixed ops (put/60 +
    get/90) and the mixed bytes (put/34 MB + get/37 MB) [004]."""
    if m.hdd_osds <= 0 or "put_ops" not in m.s3:
        return None
    n = m.hdd_osds
    mixes = [
        mix(m, {"put_ops": 1 / th.baseline_put_ops_per_hdd / n, "get_ops": 1 / th.baseline_get_ops_per_hdd / n}),
        mix(
            m, {"put_bytes": 1 / th.baseline_put_bytes_per_hdd / n, "get_bytes": 1 / th.baseline_get_bytes_per_hdd / n}
        ),
    ]
    return max(mixes, key=lambda g: (g.now, g.rate or 0.0))


def rgw_load_growth(m: Measured, th: Thresholds) -> Growth | None:
    """The load per RGW as a share of the per-RGW figure: put/1,000 + get/500 [000]."""
    if m.rgw_instances <= 0 or "put_ops" not in m.s3:
        return None
    n = m.rgw_instances
    return mix(m, {"put_ops": 1 / th.rgw_put_ops_per_instance / n, "get_ops": 1 / th.rgw_get_ops_per_instance / n})


def hdd_load(m: Measured, th: Thresholds, at: float = 0.0) -> tuple[float, float] | None:
    """(load, its growth per second) per HDD OSD `at` seconds from now (hdd_load_growth)."""
    g = hdd_load_growth(m, th)
    return (g.at(at), g.rate or 0.0) if g is not None else None


def rgw_load(m: Measured, th: Thresholds, at: float = 0.0) -> tuple[float, float] | None:
    """(load, growth) per RGW `at` seconds from now (rgw_load_growth)."""
    g = rgw_load_growth(m, th)
    return (g.at(at), g.rate or 0.0) if g is not None else None


def _load(limit: str, load: Growth | None, what: str) -> Runway:
    if load is None:
        return Runway(limit, None, 0.0, None, "no S3 rates yet")
    return judged(limit, 1.0 - load.now, load, f"{load.now:.0%} of the {what} at the day's busiest")


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
        return Runway("scrub", math.inf, min(m.scrub.span, g.span), g.steady, detail, math.inf, math.inf, g.shape)
    return judged("scrub", (1 / u - 1) * g.now, g, detail, span=min(m.scrub.span, g.span))


def shard(m: Measured) -> Runway:
    o = m.shards
    if o is None:
        return Runway("shard", None, 0.0, None, "no bucket data")
    detail = f"{o.over_limit} bucket(s) past the limit" if o.over_limit else f"{o.due} bucket(s) due by the target"
    steady = m.objects_steady if o.span > 0 else None
    return Runway("shard", o.runway, o.span, steady, detail)


def runways(m: Measured, th: Thresholds) -> tuple[Runway, ...]:
    found = (
        fill_cluster(m, th),
        fill_osd(m, th),
        db_levels(m, th),
        _load("load_hdd", hdd_load_growth(m, th), "HDD baseline"),
        _load("load_rgw", rgw_load_growth(m, th), "per-RGW figure"),
        scrub_capacity(m, th),
        shard(m),
    )
    # A limit reached now is reached whatever the growth: its interval is that instant.
    return tuple(replace(r, earliest=0.0, latest=0.0) if r.seconds == 0 else r for r in found)
