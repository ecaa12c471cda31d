"""The advice for people and machines: `ceph scale plan [--format json]` and the sidecar's
`--once --plan` print the same document."""

from __future__ import annotations

import json
import math
from typing import Any

from ..snapshot import bucket_key
from .bounds import too_short
from .model import Advice, Plan, Runway

DAY = 86400.0


def _finite(v: float | None) -> float | str | None:
    if v is None or math.isfinite(v):
        return v
    return "+Inf" if v > 0 else "-Inf"


# What each growth shape (trend.Fit.trend) means for the runway beside it.
SHAPES = {
    "noise": "no growth beyond noise",
    "step": "a one-off step set aside",
    "falling": "a fall under way set aside (deletes, or a load falling), never within the interval",
    "sawtooth": "repeated drops: the net growth of the peaks",
    "accelerating": "accelerating: the recent slope, compounding",
    "slowing": "slowing: the recent slope",
    "changed": "changed lately: the slope since, the one before within the interval",
}


def _runway(r: Runway) -> dict[str, Any]:
    return {
        "limit": r.limit,
        "seconds": _finite(r.seconds),
        "days": _finite(r.seconds / DAY) if r.seconds is not None else None,
        "earliest_seconds": _finite(r.earliest),
        "latest_seconds": _finite(r.latest),
        "fit_span_seconds": r.span,
        "steady": r.steady,
        "shape": r.shape or None,
        "detail": r.detail,
    }


def _shown(value: Any, figure: str, p: Plan) -> Any:
    """A headline figure, or None where it is withheld."""
    return None if figure in p.withheld else value


def as_dict(advice: Advice, cluster: str = "") -> dict[str, Any]:
    p = advice.plan
    to_add = p.rgw_needed - p.rgw_instances if p.rgw_needed is not None else None
    return {
        "cluster": cluster,
        "target_seconds": p.horizon,
        "target_days": p.horizon / DAY,
        "now": advice.now,
        "runways": [_runway(r) for r in advice.runways],
        "plan": {
            "failure_domain_osds": p.failure_domain_osds,
            "degraded_drop": {"put": p.degraded_drop_put, "get": p.degraded_drop_get},
            "withheld": dict(p.withheld),
            "bounded": {figure: p.bound_shown(figure) for figure in p.bounded if p.bound_shown(figure)},
            "hdd_osds": {
                "now": p.hdd_osds,
                "by_fill": _shown(p.hdd_by_fill, "hdd_by_fill", p),
                "by_ops": _shown(p.hdd_by_ops, "hdd_by_ops", p),
                "to_add": None if p.hdd_withheld else p.hdd_to_add,
                "binding": None if p.hdd_withheld else p.hdd_binding,
            },  # fmt: skip
            "db_per_osd": {
                "levels_bytes": _shown(p.db_per_osd_levels, "db_per_osd", p),
                "share_bytes": p.db_per_osd_share,
                "osds_short_levels": p.db_short_levels,
                "osds_short_share": p.db_short_share,
                "osds_spilling_by_target": p.db_spilling_by_target,
                "level_base_bytes": p.level_base,
            },
            "rgw_instances": {
                "now": p.rgw_instances,
                "needed": _shown(p.rgw_needed, "rgw_instances", p),
                "to_add": _shown(max(0, to_add) if to_add is not None else None, "rgw_instances", p),
            },  # fmt: skip
            "pools": [
                {
                    "pool_id": x.pool_id,
                    "name": x.name,
                    "pgs": x.pgs,
                    "planned_pgs": _shown(x.planned_pgs, "pool_pgs", p),
                }
                for x in p.pools
            ],
            "buckets_to_preshard": {
                "count": p.buckets_due,
                "over_advised_objects": p.buckets_over_advised,
                "top": [
                    {
                        "bucket": b.name,
                        "tenant": b.tenant,
                        "seconds": b.seconds,
                        "objects_at_target": b.objects_at_target,
                        "shards": b.shards,
                        "recommended_shards": _shown(b.recommended_shards, "bucket_shards", p),
                        "recommended_shards_now": b.recommended_now,
                    }  # fmt: skip
                    for b in p.buckets_top
                ],
            },
            "notes": list(p.notes),
        },
    }


def _strict(obj: Any) -> Any:
    """JSON without NaN or Infinity, which strict parsers refuse: as strings."""
    if isinstance(obj, float):
        return _finite(obj) if obj == obj else "NaN"
    if isinstance(obj, dict):
        return {k: _strict(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_strict(v) for v in obj]
    return obj


def as_json(advice: Advice, cluster: str = "", pretty: bool = False) -> str:
    return json.dumps(_strict(as_dict(advice, cluster)), indent=2 if pretty else None, sort_keys=True, allow_nan=False)


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "no fit yet"
    if math.isinf(seconds):
        return "never (not growing)"
    if seconds <= 0:
        return "reached now"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * DAY:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / DAY:,.1f} days"


def gb(n: float | None) -> str:
    return "n/a" if n is None else f"{n / 1e9:,.1f} GB"


