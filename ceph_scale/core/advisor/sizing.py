"""What to add to hold the target date, a failure domain lost included (docs/runway.md).

Each resource is sized for the levels at the target date (now + fitted growth x the horizon):
HDD OSDs by fill and by S3 load, whichever binds; DB flash per OSD by the next whole RocksDB
level and by the 4 % rule; RGW instances; PGs per pool; the buckets to pre-shard. Losing the
largest failure domain takes its capacity and its RGWs, and costs the throughput drop the 10B
test measured for that share of OSDs down (2 %: -6 % PUT / -8 % GET, 17 %: -21 % / -25 %) [004].
Every figure is held to physics and Ceph's limits (`Plan.bounded` says which), and a figure
sized on a growth fitted over too short a history for the target, or not steady, has no
headline (`Plan.withheld` says why: `bounds.py`).
"""

from __future__ import annotations

import math
from typing import Any

from ..config import Thresholds
from ..signals.degraded.derive import expected_drop
from ..signals.spillover.derive import level_sizes, usable_db_bytes
from .bounds import held_growth, judge, max_pgs, max_rgws
from .model import Growth, Measured, Plan, PoolPlan
from .runway import db_limit, rgw_load


def hdds_by_fill(m: Measured, th: Thresholds, lost: float, raw: Growth | None = None) -> int | None:
    """Enough HDDs that raw use at the target date stays under the fill target once the
    failure domain's capacity is gone and its data recovered onto the rest; `raw`: the raw
    growth as bounded (bounds.held_growth), else the fitted one."""
    raw = raw if raw is not None else m.raw_used
    if raw is None or m.hdd_osds <= 0:
        return None
    return hdds_for_raw(raw.at(m.horizon), m.hdd_bytes, m.other_raw_bytes, th, lost)


def hdds_for_raw(raw_bytes: float, hdd_bytes: float, other_raw_bytes: float, th: Thresholds, lost: float) -> int | None:
    """HDDs of `hdd_bytes` holding `raw_bytes` under the fill target with `lost` of them gone."""
    if hdd_bytes <= 0 or lost >= 1:
        return None
    raw_needed = raw_bytes / th.fill_target_ratio / (1 - lost)
    return max(0, math.ceil((raw_needed - other_raw_bytes) / hdd_bytes))


def hdds_by_ops(m: Measured, th: Thresholds, drop_put: float, drop_get: float) -> int | None:
    """Enough HDDs that the S3 load at the target date stays within the per-HDD baseline with
    the study's degraded drop applied: ops (60 PUT / 90 GET) or bytes (34 / 37 MB/s) [004]."""
    if "put_ops" not in m.s3:
        return None
    load = {name: g.at(m.horizon) for name, g in m.s3.items()}
    return hdds_for_load(load, th, drop_put, drop_get)


def hdd_baselines(s3: dict[str, float], th: Thresholds, drop_put: float = 0.0, drop_get: float = 0.0) -> float:
    """The S3 rates `s3` (put_ops, get_ops, put_bytes, get_bytes per second) in per-HDD baselines,
    the degraded drop applied: the larger of their ops (60 PUT / 90 GET) and their bytes (34 / 37
    MB/s) [004]. Below 1 drop each."""
    ops = s3["put_ops"] / th.baseline_put_ops_per_hdd / (1 - drop_put)
    ops += s3["get_ops"] / th.baseline_get_ops_per_hdd / (1 - drop_get)
    nbytes = s3["put_bytes"] / th.baseline_put_bytes_per_hdd / (1 - drop_put)
    nbytes += s3["get_bytes"] / th.baseline_get_bytes_per_hdd / (1 - drop_get)
    return max(ops, nbytes)


def hdds_for_load(s3: dict[str, float], th: Thresholds, drop_put: float, drop_get: float) -> int | None:
    """HDDs for the S3 rates `s3` within the per-HDD baseline, the degraded drop applied [004]."""
    if drop_put >= 1 or drop_get >= 1:
        return None
    return math.ceil(hdd_baselines(s3, th, drop_put, drop_get) - 1e-9)


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


