"""The advice for people and machines: `ceph scale plan [--format json]` and the sidecar's
`--once --plan` print the same document."""

from __future__ import annotations

import json
import math
from typing import Any

from .model import Advice, Runway

DAY = 86400.0


def _finite(v: float | None) -> float | str | None:
    if v is None or math.isfinite(v):
        return v
    return "+Inf" if v > 0 else "-Inf"


def _runway(r: Runway) -> dict[str, Any]:
    return {
        "limit": r.limit,
        "seconds": _finite(r.seconds),
        "days": _finite(r.seconds / DAY) if r.seconds is not None else None,
        "fit_span_seconds": r.span,
        "steady": r.steady,
        "detail": r.detail,
    }


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
            "hdd_osds": {
                "now": p.hdd_osds,
                "by_fill": p.hdd_by_fill,
                "by_ops": p.hdd_by_ops,
                "to_add": p.hdd_to_add,
                "binding": p.hdd_binding,
            },  # fmt: skip
            "db_per_osd": {
                "levels_bytes": p.db_per_osd_levels,
                "share_bytes": p.db_per_osd_share,
                "osds_short_levels": p.db_short_levels,
                "osds_short_share": p.db_short_share,
                "osds_spilling_by_target": p.db_spilling_by_target,
                "level_base_bytes": p.level_base,
            },
            "rgw_instances": {
                "now": p.rgw_instances,
                "needed": p.rgw_needed,
                "to_add": max(0, to_add) if to_add is not None else None,
            },  # fmt: skip
            "pools": [
                {"pool_id": x.pool_id, "name": x.name, "pgs": x.pgs, "planned_pgs": x.planned_pgs} for x in p.pools
            ],
            "buckets_to_preshard": {
                "count": p.buckets_due,
                "top": [
                    {
                        "bucket": b.name,
                        "tenant": b.tenant,
                        "seconds": b.seconds,
                        "objects_at_target": b.objects_at_target,
                        "shards": b.shards,
                        "recommended_shards": b.recommended_shards,
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


def as_text(advice: Advice, cluster: str = "") -> str:
    p = advice.plan
    out = [f"Runway to the target date ({p.horizon / DAY:g} days), cluster {cluster or '?'}"]
    for r in advice.runways:
        flag = " <" if r.seconds is not None and r.seconds < p.horizon else ""
        fitted = f", fitted over {duration(r.span)}" if r.span > 0 else ""
        if r.span > 0 and r.steady is not None:
            fitted += ", steady" if r.steady else ", NOT steady"
        out.append(f"  {r.limit:<13} {duration(r.seconds):>20}{flag}  ({r.detail}{fitted})")
    out += [
        "",
        f"Plan to hold it with {p.failure_domain_osds} OSD(s) lost "
        f"(the study's drop for that share down: {p.degraded_drop_put:.0%} PUT / {p.degraded_drop_get:.0%} GET [004]):",
    ]
    binding = f": add {p.hdd_to_add} ({p.hdd_binding} binds)" if p.hdd_to_add is not None else ""
    fill, ops = (n if n is not None else "n/a" for n in (p.hdd_by_fill, p.hdd_by_ops))
    out.append(f"  HDD OSDs: {p.hdd_osds} now; {fill} needed by fill, {ops} by ops{binding}")
    if p.db_per_osd_levels is not None:
        out.append(
            f"  DB per OSD: {gb(p.db_per_osd_levels)} to hold the next whole RocksDB level "
            f"({p.db_short_levels} OSDs have less), {gb(p.db_per_osd_share)} by the 4 % rule "
            f"({p.db_short_share} have less); {p.db_spilling_by_target} OSD(s) spill by the target date"
        )
        if p.level_base is not None:
            out.append(f"  max_bytes_for_level_base {p.level_base / 2**20:,.0f} MiB makes whole levels fill the DB")
    if p.rgw_needed is not None:
        out.append(f"  RGW instances: {p.rgw_instances} now, {p.rgw_needed} needed")
    for x in p.pools:
        if x.planned_pgs > x.pgs:
            out.append(f"  pool {x.name}: {x.pgs} PGs -> {x.planned_pgs}")
    if p.buckets_due is not None:
        out.append(f"  buckets to pre-shard: {p.buckets_due}" + (", the soonest:" if p.buckets_top else ""))
        for b in p.buckets_top:
            name = f"{b.tenant}/{b.name}" if b.tenant else b.name
            when = "past the limit now" if b.seconds <= 0 else f"limit in {duration(b.seconds)}"
            out.append(f"    {name}: {b.shards} -> {b.recommended_shards} shards ({when})")
    if p.notes:
        out += ["", "Notes:"] + [f"  - {n}" for n in p.notes]
    return "\n".join(out) + "\n"