def runway_line(r: Runway, horizon: float, max_extrapolation: float) -> str:
    flag = " <" if r.seconds is not None and r.seconds < horizon else ""
    fitted = f", fitted over {duration(r.span)}" if r.span > 0 else ""
    if r.span > 0 and r.steady is not None:
        fitted += ", steady" if r.steady else ", NOT steady"
    if r.shape in SHAPES:
        fitted += f", {SHAPES[r.shape]}"
    if r.span > 0 and too_short(r.span, horizon, max_extrapolation) and r.seconds not in (None, 0.0):
        # As the Runway board and CephScaleRunwayShort say, and as the plan withholds its figures.
        fitted += f"; a guess: short of the {duration(horizon / max_extrapolation)} a {duration(horizon)} target needs"
    interval = ""
    if r.seconds not in (None, 0.0) and r.earliest is not None and r.latest is not None and r.earliest < r.latest:
        latest = "never" if math.isinf(r.latest) else duration(r.latest)
        interval = f" [95 %: {duration(r.earliest)} .. {latest}]"
    return f"  {r.limit:<13} {duration(r.seconds):>20}{flag}{interval}  ({r.detail}{fitted})"


def beside(p: Plan, figure: str) -> str:
    """What a figure's number carries beside it: the bound it was held to."""
    bound = p.bound_shown(figure)
    return f" [bounded: {bound}]" if bound else ""


def plan_lines(p: Plan) -> list[str]:
    out = []

    def count(n: int | None, figure: str, by: str) -> str:
        return f"{by}: withheld" if figure in p.withheld else f"{'n/a' if n is None else n} {by}"

    fill, ops = count(p.hdd_by_fill, "hdd_by_fill", "needed by fill"), count(p.hdd_by_ops, "hdd_by_ops", "by ops")
    if p.hdd_withheld:
        binding = f"; to add: withheld ({p.hdd_withheld})"
    else:
        binding = f": add {p.hdd_to_add} ({p.hdd_binding} binds)" if p.hdd_to_add is not None else ""
    out.append(f"  HDD OSDs: {p.hdd_osds} now; {fill}, {ops}{binding}" + beside(p, "hdd_osds"))
    if p.db_per_osd_levels is not None:
        share = f"{gb(p.db_per_osd_share)} by the 4 % rule ({p.db_short_share} have less)"
        if "db_per_osd" in p.withheld:
            out.append(f"  DB per OSD: {share}; to hold the next whole level: withheld ({p.withheld['db_per_osd']})")
        else:
            out.append(
                f"  DB per OSD: {gb(p.db_per_osd_levels)} to hold the next whole RocksDB level "
                f"({p.db_short_levels} OSDs have less), {share}; "
                f"{p.db_spilling_by_target} OSD(s) spill by the target date" + beside(p, "db_per_osd")
            )
        if p.level_base is not None:
            out.append(f"  max_bytes_for_level_base {p.level_base / 2**20:,.0f} MiB makes whole levels fill the DB")
    if p.rgw_needed is not None:
        if "rgw_instances" in p.withheld:
            out.append(f"  RGW instances: {p.rgw_instances} now; needed: withheld ({p.withheld['rgw_instances']})")
        else:
            out.append(f"  RGW instances: {p.rgw_instances} now, {p.rgw_needed} needed" + beside(p, "rgw_instances"))
    for x in p.pools:
        if x.planned_pgs > x.pgs:
            out.append(f"  pool {x.name}: {x.pgs} PGs -> {x.planned_pgs}" + beside(p, "pool_pgs"))
    if p.buckets_due is not None:
        out.append(f"  buckets to pre-shard: {p.buckets_due}" + (", the soonest:" if p.buckets_top else ""))
        for b in p.buckets_top:
            name = bucket_key(b.tenant, b.name)
            when = "past the limit now" if b.seconds <= 0 else f"limit in {duration(b.seconds)}"
            if "bucket_shards" in p.withheld:
                out.append(
                    f"    {name}: {b.shards} -> {b.recommended_now} shards for today's objects ({when}); "
                    f"for the target date: withheld ({p.withheld['bucket_shards']})"
                )
            else:
                out.append(
                    f"    {name}: {b.shards} -> {b.recommended_shards} shards ({when})" + beside(p, "bucket_shards")
                )
    return out


def as_text(advice: Advice, cluster: str = "") -> str:
    p = advice.plan
    out = [f"Runway to the target date ({p.horizon / DAY:g} days), cluster {cluster or '?'}"]
    out += [runway_line(r, p.horizon, p.max_extrapolation) for r in advice.runways]
    out += [
        "",
        f"Plan to hold it with {p.failure_domain_osds} OSD(s) lost "
        f"(the study's drop for that share down: {p.degraded_drop_put:.0%} PUT / {p.degraded_drop_get:.0%} GET [004]):",
    ]
    out += plan_lines(p)
    if p.notes:
        out += ["", "Notes:"] + [f"  - {n}" for n in p.notes]
    return "\n".join(out) + "\n"
