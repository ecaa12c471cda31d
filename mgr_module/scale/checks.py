"""The module's own health checks: study conditions Ceph itself does not flag.

Pure functions over the signals' judgements (core/signals/results.py) and the thresholds in
force (core/config.py), the same the derivation used, so a changed threshold moves the checks
exactly as it moves the metrics and the alert rules. Each check lists its offenders worst
first, one detail line each, capped at `health_detail_max` with a closing "... and N more".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.results import SignalResults

from .options import MODULE_DEFAULTS
from .view import duration, number, pct, size

DAY = 86400.0


def _module_default(name: str) -> Any:
    return MODULE_DEFAULTS[name]


@dataclass(frozen=True)
class CheckOptions:
    """The module options the checks read, under their option names, with their defaults
    (mgr_module/scale/options.py declares both once)."""

    fill_headroom_warn_margin: float = _module_default("fill_headroom_warn_margin")
    fill_forecast_warn_days: float = _module_default("fill_forecast_warn_days")
    load_warn_ratio: float = _module_default("load_warn_ratio")
    scrub_backlog_warn_days: float = _module_default("scrub_backlog_warn_days")
    bluefs_spill_warn_days: float = _module_default("bluefs_spill_warn_days")
    reshard_forecast_warn_days: float = _module_default("reshard_forecast_warn_days")
    health_detail_max: int = _module_default("health_detail_max")
    # Forecasts (time to the fill target, to the next RocksDB level) come from the producer's
    # own fitted history; they are trusted once that history is long enough.
    history_seconds: float = math.inf
    forecast_min_history_seconds: float = 3600.0

    @property
    def forecasts(self) -> bool:
        return self.history_seconds >= self.forecast_min_history_seconds

    @classmethod
    def from_settings(cls, s: Any, history_seconds: float = math.inf) -> CheckOptions:
        options = {f.name: getattr(s, f.name) for f in dataclasses.fields(cls) if f.name in MODULE_DEFAULTS}
        return cls(history_seconds=history_seconds, **options)


def _detail(lines: list[str], limit: int) -> list[str]:
    if len(lines) <= limit:
        return lines
    return lines[:limit] + [f"... and {len(lines) - limit} more"]


def _check(severity: str, summary: str, count: int, lines: list[str], limit: int) -> dict:
    return {"severity": severity, "summary": summary, "count": int(count), "detail": _detail(lines, limit)}


# --- SCALE_FILL_HEADROOM -----------------------------------------------------------


def fill_offenders(
    r: SignalResults, th: Thresholds, opts: CheckOptions
) -> list[tuple[tuple[float, float], str, float]]:
    """(sort key, line, used ratio) for the cluster, each pool and each OSD near or past the target."""
    target = th.fill_target_ratio
    margin = opts.fill_headroom_warn_margin
    horizon = opts.fill_forecast_warn_days * DAY
    out: list[tuple[tuple[float, float], str, float]] = []

    def judge(what: str, used: float, eta: float | None) -> None:
        headroom = target - used
        soon = opts.forecasts and eta is not None and 0 < eta <= horizon
        if headroom > margin and not soon:
            return
        if headroom <= 0:
            text = f"{what} is {pct(used)} full: {pct(-headroom)} past the {pct(target)} target"
        else:
            text = f"{what} is {pct(used)} full: {pct(headroom)} below the {pct(target)} target"
        if soon and eta is not None:
            text += f", reaching it in {duration(eta)} at the current fill rate"
        out.append(((headroom, eta if eta is not None else math.inf), text, used))

    fill = r.fill
    if fill is None:
        return out
    if fill.cluster is not None:
        judge("the cluster", fill.cluster.used_ratio, fill.cluster.seconds_to_target)
    for pool in fill.pools:
        judge(f"pool {pool.name}", pool.used_ratio, pool.seconds_to_target)
    for osd in fill.osds:
        judge(osd.ceph_daemon, osd.used_ratio, None)
    out.sort(key=lambda o: o[0])
    return out


def check_fill(r: SignalResults, th: Thresholds, opts: CheckOptions) -> dict | None:
    offenders = fill_offenders(r, th, opts)
    if not offenders:
        return None
    severity = "error" if any(used >= th.fill_critical_ratio for _, _, used in offenders) else "warning"
    summary = (
        f"{len(offenders)} of cluster/pools/OSDs within {opts.fill_headroom_warn_margin * 100:g} points of the "
        f"{pct(th.fill_target_ratio)} fill target or reaching it within {opts.fill_forecast_warn_days:g} days"
    )
    return _check(severity, summary, len(offenders), [line for _, line, _ in offenders], opts.health_detail_max)


# --- SCALE_RESHARD_SOON ------------------------------------------------------------


def check_reshard(r: SignalResults, th: Thresholds, opts: CheckOptions) -> dict | None:
    """Buckets near the per-shard limit, and buckets predicted to reach it within the horizon.

    Both kinds reshard soon; the prediction (from each bucket's own object growth) also
    finds a fast-filling bucket while it is still far from the limit."""
    reshard = r.reshard
    buckets = reshard.buckets if reshard is not None else None
    if reshard is None or buckets is None:
        return None
    near = buckets.near
    horizon = opts.reshard_forecast_warn_days * DAY
    eta = {(b.tenant, b.bucket): b.seconds for b in buckets.next_reshards if opts.forecasts and b.seconds <= horizon}
    if not near and not eta:
        return None
    warn = th.rgw_shard_warn_ratio
    top = {(b.tenant, b.bucket): b for b in buckets.top}
    fills = {key: b.shard_fill_ratio for key, b in top.items()}
    rows = []
    for key in set(eta) | {k for k, fill in fills.items() if fill >= warn}:
        name = f"{key[0]}/{key[1]}" if key[0] else key[1]
        parts = []
        bucket = top.get(key)
        if bucket is not None:
            parts.append(
                f"{number(bucket.objects)} objects in {number(bucket.shards)} shard(s), "
                f"{pct(bucket.shard_fill_ratio)} of rgw_max_objs_per_shard ({number(reshard.shard_limit)})"
            )
        at_limit = fills.get(key, 0.0) >= 1.0
        if at_limit:
            parts.append("at the limit now")
        elif key in eta:
            parts.append(f"reaches the limit in {duration(eta[key])}")
        line = f"bucket {name}: " + "; ".join(parts)
        if bucket is not None and bucket.recommended_shards > bucket.shards:
            line += f"; pre-shard to {number(bucket.recommended_shards)} shards"
        # At the limit first (the exporter predicts only the buckets below it), then soonest;
        # without a prediction, fullest first.
        rows.append((0.0 if at_limit else eta.get(key, math.inf), -fills.get(key, 0.0), name, line))
    rows.sort()
    lines = [row[3] for row in rows]
    listed_near = sum(1 for k, fill in fills.items() if fill >= warn)
    if near > listed_near:  # buckets past the top-K list
        lines.append(f"{number(near - listed_near)} more bucket(s) near the limit outside the top {len(fills)} exposed")
    count = max(near, 0) + sum(1 for k in eta if fills.get(k, 0.0) < warn)
    summary = (
        f"{number(count)} bucket(s) at or above {pct(warn)} of the per-shard object limit or predicted to reach it "
        f"within {opts.reshard_forecast_warn_days:g} days"
    )
    if buckets.over:
        summary += f" ({number(buckets.over)} at the limit: dynamic resharding will stall writes to them)"
    return _check("warning", summary, count, lines, opts.health_detail_max)


# --- SCALE_LOAD_ABOVE_BASELINE ------------------------------------------------------


def check_load(r: SignalResults, th: Thresholds, opts: CheckOptions) -> dict | None:
    load = r.load
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
    hot = sorted(((h.ratio, h.ceph_daemon) for h in load.hotspots if h.ratio > th.osd_hotspot_ratio), reverse=True)
    text = [line for _, line in lines] + [
        f"{d} takes {ratio:.1f} x the mean op rate of the up OSDs" for ratio, d in hot
    ]
    worst = -lines[0][0]
    summary = f"S3 load per HDD OSD is {worst:.2f} x the measured baseline (warn above {limit:g})"
    return _check("warning", summary, len(text), text, opts.health_detail_max)


# --- SCALE_SCRUB_BACKLOG -----------------------------------------------------------


def check_scrub(r: SignalResults, th: Thresholds, opts: CheckOptions) -> dict | None:
    scrub = r.scrub
    if scrub is None:
        return None
    horizon = opts.scrub_backlog_warn_days * DAY
    total = scrub.pgs
    rows = []
    for kind, backlog in (("deep_scrub", scrub.deep_scrub), ("scrub", scrub.scrub)):
        n, seconds = backlog.overdue, backlog.clear_seconds
        if not n or seconds is None or seconds <= horizon:
            continue
        share = n / total if total else 0.0
        label = "deep scrub" if kind == "deep_scrub" else "scrub"
        if math.isinf(seconds):
            tail = (
                f"no {label} completed over the last {duration(th.scrub_rate_window_seconds)}, "
                "so the backlog does not clear"
            )
        else:
            tail = f"the backlog clears in {duration(seconds)} at the current {label} rate"
        rows.append((-seconds, -n, f"{label}: {number(n)} of {number(total)} PGs overdue ({pct(share)}); {tail}"))
    if not rows:
        return None
    rows.sort()
    count = scrub.scrub.overdue + scrub.deep_scrub.overdue
    summary = f"scrub backlog does not clear within {opts.scrub_backlog_warn_days:g} days"
    return _check("warning", summary, count, [row[2] for row in rows], opts.health_detail_max)


# --- SCALE_DB_SHARE_LOW / SCALE_BLUEFS_SPILL_SOON -----------------------------------


def check_db_share(r: SignalResults, th: Thresholds, opts: CheckOptions) -> dict | None:
    spill = r.spillover
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
    return _check("warning", summary, below, lines, opts.health_detail_max)


def check_spill_soon(r: SignalResults, th: Thresholds, opts: CheckOptions) -> dict | None:
    spill = r.spillover
    if spill is None or not opts.forecasts:
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
    return _check("warning", summary, len(rows), lines, opts.health_detail_max)


Check = Callable[[SignalResults, Thresholds, CheckOptions], "dict | None"]
CHECKS: tuple[tuple[str, Check], ...] = (
    ("SCALE_FILL_HEADROOM", check_fill),
    ("SCALE_RESHARD_SOON", check_reshard),
    ("SCALE_LOAD_ABOVE_BASELINE", check_load),
    ("SCALE_SCRUB_BACKLOG", check_scrub),
    ("SCALE_DB_SHARE_LOW", check_db_share),
    ("SCALE_BLUEFS_SPILL_SOON", check_spill_soon),
)


def health_checks(results: SignalResults, th: Thresholds, opts: CheckOptions | None = None) -> dict[str, dict]:
    """code -> {severity, summary, count, detail} for set_health_checks, from the signals'
    judgements of the last derivation and the thresholds it ran with."""
    opts = opts or CheckOptions()
    out = {}
    for code, check in CHECKS:
        result = check(results, th, opts)
        if result is not None:
            out[code] = result
    return out


def signal_failed_check(errors: dict[str, str]) -> dict:
    """The signals whose derivation raises: the others are served (core/derive.py)."""
    return {
        "severity": "warning",
        "summary": f"mgr/scale: {len(errors)} signal(s) cannot be derived; the others are served",
        "count": len(errors),
        "detail": [f"{name}: {error}" for name, error in sorted(errors.items())],
    }


def bad_config_check(errors: list[str]) -> dict:
    return {
        "severity": "warning",
        "summary": "mgr/scale: configuration rejected; the previous values stay in force",
        "count": len(errors),
        "detail": list(errors),
    }
