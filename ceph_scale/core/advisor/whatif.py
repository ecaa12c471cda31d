"""Sizing a cluster not yet built: for N objects of size S, a redundancy profile, S3 rates and
growth, the hardware to build (docs/sizing.md).

The live plan's own formulas (sizing.py, bounds.py) on inputs instead of measurements: HDD OSDs by
fill at the target and by load on the per-HDD baseline (60 PUT / 90 GET, 34 / 37 MB/s [004]), with
a host lost and the study's drop for that share down; DB per OSD by whole RocksDB levels and the
4 % rule, and the max_bytes_for_level_base that makes the 4 % hold it [004]; RGWs by the per-RGW
figures [000]; PGs of the data pool; buckets of about 100 K objects and their shards [000]; the
throughput to expect. Every figure is held to physics and Ceph's limits, and says which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from ..config import ConfigError, Thresholds
from ..signals.degraded.derive import expected_drop
from ..signals.reshard.derive import preshard
from .bounds import max_pgs, max_rgws
from .sizing import hdds_for_load, hdds_for_raw, level_base_for, next_boundary, pool_pgs, rgws_for_load
from .whatif_spec import SizeSpec

DAY = 86400.0
EC_STRIPE_UNIT = 4096  # osd_pool_erasure_code_stripe_unit: each EC chunk is a whole number of these
RGW_STRIPE = 4 * 2**20  # rgw_obj_stripe_size: RGW stores an object as RADOS objects of at most this
# The index shards RGW gives a new bucket unasked (the zonegroup's bucket_index_max_shards; the
# Tentacle captures' buckets have 11): a bucket is never sized below them.
RGW_DEFAULT_INDEX_SHARDS = 11
# OSD ids are 32-bit signed integers (the OSD map's max_osd): no cluster has more OSDs.
MAX_OSDS = 2**31 - 1
PAST_OSD_IDS = "past the OSD map's 32-bit OSD ids"


@dataclass(frozen=True)
class Throughput:
    put_ops: float
    get_ops: float
    put_bytes: float
    get_bytes: float


@dataclass(frozen=True)
class Sizing:
    spec: SizeSpec
    objects_at_target: float
    rados_objects: int  # per S3 object (RGW striping)
    raw_per_object: float  # bytes on the HDDs, allocation units included
    raw_at_target: float
    hdds_by_fill: int
    hdds_by_ops: int
    hdds: int
    hosts: int | None  # None: hdds_per_host not given
    lost_share: float  # of the HDDs, with one host
    drop_put: float  # the study's drop for that share down [004]
    drop_get: float
    db_need: float  # DB bytes per OSD at the target (the mean OSD)
    db_by_levels: int  # the next whole level boundary at the configured level base
    db_by_share: int  # bluefs_db_share_min_ratio of the HDD
    db_planned: int  # the larger of the share and the need
    level_base: int | None  # makes whole levels fill db_planned
    rgws: int
    data_pgs: int
    pg_replicas_per_osd: float
    buckets: int
    shards_per_bucket: int
    expected: Throughput  # 100 % PUT and 100 % GET each, on the planned hardware
    degraded: Throughput  # the same with a host lost
    bounded: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    @property
    def binding(self) -> str:
        return "fill" if self.hdds_by_fill >= self.hdds_by_ops else "ops"


def rados_parts(size: float) -> tuple[int, float]:
    """The RADOS objects RGW writes for one S3 object of `size` bytes: (whole stripes, the tail's bytes)."""
    whole = int(size // RGW_STRIPE)
    return whole, size - whole * RGW_STRIPE


def raw_bytes(size: float, k: int, width: int, min_alloc: int) -> float:
    """Raw bytes one RADOS object of `size` takes: `width` chunks (EC: of size/k in stripe units;
    replicas: the whole), each rounded up to the allocation unit. A 64 KB object on EC 4+2 is six
    16 KB chunks, each taking a 64 KB unit at the studies' min_alloc: 384 KiB [000, 003]."""
    chunk = math.ceil(size / k / EC_STRIPE_UNIT) * EC_STRIPE_UNIT if k > 1 else size
    return width * math.ceil(chunk / min_alloc) * min_alloc


def load(spec: SizeSpec, put_ops: float, get_ops: float) -> list[dict[str, float]]:
    """The S3 rates to hold: one mix, or each phase alone when PUTs and GETs alternate."""
    put = {"put_ops": put_ops, "put_bytes": put_ops * spec.object_size}
    get = {"get_ops": get_ops, "get_bytes": get_ops * spec.object_size}
    idle = {"put_ops": 0.0, "put_bytes": 0.0, "get_ops": 0.0, "get_bytes": 0.0}
    if spec.alternating:
        return [{**idle, **put}, {**idle, **get}]
    return [{**put, **get}]


def holding(spec: SizeSpec, needs: Callable[[float], tuple[int, int]]) -> tuple[int, int | None]:
    """(HDDs, hosts): the fewest hosts of `hdds_per_host` that hold the HDDs needed with one of them
    lost, and those HDDs; at least one host (and one OSD) per chunk, as CRUSH places them. More
    hosts lose a smaller share, so the count is searched upward from the need with none lost."""
    fewest = max(*needs(0.0), spec.width)
    if spec.hdds_per_host <= 0:
        return fewest, None
    hosts = max(spec.width, math.ceil(fewest / spec.hdds_per_host))
    while True:
        hdds = max(*needs(1 / hosts), spec.width)
        if hdds <= hosts * spec.hdds_per_host:
            return hdds, hosts
        hosts += 1


def size(spec: SizeSpec, th: Thresholds) -> Sizing:
    """The hardware for `spec`, sized with the live plan's formulas; ConfigError when it has none."""
    at_target = spec.objects_at_target
    if at_target <= 0:
        raise ConfigError("--size-for: objects and growth are both 0: nothing to size")
    bounded: dict[str, str] = {}
    notes: list[str] = []
    put_ops = spec.put_ops
    growth_ops = spec.growth / DAY
    if put_ops < growth_ops:
        bounded["put_ops"] = (
            f"{spec.put_ops:,.0f} PUT/s raised to {growth_ops:,.1f}: a growth of {spec.growth:,.0f} objects a day "
            "is at least that many PUTs"
        )
        put_ops = growth_ops
    whole, tail = rados_parts(spec.object_size)
    rados_objects = whole + (1 if tail > 0 else 0)
    per_object = whole * raw_bytes(RGW_STRIPE, spec.data_chunks, spec.width, spec.min_alloc)
    per_object += raw_bytes(tail, spec.data_chunks, spec.width, spec.min_alloc) if tail > 0 else 0
    raw = at_target * per_object
    if not raw <= MAX_OSDS * spec.hdd_bytes:
        raise ConfigError(f"--size-for: {at_target:,.3g} objects take {raw:,.3g} raw bytes, {PAST_OSD_IDS}")
    phases = load(spec, put_ops, get_ops=spec.get_ops)

    def needs(lost: float) -> tuple[int, int]:
        drop_put, drop_get = expected_drop(lost, 0), expected_drop(lost, 1)
        fill = hdds_for_raw(raw, spec.hdd_bytes, 0, th, lost)
        ops = [hdds_for_load(p, th, drop_put, drop_get) for p in phases]
        if fill is None or None in ops:
            raise ConfigError("--size-for: hdds_per_host: losing one host loses every HDD")
        return fill, max(0, *(n or 0 for n in ops))

    hdds, hosts = holding(spec, needs)
    if hdds > MAX_OSDS:
        raise ConfigError(
            f"--size-for: {hdds:,.3g} HDD OSDs for {put_ops:,.3g} PUT/s and {spec.get_ops:,.3g} GET/s, {PAST_OSD_IDS}"
        )
    lost = 1 / hosts if hosts else 0.0
    by_fill, by_ops = needs(lost)
    if max(by_fill, by_ops) < hdds == spec.width:
        bounded["hdds"] = f"raised to {spec.width}: each PG puts its {spec.width} chunks on {spec.width} OSDs"
    if hosts is not None and hosts == spec.width:
        notes.append(
            f"{hosts} hosts for {spec.profile}: a lost host's chunks have no other host to be rebuilt on "
            f"(the 10B cluster's 6 hosts ran EC 4+2 so [004]); {spec.width + 1} re-protect"
        )
    drop_put, drop_get = expected_drop(lost, 0), expected_drop(lost, 1)
    chunks_per_osd = at_target * rados_objects * spec.width / hdds
    db_need = chunks_per_osd * spec.db_per_chunk
    db_by_levels, db_by_share, db_planned = db_sizes(spec, th, db_need, bounded)
    rgw_work = [p["put_ops"] / th.rgw_put_ops_per_instance + p["get_ops"] / th.rgw_get_ops_per_instance for p in phases]
    rgws = max(1, rgws_for_load(max(rgw_work), lost) or 1)
    most_rgws = max_rgws(hdds, lost, th)
    if rgws > most_rgws:
        bounded["rgws"] = f"{rgws:,} RGWs held to the {most_rgws:,} that {hdds:,} HDDs can keep busy [004]"
        rgws = most_rgws
    data_pgs = pool_pgs(spec.pg_per_osd, hdds, 1.0, spec.width, th.plan_mon_max_pg_per_osd) or 1
    if data_pgs < pool_pgs(spec.pg_per_osd, hdds, 1.0, spec.width):
        bounded["data_pgs"] = (
            f"held to {max_pgs(hdds, spec.width, th.plan_mon_max_pg_per_osd):,}: mon_max_pg_per_osd "
            f"{th.plan_mon_max_pg_per_osd} PG replicas per OSD"
        )
    limit, max_shards = th.rgw_max_objs_per_shard, th.plan_rgw_max_dynamic_shards
    per_bucket = min(spec.objects_per_bucket, at_target)
    shards = preshard(per_bucket, RGW_DEFAULT_INDEX_SHARDS, limit, th.rgw_preshard_fill_ratio, max_shards)
    if shards >= max_shards and per_bucket / shards > limit * th.rgw_preshard_fill_ratio:
        bounded["shards_per_bucket"] = (
            f"held to rgw_max_dynamic_shards {max_shards}: use more buckets "
            f"(about {th.rgw_bucket_objects_advised:,} objects each [000])"
        )
    if spec.objects_per_bucket > th.rgw_bucket_objects_advised:
        notes.append(
            f"{spec.objects_per_bucket:,.0f} objects per bucket: the studies kept about "
            f"{th.rgw_bucket_objects_advised:,} and pre-sharded larger ones [000, 004]"
        )
    ideal = spec.width / spec.data_chunks
    if per_object > 1.1 * ideal * spec.object_size:
        notes.append(
            f"{per_object / spec.object_size:.1f} raw bytes per byte stored, not {ideal:g}: each chunk takes whole "
            f"{spec.min_alloc / 1024:g} KiB allocation units (bluestore_min_alloc_size_hdd [000])"
        )
    expected = throughput(spec, th, hdds, rgws)
    return Sizing(
        spec=spec,
        objects_at_target=at_target,
        rados_objects=rados_objects,
        raw_per_object=per_object,
        raw_at_target=raw,
        hdds_by_fill=by_fill,
        hdds_by_ops=by_ops,
        hdds=hdds,
        hosts=hosts,
        lost_share=lost,
        drop_put=drop_put,
        drop_get=drop_get,
        rgws=rgws,
        data_pgs=data_pgs,
        pg_replicas_per_osd=data_pgs * spec.width / hdds,
        buckets=math.ceil(at_target / spec.objects_per_bucket),
        shards_per_bucket=shards,
        expected=expected,
        degraded=throughput(spec, th, hdds, rgws, lost),
        bounded=bounded,
        notes=tuple(notes),
        db_need=db_need,
        db_by_levels=db_by_levels,
        db_by_share=db_by_share,
        db_planned=db_planned,
        level_base=level_base_for(db_planned, th),
    )


def db_sizes(spec: SizeSpec, th: Thresholds, need: float, bounded: dict[str, str]) -> tuple[int, int, int]:
    """DB per OSD: the next whole level above `need` at the configured level base, the 4 % rule,
    and the DB to build, the larger of the rule and the need (its level base: level_base_for) [004]."""
    by_levels = next_boundary(need, th)
    if by_levels > spec.hdd_bytes:
        bounded["db_by_levels"] = (
            f"the next whole level ({by_levels / 1e9:,.0f} GB) is larger than the HDD: held to it; "
            "a larger max_bytes_for_level_base fills the DB with fewer levels"
        )
        by_levels = int(spec.hdd_bytes)
    by_share = math.ceil(th.bluefs_db_share_min_ratio * spec.hdd_bytes)
    planned = max(by_share, math.ceil(need))
    if planned > spec.hdd_bytes:
        bounded["db_planned"] = f"{planned / 1e9:,.0f} GB of DB per OSD held to the HDD's size"
        planned = int(spec.hdd_bytes)
    return by_levels, by_share, planned


def throughput(spec: SizeSpec, th: Thresholds, hdds: int, rgws: int, lost: float = 0.0) -> Throughput:
    """What `hdds` and `rgws` serve of 100 % PUT or 100 % GET of `spec`'s objects with `lost` of
    them gone: the fewest of the HDDs' ops and bytes, less the study's drop for that share down
    [004], and the ops of the RGWs left [000]."""
    size = spec.object_size
    drop_put, drop_get = expected_drop(lost, 0), expected_drop(lost, 1)
    put = min(th.baseline_put_ops_per_hdd, th.baseline_put_bytes_per_hdd / size) * hdds * (1 - drop_put)
    get = min(th.baseline_get_ops_per_hdd, th.baseline_get_bytes_per_hdd / size) * hdds * (1 - drop_get)
    put = min(put, rgws * (1 - lost) * th.rgw_put_ops_per_instance)
    get = min(get, rgws * (1 - lost) * th.rgw_get_ops_per_instance)
    return Throughput(put, get, put * size, get * size)
