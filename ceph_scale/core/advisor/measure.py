"""The live state reduced to the advisor's model (`Measured`), from a snapshot, the growth the
other signals fitted (their states) and the runway's own long trends.

Growth behind each limit: raw use and the S3 load from the runway's trends (days, durable);
each OSD's DB from its share of the DB use of all OSDs together (the runway's trend), or its own
fit where faster (the spillover signal's), or, with neither, in proportion to raw growth
(metadata grows with the data); each bucket from the reshard
signal's reference counts; scrub durations from the scrub signal's history.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ..signals.load.derive import LoadState
from ..signals.scrub.derive import ScrubState
from ..signals.signal_input import SignalInput
from ..signals.spillover.derive import SpilloverState, has_dedicated_db
from ..snapshot import PerfPart, Snapshot
from ..trend import fit, rates
from .model import Growth, Measured, OsdDb, OsdFill, PoolPgs, ScrubMeasure, ShardOutlook

if TYPE_CHECKING:
    from ..signals.runway.derive import RunwayState

S3_COLUMNS = ("put_ops", "get_ops", "put_bytes", "get_bytes")


def growth(now: float, points: list[tuple[float, float]], min_span: float) -> Growth:
    f = fit(points, min_span)
    if f is None:
        return Growth(now)
    return Growth(now, f.slope, f.span, f.steady, f.low, f.high, f.level_error, f.acceleration, f.trend)


def failure_domain(snap: Snapshot, hdd_hosts: Counter[str], setting: int) -> int:
    """OSDs lost at once: the operator's figure, else the largest host's HDD OSDs; a single
    host cannot be survived, so there the failure domain is one OSD."""
    if setting > 0:
        return setting
    return max(hdd_hosts.values()) if len(hdd_hosts) > 1 else (1 if hdd_hosts else 0)


def instant_s3(given: SignalInput) -> tuple[float, ...] | None:
    """The S3 rates of the moment (S3_COLUMNS, summed over the RGWs), from the load signal's
    windows; None where any is unknown."""
    perf = given.snap.perf
    load = given.state(LoadState)
    if perf is None or not perf.rgw_ops or load is None:
        return None
    out = []
    for name in S3_COLUMNS:
        op, unit = name.split("_")
        values = [load.rgw.rate((r.instance_id, op, unit)) for r in perf.rgw_ops]
        if any(v is None for v in values):
            return None
        out.append(sum(v for v in values if v is not None))
    return tuple(out)


def bluefs_used(perf: PerfPart | None) -> int:
    """The BlueFS use of all OSDs together, on their DB devices and spilled."""
    return sum(c.db_used_bytes + c.slow_used_bytes for c in perf.bluefs) if perf is not None else 0


def live_s3(given: SignalInput, own: RunwayState) -> tuple[dict[str, Growth], float, bool | None]:
    """S3 rates at the busiest moment of the last day (busiest.py; else the trend's last interval)
    and their fitted growth."""
    perf, th = given.snap.perf, given.th
    if perf is None or not perf.rgw_ops:
        return {}, 0.0, None
    busiest = own.busiest.rates()
    points = own.s3.points
    out = {}
    for i, name in enumerate(S3_COLUMNS):
        series = rates(points, i)
        level = busiest[i] if busiest is not None else (series[-1][1] if series else None)
        if level is None:
            return {}, 0.0, None
        out[name] = growth(level, series, th.forecast_min_span_seconds)
    put, get = rates(points, 0), rates(points, 1)
    mixed = [(t, p / th.baseline_put_ops_per_hdd + g / th.baseline_get_ops_per_hdd) for (t, p), (_, g) in zip(put, get)]
    f = fit(mixed, th.forecast_min_span_seconds)
    return out, (f.span if f else 0.0), (f.steady if f else None)


def dbs(given: SignalInput, raw: Growth | None, total: Growth | None) -> tuple[OsdDb, ...]:
    """Each OSD's DB use and growth. `total`: the BlueFS use of all OSDs together, fitted over
    the runway's days (steps set aside, with its interval); each DB grows at least at its share
    of it, and at its own slope where that is faster (an OSD's fit over the spillover signal's
    hours has no interval, and one RocksDB compaction in it read as "never" where 2.1 days were
    left). Its interval and shape are the total's."""
    snap = given.snap
    perf = snap.perf
    if perf is None or not perf.bluefs:
        return ()
    spill = given.state(SpilloverState)
    slopes = spill.slopes if spill is not None else {}
    osds = {o.osd_id: o for o in snap.osd_map.osds} if snap.osd_map else {}
    out = []
    for c in sorted(perf.bluefs, key=lambda c: c.osd_id):
        osd = osds.get(c.osd_id)
        if not has_dedicated_db(osd, c.db_total_bytes):
            continue
        used = c.db_used_bytes + c.slow_used_bytes
        slope = slopes.get(c.osd_id)
        if total is not None and total.rate is not None and total.now > 0:
            share = used / total.now
            rate = total.rate * share
            own = max(rate, slope) if slope is not None else rate
            low = (total.low if total.low is not None else total.rate) * share
            high = max(own, (total.high if total.high is not None else total.rate) * share)
            g = Growth(used, own, total.span, total.steady, min(low, own), high, total.level_error * share,
                       total.acceleration, total.shape)  # fmt: skip
        elif slope is not None and spill is not None:
            series = spill.db_used.series.get(c.osd_id)
            g = Growth(used, slope, series.span() if series is not None else 0.0, None)
        elif raw is not None and raw.rate is not None and raw.now > 0:
            g = Growth(used, raw.rate * used / raw.now, raw.span, raw.steady)
        else:
            g = Growth(used)
        data = (osd.data_device_bytes or osd.size_bytes) if osd is not None else 0
        out.append(OsdDb(f"osd.{c.osd_id}", c.db_total_bytes, used, c.slow_used_bytes, data, g))
    return tuple(out)


def pools(snap: Snapshot, pg_counts: dict[int, int]) -> tuple[PoolPgs, ...]:
    if snap.capacity is None or snap.pgs is None:
        return ()
    return tuple(
        PoolPgs(
            p.pool_id,
            p.name,
            pg_counts.get(p.pool_id, 0),
            p.data_chunks + p.coding_chunks,
            p.used_bytes,
            max(1, p.data_chunks),
        )  # fmt: skip
        for p in sorted(snap.capacity.pools, key=lambda p: p.pool_id)
    )


def scrub(given: SignalInput, pool_list: tuple[PoolPgs, ...], osds_up: int) -> ScrubMeasure | None:
    snap, state = given.snap, given.state(ScrubState)
    if state is None or snap.pgs is None or not snap.pgs.pgs:
        return None
    done = state.completed_history
    span = done["scrub"].span()
    if span <= 0:
        return None

    def per_second(kind: str) -> float:
        (t0, c0), (t1, c1) = done[kind].points[0], done[kind].points[-1]
        return (c1 - c0) / (t1 - t0) if t1 > t0 else 0.0

    def mean_scrubbing(kind: str) -> float:
        points = state.scrubbing_history[kind].points
        return sum(v for _, v in points) / len(points) if points else 0.0

    pgs = len(snap.pgs.pgs)
    counted = sum(p.pgs for p in pool_list)
    width = sum(p.pgs * p.width for p in pool_list) / counted if counted else 1.0
    s = snap.settings
    deep_rate = per_second("deep_scrub")
    return ScrubMeasure(
        pgs=pgs,
        pg_width=width,
        osds=osds_up,
        max_scrubs=s.osd_max_scrubs if s is not None else 1,
        scrub_interval=s.scrub_max_interval_seconds if s is not None else 7 * 86400.0,
        deep_interval=s.deep_scrub_interval_seconds if s is not None else 7 * 86400.0,
        scrubbing=mean_scrubbing("scrub"),
        deep_scrubbing=mean_scrubbing("deep_scrub"),
        scrubs_per_second=max(0.0, per_second("scrub") - deep_rate),
        deep_scrubs_per_second=deep_rate,
        span=span,
    )


def measure(given: SignalInput, own: RunwayState, shards: ShardOutlook | None, pg_counts: dict[int, int]) -> Measured:
    snap, th = given.snap, given.th
    osd_list = snap.osd_map.osds if snap.osd_map is not None else ()
    live = [o for o in osd_list if o.up and o.in_cluster]
    hdd = [o for o in live if o.device_class in th.hdd_classes]
    cap = snap.capacity
    raw = growth(cap.used_bytes, own.used.column(), th.forecast_min_span_seconds) if cap is not None else None
    total = cap.total_bytes if cap is not None else 0
    hdd_bytes = sum(o.size_bytes for o in hdd)
    s3, s3_span, s3_steady = live_s3(given, own)
    pool_list = pools(snap, pg_counts)
    objects = fit(own.objects.column(), th.forecast_min_span_seconds)
    db_total = growth(bluefs_used(snap.perf), own.db.column(), th.forecast_min_span_seconds)
    return Measured(
        horizon=float(th.runway_target_seconds),
        hdd_osds=len(hdd),
        hdd_bytes=hdd_bytes / len(hdd) if hdd else 0.0,
        other_raw_bytes=max(0, total - hdd_bytes),
        failure_domain_osds=failure_domain(snap, Counter(o.host for o in hdd), th.plan_failure_domain_osds),
        raw_total_bytes=total,
        raw_used=raw,
        osd_fill=tuple(OsdFill(o.ceph_daemon, o.used_bytes, o.size_bytes) for o in live if o.size_bytes > 0),
        s3=s3,
        s3_span=s3_span,
        s3_steady=s3_steady,
        rgw_instances=len(snap.perf.rgw_ops) if snap.perf is not None else 0,
        dbs=dbs(given, raw, db_total),
        pools=pool_list,
        osds_in=sum(1 for o in osd_list if o.in_cluster),
        target_pg_per_osd=snap.settings.mon_target_pg_per_osd if snap.settings is not None else 100,
        scrub=scrub(given, pool_list, sum(1 for o in osd_list if o.up)),
        shards=shards,
        objects_steady=objects.steady if objects is not None else None,
        buckets_over_advised=sum(
            1
            for b in (snap.buckets.buckets if snap.buckets is not None else ())
            if b.num_objects > th.rgw_bucket_objects_advised
        ),
        objects_span=shards.span if shards is not None else 0.0,
    )