def pools(m: Measured, hdds_added: int, max_pg_per_osd: int = 0) -> tuple[PoolPlan, ...]:
    """PGs per pool for the OSDs of the plan: mon_target_pg_per_osd spread by each pool's share
    of raw use, over its width, to a power of two; never fewer than the pool has, never more
    than `max_pg_per_osd` (mon_max_pg_per_osd; 0: unbounded) allows (bounds.max_pgs)."""
    total = sum(p.raw_used_bytes for p in m.pools)
    osds = m.osds_in + hdds_added
    planned = [p.pgs for p in m.pools]
    for i, p in enumerate(m.pools):
        if total > 0:
            share = p.raw_used_bytes / total
            planned[i] = max(p.pgs, pool_pgs(m.target_pg_per_osd, osds, share, p.width, max_pg_per_osd))
    # mon_max_pg_per_osd bounds the PG replicas of all pools on an OSD, not each pool's: rounding
    # each to a power of two can pass it together (two pools at a target of 200 gave 276 an OSD).
    # The pool with the most replicas above its PGs now is halved until they fit.
    while max_pg_per_osd > 0 and sum(n * p.width for n, p in zip(planned, m.pools)) > max_pg_per_osd * osds:
        grown = [i for i, p in enumerate(m.pools) if planned[i] // 2 >= p.pgs and planned[i] > 1]
        if not grown:
            break  # the pools' PGs now pass it already: nothing planned to take back
        i = max(grown, key=lambda i: planned[i] * m.pools[i].width)
        planned[i] //= 2
    return tuple(PoolPlan(p.pool_id, p.name, p.pgs, n) for p, n in zip(m.pools, planned))


def pool_pgs(target_pg_per_osd: int, osds: int, share: float, width: int, max_pg_per_osd: int = 0) -> int:
    """PGs for a pool holding `share` of the raw use: mon_target_pg_per_osd over its width, to a
    power of two, at most what mon_max_pg_per_osd allows (0: unbounded); 0: too small to say."""
    ideal = target_pg_per_osd * osds * share / width if width > 0 and osds > 0 else 0.0
    if ideal < 1:
        return 0
    planned = int(2 ** round(math.log2(ideal)))
    return min(planned, max_pgs(osds, width, max_pg_per_osd)) if max_pg_per_osd > 0 else planned


def db_plan(m: Measured, th: Thresholds, notes: list[str], bounded: dict[str, str]) -> dict[str, Any]:
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
        extrapolated = any(judge(d.growth, m.horizon, th) for d in m.dbs)
        need = "(its size withheld: see DB per OSD)" if extrapolated else f"{for_levels / 1e9:.0f} GB per OSD"
        notes.append(
            f"whole levels use {usable / 1e9:.1f} GB of the smallest DB; holding the next level needs {need}, "
            "or a larger max_bytes_for_level_base"
        )
    smallest_data = min((d.data_bytes for d in m.dbs if d.data_bytes > 0), default=0)
    if smallest_data and for_levels > smallest_data:
        bounded["db_per_osd"] = (
            f"the next whole level ({for_levels / 1e9:,.0f} GB) is larger than the data device "
            f"({smallest_data / 1e9:,.0f} GB): held to it; a larger max_bytes_for_level_base fills the DB "
            "with fewer levels"
        )
        for_levels = smallest_data
    if for_share is not None and for_levels < for_share:
        for_levels = for_share  # the 4 % rule is the floor [004]
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
        notes.append(
            rgw_figure_note(m.s3["put_ops"].now / m.rgw_instances, m.s3["get_ops"].now / m.rgw_instances, now[0], th)
        )
    return rgws_for_load(load[0] * m.rgw_instances, lost)


def rgws_for_load(load: float, lost: float) -> int | None:
    """RGWs for `load` per-RGW figures of work once `lost` of them are gone."""
    return math.ceil(load / (1 - lost) - 1e-9) if lost < 1 else None


def sustained_figures(put: float, get: float, load: float, th: Thresholds) -> dict[str, float]:
    """The per-RGW figures that RGWs carrying `put` and `get` ops/s each, `load` (> 1) of the
    figures, show they sustain: each figure of an op they carry, times the load, so the same
    work reads 100 %. Under a mixed load neither op alone reaches its figure: raising one figure
    to what the RGWs carry of that op would lower it."""
    figures = {"put": (put, th.rgw_put_ops_per_instance), "get": (get, th.rgw_get_ops_per_instance)}
    return {op: figure * load for op, (carried, figure) in figures.items() if carried > 0}


def rgw_figure_note(put: float, get: float, load: float, th: Thresholds) -> str:
    carried = " and ".join(f"{v:,.0f} {op.upper()}/s" for op, v in (("put", put), ("get", get)) if v > 0)
    raise_to = " and ".join(
        f"rgw_{op}_ops_per_instance to {v:,.0f}" for op, v in sustained_figures(put, get, load, th).items()
    )
    return (
        f"each RGW carries {carried} now, {load:.0%} of the per-RGW figure "
        f"({th.rgw_put_ops_per_instance:,.0f} PUT / {th.rgw_get_ops_per_instance:,.0f} GET ops/s [000]); "
        f"if they sustain it without latency growing, raise {raise_to}"
    )


def plan(m: Measured, th: Thresholds) -> Plan:
    notes: list[str] = []
    bounded: dict[str, str] = {}
    lost_osds = min(m.failure_domain_osds, m.hdd_osds)
    lost = lost_osds / m.hdd_osds if m.hdd_osds > 0 else 0.0
    drop_put, drop_get = expected_drop(lost, 0), expected_drop(lost, 1)
    if m.raw_used is not None and m.raw_used.rate is None:
        notes.append("no raw growth fitted yet: HDDs by fill hold today's use only")
    if "put_ops" in m.s3 and m.s3["put_ops"].rate is None:
        notes.append("no S3 load growth fitted yet: HDDs and RGWs by load hold today's load only")
    by_fill = hdds_by_fill(m, th, lost, held_growth(m, th, bounded))
    by_ops = hdds_by_ops(m, th, drop_put, drop_get)
    db = db_plan(m, th, notes, bounded)
    rgw_needed = rgws(m, th, lost, notes)
    held_back = withheld(m, th)
    if "hdd_by_ops" in held_back:
        # A figure by ops that a growth too short or unsteady cannot carry is exported for its
        # graph at the load of the last day's busiest moment: nothing physical bounds a load's
        # growth (a periodic load's fit, its PUT hour read as accelerating, carried 1,454,846
        # HDDs). The RGWs are held to what the HDDs shown take (bounds.max_rgws).
        by_ops = hdds_for_load({name: g.now for name, g in m.s3.items()}, th, drop_put, drop_get)
    # RGWs serve no more than the HDDs the plan shows can take: a withheld count adds none.
    shown = [n or 0 for n, figure in ((by_fill, "hdd_by_fill"), (by_ops, "hdd_by_ops")) if figure not in held_back]
    most_rgws = max_rgws(max([m.hdd_osds, *shown]), lost, th)
    if rgw_needed is not None and rgw_needed > most_rgws:
        bounded["rgw_instances"] = (
            f"{rgw_needed:,} RGWs held to the {most_rgws:,} that {max([m.hdd_osds, *shown]):,} HDDs can keep busy "
            f"({th.baseline_put_ops_per_hdd:g} PUT / {th.baseline_get_ops_per_hdd:g} GET ops/s each [004])"
        )
        rgw_needed = most_rgws
    # PGs for the HDDs the plan shows, as the RGWs: a withheld count adds none.
    hdd_added = max(0, max([m.hdd_osds, *shown]) - m.hdd_osds)
    pool_plans = pools(m, hdd_added, th.plan_mon_max_pg_per_osd)
    if pool_plans != pools(m, hdd_added):
        bounded["pool_pgs"] = f"PGs held to mon_max_pg_per_osd {th.plan_mon_max_pg_per_osd} PG replicas per OSD"
    shards = m.shards
    top = shards.top if shards is not None else ()
    if any(b.recommended_shards >= th.plan_rgw_max_dynamic_shards > b.shards for b in top):
        bounded["bucket_shards"] = (
            f"shards held to rgw_max_dynamic_shards {th.plan_rgw_max_dynamic_shards}: past it, use more buckets "
            f"(about {th.rgw_bucket_objects_advised:,} objects each [000])"
        )
    if m.buckets_over_advised:
        notes.append(
            f"{m.buckets_over_advised:,} bucket(s) hold more than {th.rgw_bucket_objects_advised:,} objects: "
            "the studies spread objects over more buckets of about that size [000, 004]"
        )
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
        pools=pool_plans,
        buckets_due=shards.due if shards is not None else None,
        buckets_top=top,
        notes=tuple(notes),
        withheld=held_back,
        bounded=bounded,
        buckets_over_advised=m.buckets_over_advised,
        max_extrapolation=th.plan_max_extrapolation,
        **db,
    )


def withheld(m: Measured, th: Thresholds) -> dict[str, str]:
    """Figure -> why it is not shown: a growth behind it too short or not steady."""
    h = m.horizon
    s3 = [judge(m.s3.get(name), h, th) for name in ("put_ops", "get_ops", "put_bytes", "get_bytes")]
    by = {
        "hdd_by_fill": [judge(m.raw_used, h, th)],
        "hdd_by_ops": s3,
        "rgw_instances": s3[:2],
        "db_per_osd": [judge(d.growth, h, th) for d in m.dbs],
        "bucket_shards": [buckets_judged(m, th)],
    }
    return {figure: next(r for r in reasons if r) for figure, reasons in by.items() if any(reasons)}


def buckets_judged(m: Measured, th: Thresholds) -> str | None:
    """Why the pre-shard figures at the target date are not shown, where growth changed them."""
    top = m.shards.top if m.shards is not None else ()
    if not any(b.recommended_shards != b.recommended_now for b in top):
        return None  # nothing extrapolated: the figures are today's
    if m.objects_span <= 0:
        return "bucket growth not fitted over forecast_min_span_seconds yet"
    return judge(Growth(0.0, 1.0, m.objects_span, m.objects_steady), m.horizon, th)
