"""What to add to hold the target date, a failure domain lost included (docs/runway.md).

Each resource is sized for the levels at the target date (now + fitted growth x the horizon):
HDD OSDs by fill and by S3 load, whichever binds; DB flash per OSD by the next whole RocksDB
level and by the 4 % rule; RGW instances; PGs per pool; the buckets to pre-shard. Losing the
largest failure domain takes its capacity and its RGWs, and costs the throughput drop the 10B
test measured for that share of OSDs down (2 %: -6 % PUT / -8 % GET, 17 %: -21 % / -25 %) [004].
"""

from __future__ import annotations

import math
from typing import Any

from ..config import Thresholds
from ..signals.degraded import expected_drop
from ..signals.spillover import level_sizes, usable_db_bytes
from .model import Measured, Plan, PoolPlan
from .runway import db_limit, rgw_load


def hdds_by_fill(m: Measured, th: Thresholds, lost: float) -> int | None:
    """Enough HDDs that raw use at the target date stays under the fill target once the
    failure domain's capacity is gone and its data recovered onto the rest."""
    if m.raw_used is None or m.hdd_osds <= 0 or m.hdd_bytes <= 0 or lost >= 1:
        return None
    raw_needed = m.raw_used.at(m.horizon) / th.fill_target_ratio / (1 - lost)
    return max(0, math.ceil((raw_needed - m.other_raw_bytes) / m.hdd_bytes))


def hdds_by_ops(m: Measured, th: Thresholds, drop_put: float, drop_get: float) -> int | None:
    """Enough HDDs that the S3 load at the target date stays within the per-HDD baseline with
    the study's degraded drop applied: ops (60 PUT / 90 GET) or bytes (34 / 37 MB/s) [004]."""
    if "put_ops" not in m.s3 or drop_put >= 1 or drop_get >= 1:
        return None
    s3, h = m.s3, m.horizon
    ops = s3["put_ops"].at(h) / th.baseline_put_ops_per_hdd / (1 - drop_put)
    ops += s3["get_ops"].at(h) / th.baseline_get_ops_per_hdd / (1 - drop_get)
    nbytes = s3["put_bytes"].at(h) / th.baseline_put_bytes_per_hdd / (1 - drop_put)
    nbytes += s3["get_bytes"].at(h) / th.baseline_get_bytes_per_hdd / (1 - drop_get)
    return math.ceil(max(ops, nbytes) - 1e-9)


def next_boundary(need: float, th: Thresholds) -> int:
    """The smallest cumulative level size L1..Lk holding `need` bytes (the deepest one if none does)."""
    total = 0
    for size in level_sizes(th):
        total += size
        if total >= need:
            break
    return total


def level_base_for(db_bytes: int, th: Thresholds) -> int | None:
    """The max_bytes_for_level_base that makes the levels fitting whole in `db_bytes` fill it:
    the 10B test's advice to use the 4 % [004]."""
    fitting = 0
    total = 0
    for size in level_sizes(th):
        if total + size > db_bytes:
            break
        total += size
        fitting += 1
    if fitting == 0:
        return None
    return int(db_bytes / sum(th.rocksdb_level_multiplier**i for i in range(fitting)))


def pools(m: Measured, hdds_added: int) -> tuple[PoolPlan, ...]:
    """PGs per pool for the OSDs of the plan: mon_target_pg_per_osd spread by each pool's share
    of raw use, over its width, to a power of two; never fewer than the pool has."""
    total = sum(p.raw_used_bytes for p in m.pools)
    osds = m.osds_in + hdds_added
    out = []
    for p in m.pools:
        planned = p.pgs
        if total > 0 and p.width > 0 and osds > 0:
            ideal = m.target_pg_per_osd * osds * p.raw_used_bytes / total / p.width
            if ideal >= 1:
                planned = max(p.pgs, 2 ** round(math.log2(ideal)))
        out.append(PoolPlan(p.pool_id, p.name, p.pgs, planned))
    return tuple(out)


