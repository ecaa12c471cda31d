"""The module's own health checks: study conditions Ceph itself does not flag.

Pure functions over the derived families: the thresholds in force are read from
`ceph_scale_config`, so a changed threshold moves the checks exactly as it moves the
metrics and the alert rules. Each check lists its offenders worst first, one detail
line each, capped at `health_detail_max` with a closing "... and N more".
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .options import MODULE_DEFAULTS
from .view import View, duration, number, pct, size

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


def fill_offenders(v: View, opts: CheckOptions) -> list[tuple[tuple[float, float], str, float]]:
    """(sort key, line, used ratio) for the cluster, each pool and each OSD near or past the target."""
    target = v.config("fill_target_ratio", 0.8)
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

    used = v.value("cluster_used_ratio")
    if used is not None:
        judge("the cluster", used, v.value("cluster_fill_seconds_to_threshold", threshold="target"))
    etas = {(lb["pool_id"]): val for lb, val in v.samples("pool_fill_seconds_to_target")}
    for labels, ratio in v.samples("pool_used_ratio"):
        judge(f"pool {labels.get('name', labels['pool_id'])}", ratio, etas.get(labels["pool_id"]))
    for labels, ratio in v.samples("osd_used_ratio"):
        judge(labels["ceph_daemon"], ratio, None)
    out.sort(key=lambda o: o[0])
    return out


def check_fill(v: View, opts: CheckOptions) -> dict | None:
    offenders = fill_offenders(v, opts)
    if not offenders:
        return None
    target = v.config("fill_target_ratio", 0.8)
    critical = v.config("fill_critical_ratio", 0.9)
    severity = "error" if any(used >= critical for _, _, used in offenders) else "warning"
    summary = (
        f"{len(offenders)} of cluster/pools/OSDs within {opts.fill_headroom_warn_margin * 100:g} points of the "
        f"{pct(target)} fill target or reaching it within {opts.fill_forecast_warn_days:g} days"
    )
    return _check(severity, summary, len(offenders), [line for _, line, _ in offenders], opts.health_detail_max)


# --- SCALE_RESHARD_SOON ------------------------------------------------------------


def check_reshard(v: View, opts: CheckOptions) -> dict | None:
    """Buckets near the per-shard limit, and buckets predicted to reach it within the horizon.

    Both kinds reshard soon; the prediction (from each bucket's own object growth) also
    finds a fast-filling bucket while it is still far from the limit."""
    near = v.value("rgw_buckets_near_reshard") or 0
    horizon = opts.reshard_forecast_warn_days * DAY
    eta = {
        (lb["tenant"], lb["bucket"]): val
        for lb, val in v.samples("rgw_bucket_reshard_seconds")
        if opts.forecasts and val <= horizon
    }
    if not near and not eta:
        return None
    warn = v.config("rgw_shard_warn_ratio", 0.8)
    limit = v.config("rgw_max_objs_per_shard", 100000)
    fills = {(lb["tenant"], lb["bucket"]): val for lb, val in v.samples("rgw_top_bucket_shard_fill_ratio")}
    objects = {(lb["tenant"], lb["bucket"]): val for lb, val in v.samples("rgw_top_bucket_objects")}
    shards = {(lb["tenant"], lb["bucket"]): val for lb, val in v.samples("rgw_top_bucket_shards")}
    recommended = {(lb["tenant"], lb["bucket"]): val for lb, val in v.samples("rgw_top_bucket_recommended_shards")}
    rows = []
    for key in set(eta) | {k for k, fill in fills.items() if fill >= warn}:
        name = f"{key[0]}/{key[1]}" if key[0] else key[1]
        parts = []
        if key in fills:
            parts.append(
                f"{number(objects.get(key, 0))} objects in {number(shards.get(key, 0))} shard(s), "
                f"{pct(fills[key])} of rgw_max_objs_per_shard ({number(limit)})"
            )
        at_limit = fills.get(key, 0.0) >= 1.0
        if at_limit:
            parts.append("at the limit now")
        elif key in eta:
            parts.append(f"reaches the limit in {duration(eta[key])}")
        line = f"bucket {name}: " + "; ".join(parts)
        if key in recommended and recommended[key] > shards.get(key, 0):
            line += f"; pre-shard to {number(recommended[key])} shards"
        # At the limit first (the exporter predicts only the buckets below it), then soonest;
        # without a prediction, fullest first.
        rows.append((0.0 if at_limit else eta.get(key, math.inf), -fills.get(key, 0.0), name, line))
    rows.sort()
    lines = [r[3] for r in rows]
    listed_near = sum(1 for k, fill in fills.items() if fill >= warn)
    if near > listed_near:  # buckets past the top-K list
        lines.append(f"{number(near - listed_near)} more bucket(s) near the limit outside the top {len(fills)} exposed")
    count = int(max(near, 0)) + sum(1 for k in eta if fills.get(k, 0.0) < warn)
    over = v.value("rgw_buckets_over_shard_limit") or 0
    summary = (
        f"{number(count)} bucket(s) at or above {pct(warn)} of the per-shard object limit or predicted to reach it "
        f"within {opts.reshard_forecast_warn_days:g} days"
    )
    if over:
        summary += f" ({number(over)} at the limit: dynamic resharding will stall writes to them)"
    return _check("warning", summary, count, lines, opts.health_detail_max)


# --- SCALE_LOAD_ABOVE_BASELINE ------------------------------------------------------


def check_load(v: View, opts: CheckOptions) -> dict | None:
    limit = opts.load_warn_ratio
    ratios = {(lb["op"], lb["unit"]): val for lb, val in v.samples("s3_load_ratio")}
    per_hdd = v.by_label("s3_ops_per_hdd_osd", "op")
    put_base = v.config("baseline_put_ops_per_hdd", 60.0)
    get_base = v.config("baseline_get_ops_per_hdd", 90.0)
    lines = []
    mixed = ratios.get(("mixed", "ops"))
    if mixed is not None and mixed > limit:
        lines.append(
            (
                -mixed,
                f"S3 ops per HDD OSD are {mixed:.2f} x the study's baseline: {per_hdd.get('put', 0):.1f} PUT/s + "
                f"{per_hdd.get('get', 0):.1f} GET/s against {put_base:g} PUT/s or {get_base:g} GET/s (64 KB objects)",
            )
        )
    for op, base_name in (("put", "baseline_put_bytes_per_hdd"), ("get", "baseline_get_bytes_per_hdd")):
        r = ratios.get((op, "bytes"))
        if r is not None and r > limit:
            base = v.config(base_name, 0.0) or 0.0
            lines.append((-r, f"S3 {op.upper()} bytes per HDD OSD are {r:.2f} x the baseline of {base / 1e6:g} MB/s"))
    if not lines:
        return None
    lines.sort()
    hot_limit = v.config("osd_hotspot_ratio", 2.0)
    hot = sorted(
        ((r, d) for d, r in v.by_label("osd_hotspot_ratio", "ceph_daemon").items() if r > hot_limit), reverse=True
    )
    text = [line for _, line in lines] + [f"{d} takes {r:.1f} x the mean op rate of the up OSDs" for r, d in hot]
    worst = -lines[0][0]
    summary = f"S3 load per HDD OSD is {worst:.2f} x the measured baseline (warn above {limit:g})"
    return _check("warning", summary, len(text), text, opts.health_detail_max)


# --- SCALE_SCRUB_BACKLOG -----------------------------------------------------------


def check_scrub(v: View, opts: CheckOptions) -> dict | None:
    horizon = opts.scrub_backlog_warn_days * DAY
    total = v.value("pgs") or 0
    overdue = v.by_label("pg_scrub_overdue", "kind")
    clear = v.by_label("pg_scrub_backlog_clear_seconds", "kind")
    window = v.config("scrub_rate_window_seconds", 3600.0)
    rows = []
    for kind in ("deep_scrub", "scrub"):
        n = overdue.get(kind, 0)
        seconds = clear.get(kind)
        if not n or seconds is None or seconds <= horizon:
            continue
        share = n / total if total else 0.0
        label = "deep scrub" if kind == "deep_scrub" else "scrub"
        if math.isinf(seconds):
            tail = f"no {label} completed over the last {duration(window)}, so the backlog does not clear"
        else:
            tail = f"the backlog clears in {duration(seconds)} at the current {label} rate"
        rows.append((-seconds, -n, f"{label}: {number(n)} of {number(total)} PGs overdue ({pct(share)}); {tail}"))
    if not rows:
        return None
    rows.sort()
    count = int(sum(overdue.get(k, 0) for k in ("scrub", "deep_scrub")))
    summary = f"scrub backlog does not clear within {opts.scrub_backlog_warn_days:g} days"
    return _check("warning", summary, count, [r[2] for r in rows], opts.health_detail_max)


# --- SCALE_DB_SHARE_LOW / SCALE_BLUEFS_SPILL_SOON -----------------------------------


def check_db_share(v: View, opts: CheckOptions) -> dict | None:
    below = v.value("bluefs_db_share_below_min_osds")
    if not below:
        return None
    minimum = v.config("bluefs_db_share_min_ratio", 0.04)
    rows = sorted(
        (ratio, daemon)
        for daemon, ratio in v.by_label("bluefs_db_share_ratio", "ceph_daemon").items()
        if ratio < minimum
    )
    lines = [f"{d}: DB device is {pct(r)} of the data device (study: at least {pct(minimum)})" for r, d in rows]
    summary = f"{number(below)} OSD(s) with a DB device below {pct(minimum)} of the data device"
    return _check("warning", summary, int(below), lines, opts.health_detail_max)


def check_spill_soon(v: View, opts: CheckOptions) -> dict | None:
    if not opts.forecasts:
        return None
    horizon = opts.bluefs_spill_warn_days * DAY
    usable = v.by_label("bluefs_db_usable_bytes", "ceph_daemon")
    rows = sorted(
        (eta, daemon)
        for daemon, eta in v.by_label("bluefs_db_next_level_seconds", "ceph_daemon").items()
        if 0 < eta <= horizon
    )
    if not rows:
        return None
    lines = [
        f"{d}: DB use passes the usable {size(usable.get(d, 0))} (RocksDB levels that fit whole) in {duration(e)}"
        for e, d in rows
    ]
    days = opts.bluefs_spill_warn_days
    summary = f"{len(rows)} OSD(s) predicted to spill RocksDB onto the slow device within {days:g} days"
    return _check("warning", summary, len(rows), lines, opts.health_detail_max)


CHECKS = (
    ("SCALE_FILL_HEADROOM", check_fill),
    ("SCALE_RESHARD_SOON", check_reshard),
    ("SCALE_LOAD_ABOVE_BASELINE", check_load),
    ("SCALE_SCRUB_BACKLOG", check_scrub),
    ("SCALE_DB_SHARE_LOW", check_db_share),
    ("SCALE_BLUEFS_SPILL_SOON", check_spill_soon),
)


def health_checks(families: Iterable[Any], opts: CheckOptions | None = None) -> dict[str, dict]:
    """code -> {severity, summary, count, detail} for set_health_checks."""
    opts = opts or CheckOptions()
    v = View(families)
    out = {}
    for code, fn in CHECKS:
        result = fn(v, opts)
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
