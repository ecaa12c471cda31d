"""Runway and sizing: when each study limit will be reached, and what to add [004, 000, 001].

The studies exist to size clusters for billions of objects; this signal turns the limits the
others measure (fill 80 %, whole RocksDB levels and the 4 % DB rule, 60/90 ops/s and 34/37 MB/s
per HDD, ~1,000 PUT / 500 GET ops/s per RGW, scrub intervals, 100,000 objects per shard) into
the time left before each is reached and the plan that holds a target date with a failure
domain lost (core/advisor/, docs/runway.md). Its trends are kept across restarts: a runway
looks months ahead and must not start from nothing at every restart or manager failover.
Each runway comes with its 95 % interval and the shape of the history behind it; each plan
figure with what withheld or bounded it. Bounded: a series per limit, per pool and per top-N
bucket.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ...advisor import advise
from ...advisor.measure import S3_COLUMNS, bluefs_used, instant_s3, measure
from ...advisor.model import Advice, Measured, Plan, ShardOutlook
from ...advisor.shards import outlook
from ...advisor.sizing import hdd_baselines
from ...config import Thresholds
from ...families import Family, gauge
from ...snapshot import Snapshot
from ...trend import Trend, rates
from ..reshard.derive import ReshardState
from ..signal_input import SignalInput
from .busiest import Busiest

_T = TypeVar("_T")
# Unchanged S3 counters make a point only this many trend steps after the last one.
IDLE_POINT_STEPS = 8


class RunwayState:
    def __init__(self, th: Thresholds | None = None) -> None:  # windows are applied at each point
        self.used = Trend()  # raw bytes used
        self.objects = Trend()  # objects over all buckets
        self.db = Trend()  # BlueFS use of all OSDs together (DB and spilled): is DB growth steady
        self.s3 = Trend(len(S3_COLUMNS))  # cumulative S3 ops and bytes, summed over RGWs, restarts accounted
        self.s3_last: dict[str, list[float]] = {}  # each RGW's raw counters at the last S3 point
        self.measured: Measured | None = None  # what the last advice was given
        self.advice: Advice | None = None  # the last advice: `ceph scale plan`, `--once --plan`
        self.cache: dict[str, tuple[float, Any]] = {}  # per part time: PG counts, the shard outlook
        self.busiest = Busiest()  # the S3 rates of the busiest moment of the last day: what the plan holds

    def retuned(self, th: Thresholds) -> RunwayState:
        self.cache = {}  # the history stays, the new windows apply from the next point
        return self

    def observe(self, snap: Snapshot, th: Thresholds) -> None:
        window, span = th.runway_window_seconds, th.forecast_min_span_seconds
        if snap.capacity is not None:
            self.used.add(snap.capacity.collected_at, (snap.capacity.used_bytes,), window, span)
        if snap.buckets is not None:
            part = snap.buckets
            if self.objects.due(part.collected_at, window, span):
                self.objects.add(part.collected_at, (sum(b.num_objects for b in part.buckets),), window, span)
        perf = snap.perf
        if perf is not None and perf.bluefs and self.db.due(perf.collected_at, window, span):
            self.db.add(perf.collected_at, (bluefs_used(perf),), window, span)
        if perf is not None and perf.rgw_ops and self.s3.due(perf.collected_at, window, span):
            totals = list(self.s3.points[-1][1:]) if self.s3.points else [0.0] * len(S3_COLUMNS)
            current = {}
            for r in perf.rgw_ops:
                raw = [float(r.put_ops), float(r.get_ops), float(r.put_bytes), float(r.get_bytes)]
                before = self.s3_last.get(r.instance_id)
                if before is not None:  # a counter that went back is a restarted RGW: it counts from 0
                    totals = [t + (v - b if v >= b else v) for t, v, b in zip(totals, raw, before)]
                current[r.instance_id] = raw
            if not self._repeated(current, perf.collected_at) and self.s3.add(perf.collected_at, totals, window, span):
                self.s3_last = current

    def _repeated(self, counters: dict[str, list[float]], t: float) -> bool:
        """The same counters as the last point, not yet IDLE_POINT_STEPS steps later: polled again
        before they were refreshed upstream (the mgr prometheus module holds them for its scrape
        interval), a point would add an interval of no ops and one of twice the ops, the noise
        that hid a ramp of 3 to 30 PUT/s from the fit. An idle RGW still gets a point now and then."""
        if not self.s3.points or counters != self.s3_last:
            return False
        return t - self.s3.points[-1][0] < IDLE_POINT_STEPS * max(self.s3.step, 1.0)

    def cached(self, key: str, at: float, make: Callable[[], _T]) -> _T:
        """`make()`'s value, made once per `at` (a part's collection time) and `key`."""
        hit = self.cache.get(key)
        if hit is None or hit[0] != at:
            hit = self.cache[key] = (at, make())
        return cast(_T, hit[1])  # what `make` made for this key: the cache holds one type per key

    def to_dict(self) -> dict[str, Any]:
        return {"used": self.used.to_dict(), "objects": self.objects.to_dict(), "db": self.db.to_dict(),
                "s3": self.s3.to_dict(), "s3_last": self.s3_last, "busiest": self.busiest.to_list()}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any], problems: list[str] | None = None) -> RunwayState:
        """Malformed history is dropped, trend by trend; it never costs the rest of the state."""
        state = cls()
        data = data if isinstance(data, dict) else {}
        state.used = Trend.from_dict(data.get("used"), 1, problems, "runway used")
        state.objects = Trend.from_dict(data.get("objects"), 1, problems, "runway objects")
        state.db = Trend.from_dict(data.get("db"), 1, problems, "runway db")
        state.s3 = Trend.from_dict(data.get("s3"), len(S3_COLUMNS), problems, "runway s3")
        state.busiest = Busiest.from_list(data.get("busiest"), len(S3_COLUMNS))
        last = data.get("s3_last")
        if isinstance(last, dict) and state.s3.points:
            try:
                state.s3_last = {str(k): [float(x) for x in v][: len(S3_COLUMNS)] for k, v in last.items()}
            except (TypeError, ValueError, OverflowError):
                state.s3_last = {}
            if any(len(v) != len(S3_COLUMNS) for v in state.s3_last.values()):
                state.s3_last = {}
        return state


def shard_outlook(given: SignalInput, state: RunwayState) -> ShardOutlook | None:
    part, th = given.snap.buckets, given.th
    reshard = given.state(ReshardState)
    if part is None or reshard is None:
        return None
    span = reshard.rates_span if reshard.rates_span >= th.forecast_min_span_seconds else 0.0

    def make() -> ShardOutlook:
        return outlook(
            part.buckets,
            reshard.rates,
            given.shard_limit,
            th.runway_target_seconds,
            th.rgw_preshard_fill_ratio,
            th.plan_top_buckets,
            span,
            th.plan_rgw_max_dynamic_shards,
        )

    return state.cached(f"shards:{given.shard_limit}:{span > 0}", part.collected_at, make)


def last_interval(points: list[tuple[float, ...]]) -> tuple[tuple[float, ...] | None, float | None]:
    """The S3 rates over the trend's last interval (trend.rates, as live_s3 reads it), and its
    end; None, None before two points."""
    last = [rates(points[-2:], i) for i in range(len(S3_COLUMNS))]
    if not all(last):
        return None, None
    return tuple(r[0][1] for r in last), points[-1][0]


def derive(given: SignalInput, state: RunwayState) -> list[Family]:
    snap = given.snap
    state.observe(snap, given.th)
    now, at = instant_s3(given), snap.perf.collected_at if snap.perf is not None else None
    if now is None:
        # One derivation (`--once` from cron) has no rate of the moment: the load since the run
        # before, the runway trend's last interval.
        now, at = last_interval(state.s3.points)
    if now is not None and at is not None:
        state.busiest.add(at, now, hdd_baselines(dict(zip(S3_COLUMNS, now)), given.th))
    state.busiest.expire(snap.taken_at)
    pgs = snap.pgs
    pg_counts = state.cached("pgs", pgs.collected_at, lambda: Counter(p.pool_id for p in pgs.pgs)) if pgs else {}
    state.measured = measure(given, state, shard_outlook(given, state), pg_counts)
    advice = state.advice = advise(state.measured, given.th)
    return families(advice)


def families(advice: Advice) -> list[Family]:
    seconds = gauge(
        "runway_seconds",
        "Seconds until the study limit is reached at its fitted growth; 0: reached; "
        "+Inf: no growth within the interval.",
        "limit",
    )
    lower = gauge(
        "runway_lower_seconds",
        "Earliest end of the runway's 95 % interval: the fastest growth the fit allows; absent while reached.",
        "limit",
    )
    upper = gauge(
        "runway_upper_seconds",
        "Latest end of the runway's 95 % interval: the slowest growth the fit allows; +Inf: no growth is within it.",
        "limit",
    )
    span = gauge(
        "runway_fit_span_seconds",
        "History the growth behind the runway was fitted over; absent for a limit reached now (no fit needed).",
        "limit",
    )
    steady = gauge("runway_growth_steady", "1 if the older and the newer third of that history grow alike.", "limit")
    shape = gauge(
        "runway_growth_shape",
        "1 for the shape of the history behind the runway: steady, noise, step, falling, sawtooth, accelerating, "
        "slowing, changed.",
        "limit",
        "shape",
    )
    for r in advice.runways:
        if r.seconds is not None:
            seconds.add(r.seconds, r.limit)
            if r.span:
                span.add(r.span, r.limit)
        # A limit reached now has both ends at 0: two more series per limit that would say nothing.
        if r.earliest is not None and r.latest is not None and r.seconds != 0:
            lower.add(r.earliest, r.limit)
            upper.add(r.latest, r.limit)
        if r.steady is not None:
            steady.add(1 if r.steady else 0, r.limit)
        if r.shape:
            shape.add(1, r.limit, r.shape)
    return [seconds, lower, upper, span, steady, shape] + plan_families(advice.plan)


def plan_families(p: Plan) -> list[Family]:
    """The plan's figures, each bounded; `plan_caveat` says which are withheld (a short or
    unsteady fit behind them: the text and JSON plans print none, the boards' headline figures say
    "withheld") and which were held to a physical or Ceph limit. A withheld figure is still
    exported, bounded, so that its graph and table keep their history; but the DB by levels, drawn
    beside the 4 % rule that always stands, is left out while withheld."""
    caveat = gauge(
        "plan_caveat",
        "1 for each plan figure withheld (the growth behind it too short or not steady) or bounded (held to a "
        "physical or Ceph limit).",
        "figure",
        "caveat",
    )
    for kind, figures in (("withheld", p.withheld), ("bounded", p.bounded)):
        for figure in sorted(figures):
            caveat.add(1, figure, kind)
    hdd = gauge("plan_hdd_osds", "HDD OSDs needed at the target date, a failure domain lost.", "by")
    for by, n in (("fill", p.hdd_by_fill), ("ops", p.hdd_by_ops)):
        if n is not None:
            hdd.add(n, by)
    out = [caveat, hdd]
    out.append(gauge("plan_failure_domain_osds", "OSDs the plan survives losing at once.").add(p.failure_domain_osds))
    db = gauge("plan_db_bytes_per_osd", "DB device per OSD the plan asks for.", "rule")
    short = gauge("plan_db_osds_short", "OSDs whose DB device is smaller than the plan's.", "rule")
    rules = (("levels", p.db_per_osd_levels, p.db_short_levels), ("share", p.db_per_osd_share, p.db_short_share))
    for rule, size, n in rules:
        # The DB by levels is drawn beside the 4 % rule, which always stands: withheld, it is left out.
        if size is not None and not (rule == "levels" and "db_per_osd" in p.withheld):
            db.add(size, rule)
            short.add(n, rule)
    out += [db, short]
    if p.db_per_osd_levels is not None:
        out.append(
            gauge("plan_db_osds_spilling", "OSDs spilling now or predicted to by the target date.").add(
                p.db_spilling_by_target
            )
        )
    if p.level_base is not None:
        out.append(
            gauge(
                "plan_rocksdb_level_base_bytes", "max_bytes_for_level_base making whole levels fill the planned DB."
            ).add(p.level_base)
        )
    if p.rgw_needed is not None:
        out.append(gauge("plan_rgw_instances", "RGW instances needed at the target date.").add(p.rgw_needed))
    pools = gauge("plan_pool_pgs", "PGs of the pools that need more for the planned OSDs.", "pool_id", "name")
    for pool in p.pools:
        if pool.planned_pgs > pool.pgs:
            pools.add(pool.planned_pgs, str(pool.pool_id), pool.name)
    out.append(pools)
    if p.buckets_due is not None:
        out.append(
            gauge("plan_buckets_to_preshard", "Buckets reaching their per-shard limit by the target date.").add(
                p.buckets_due
            )
        )
        shards = gauge(
            "plan_bucket_shards",
            "Shards to pre-shard the soonest of them to (top plan_top_buckets), at most rgw_max_dynamic_shards: for "
            "their objects at the target date, or today's (the RGW board's) while that growth is withheld.",
            "bucket",
            "tenant",
        )
        for b in p.buckets_top:
            shards.add(b.recommended_now if "bucket_shards" in p.withheld else b.recommended_shards, b.name, b.tenant)
        out.append(shards)
    return out
