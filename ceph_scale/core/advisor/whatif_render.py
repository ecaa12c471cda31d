"""A sizing of a cluster not yet built, for people and machines: the sidecar's `--size-for` and
`ceph scale plan --size-for` print the same document (docs/sizing.md)."""

from __future__ import annotations

import json
from typing import Any

from ..config import Thresholds
from .whatif import Sizing, Throughput, size
from .whatif_spec import parse


def _rates(t: Throughput) -> dict[str, float]:
    return {"put_ops": t.put_ops, "get_ops": t.get_ops, "put_bytes": t.put_bytes, "get_bytes": t.get_bytes}


def as_dict(z: Sizing) -> dict[str, Any]:
    s = z.spec
    return {
        "inputs": {
            "objects": s.objects,
            "objects_at_target": z.objects_at_target,
            "object_size_bytes": s.object_size,
            "profile": s.profile,
            "put_ops": s.put_ops,
            "get_ops": s.get_ops,
            "mix": "alternating" if s.alternating else "concurrent",
            "growth_objects_per_day": s.growth,
            "target_days": s.days,
            "hdd_bytes": s.hdd_bytes,
            "hdds_per_host": s.hdds_per_host,
            "min_alloc_bytes": s.min_alloc,
            "db_bytes_per_chunk": s.db_per_chunk,
            "objects_per_bucket": s.objects_per_bucket,
            "pg_per_osd": s.pg_per_osd,
        },
        "raw_bytes_per_object": z.raw_per_object,
        "raw_bytes_at_target": z.raw_at_target,
        "hdd_osds": {"needed": z.hdds, "by_fill": z.hdds_by_fill, "by_ops": z.hdds_by_ops, "binding": z.binding},
        "hosts": z.hosts,
        "failure_domain": {"share": z.lost_share, "drop": {"put": z.drop_put, "get": z.drop_get}},
        "db_per_osd": {
            "need_bytes": z.db_need,
            "levels_bytes": z.db_by_levels,
            "share_bytes": z.db_by_share,
            "planned_bytes": z.db_planned,
            "level_base_bytes": z.level_base,
        },
        "rgw_instances": z.rgws,
        "data_pool": {"pgs": z.data_pgs, "pg_replicas_per_osd": z.pg_replicas_per_osd},
        "buckets": {"count": z.buckets, "shards_each": z.shards_per_bucket},
        "throughput": {"expected": _rates(z.expected), "host_lost": _rates(z.degraded)},
        "bounded": dict(z.bounded),
        "notes": list(z.notes),
    }


def as_json(z: Sizing, pretty: bool = False) -> str:
    return json.dumps(as_dict(z), indent=2 if pretty else None, sort_keys=True, allow_nan=False)


def gb(n: float) -> str:
    return f"{n / 1e9:,.1f} GB"


def beside(z: Sizing, figure: str) -> str:
    bound = z.bounded.get(figure)
    return f" [bounded: {bound}]" if bound else ""


def rates(t: Throughput) -> str:
    return (
        f"{t.put_ops:,.0f} PUT/s ({t.put_bytes / 1e6:,.0f} MB/s) or {t.get_ops:,.0f} GET/s "
        f"({t.get_bytes / 1e6:,.0f} MB/s)"
    )


def as_text(z: Sizing) -> str:
    s = z.spec
    mix = "in turn" if s.alternating else "at once"
    out = [
        f"Sizing for {z.objects_at_target:,.0f} objects of {s.object_size:,.0f} bytes on {s.profile} "
        f"at {s.days:g} days ({s.objects:,.0f} now + {s.growth:,.0f} a day), "
        f"{s.put_ops:,.0f} PUT/s and {s.get_ops:,.0f} GET/s {mix}" + beside(z, "put_ops"),
        f"  raw per object: {z.raw_per_object / 1024:,.0f} KiB; raw at the target: {z.raw_at_target / 1e12:,.1f} TB",
    ]
    drops = f"-{z.drop_put:.0%} PUT / -{z.drop_get:.0%} GET [004]"
    lost = f"; sized with one host lost ({z.lost_share:.0%} of the HDDs: {drops})"
    out.append(
        f"  HDD OSDs of {s.hdd_bytes / 1e12:g} TB: {z.hdds:,} ({z.hdds_by_fill:,} by fill, {z.hdds_by_ops:,} by ops: "
        f"{z.binding} binds)"
        + beside(z, "hdds")
        + (f" on {z.hosts} hosts{lost}" if z.hosts is not None else "; no host lost (hdds_per_host not given)")
    )
    out.append(
        f"  DB per OSD: {gb(z.db_need)} used at the target; {gb(z.db_by_share)} by the 4 % rule, "
        f"{gb(z.db_by_levels)} to hold whole levels at the configured level base" + beside(z, "db_by_levels")
    )
    if z.level_base is not None:
        out.append(
            f"    build {gb(z.db_planned)} per OSD with max_bytes_for_level_base {z.level_base / 2**20:,.0f} MiB: "
            "whole levels then fill it" + beside(z, "db_planned")
        )
    out.append(f"  RGW instances: {z.rgws:,}" + beside(z, "rgws"))
    out.append(
        f"  data pool: {z.data_pgs:,} PGs ({z.pg_replicas_per_osd:,.0f} PG replicas per OSD)" + beside(z, "data_pgs")
    )
    out.append(
        f"  buckets: {z.buckets:,} of {min(s.objects_per_bucket, z.objects_at_target):,.0f} objects, "
        f"{z.shards_per_bucket:,} index shards each" + beside(z, "shards_per_bucket")
    )
    out.append(f"  throughput to expect: {rates(z.expected)}")
    if z.hosts is not None:
        out.append(f"    with a host lost: {rates(z.degraded)}")
    if z.notes:
        out += ["", "Notes:"] + [f"  - {n}" for n in z.notes]
    return "\n".join(out) + "\n"


def report(text: str, th: Thresholds, form: str = "text") -> str:
    """What both entry points print for `--size-for text`: parsed, sized, rendered as `form`
    (text, json or json-pretty); ConfigError names a bad input."""
    sizing = size(parse(text, th), th)
    if form in ("json", "json-pretty"):
        return as_json(sizing, pretty=form == "json-pretty") + "\n"
    return as_text(sizing)