def db_plan(m: Measured, th: Thresholds, notes: list[str]) -> dict[str, Any]:
    """DB per OSD by the next whole level above the largest DB use at the target date and by the
    share rule; the OSDs short of each, those spilling by then, the level base that fills the DB."""
    if not m.dbs:
        return {"db_per_osd_levels": None, "db_per_osd_share": None, "db_short_levels": 0, "db_short_share": 0,
                "db_spilling_by_target": 0, "level_base": None}  # fmt: skip
    projected = [(d, d.growth.at(m.horizon)) for d in m.dbs]
    deepest = max(p for _, p in projected)
    for_levels = next_boundary(deepest, th)
    largest_data = max(d.data_bytes for d in m.dbs)
    for_share = math.ceil(th.bluefs_db_share_min_ratio * largest_data) if largest_data > 0 else None
    if deepest > sum(level_sizes(th)):
        notes.append("the DB use at the target date is past every level considered (rocksdb_levels)")
    usable = min(usable_db_bytes(d.db_bytes, th) for d in m.dbs)
    if usable < for_levels:
        notes.append(
            f"whole levels use {usable / 1e9:.1f} GB of the smallest DB; holding the next level needs "
            f"{for_levels / 1e9:.0f} GB per OSD, or a larger max_bytes_for_level_base"
        )
    return {
        "db_per_osd_levels": for_levels,
        "db_per_osd_share": for_share,
        "db_short_levels": sum(1 for d in m.dbs if d.db_bytes < for_levels),
        "db_short_share": sum(1 for d in m.dbs if for_share is not None and d.db_bytes < for_share),
        "db_spilling_by_target": sum(
            1 for d, p in projected if d.spilled_bytes > 0 or p > db_limit(d.db_bytes, d.used_bytes, th)
        ),
        "level_base": level_base_for(max(for_share or 0, max(d.db_bytes for d in m.dbs)), th),
    }


def rgws(m: Measured, th: Thresholds, lost: float, notes: list[str]) -> int | None:
    """RGWs for the load at the target date once the failure domain's share of them is gone."""
    load = rgw_load(m, th, m.horizon)
    if load is None or lost >= 1:
        return None
    now = rgw_load(m, th)
    if now is not None and now[0] > 1:
        put = m.s3["put_ops"].now / m.rgw_instances
        notes.append(
            f"each RGW carries {put:,.0f} PUT/s now, {now[0]:.0%} of the per-RGW figure "
            f"({th.rgw_put_ops_per_instance:,.0f} PUT / {th.rgw_get_ops_per_instance:,.0f} GET ops/s [000]); "
            "if they sustain it without latency growing, raise rgw_put_ops_per_instance to what they carry"
        )
    return math.ceil(load[0] * m.rgw_instances / (1 - lost) - 1e-9)


def plan(m: Measured, th: Thresholds) -> Plan:
    notes: list[str] = []
    lost_osds = min(m.failure_domain_osds, m.hdd_osds)
    lost = lost_osds / m.hdd_osds if m.hdd_osds > 0 else 0.0
    drop_put, drop_get = expected_drop(lost, 0), expected_drop(lost, 1)
    if m.raw_used is not None and m.raw_used.rate is None:
        notes.append("no raw growth fitted yet: HDDs by fill hold today's use only")
    if "put_ops" in m.s3 and m.s3["put_ops"].rate is None:
        notes.append("no S3 load growth fitted yet: HDDs and RGWs by load hold today's load only")
    by_fill = hdds_by_fill(m, th, lost)
    by_ops = hdds_by_ops(m, th, drop_put, drop_get)
    db = db_plan(m, th, notes)
    rgw_needed = rgws(m, th, lost, notes)
    hdd_added = max(0, max((n for n in (by_fill, by_ops) if n is not None), default=0) - m.hdd_osds)
    shards = m.shards
    return Plan(
        horizon=m.horizon,
        failure_domain_osds=lost_osds,
        degraded_drop_put=drop_put,
        degraded_drop_get=drop_get,
        hdd_osds=m.hdd_osds,
        hdd_by_fill=by_fill,
        hdd_by_ops=by_ops,
        rgw_instances=m.rgw_instances,
        rgw_needed=rgw_needed,
        pools=pools(m, hdd_added),
        buckets_due=shards.due if shards is not None else None,
        buckets_top=shards.top if shards is not None else (),
        notes=tuple(notes),
        **db,
    )
