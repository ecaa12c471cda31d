"""Small synthetic snapshots, each making one study condition, built with the core's types."""

from __future__ import annotations

from collections.abc import Sequence

from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.snapshot import (
    BlueFsCounters,
    Bucket,
    BucketsPart,
    CapacityPart,
    ClusterSettings,
    FullRatios,
    Osd,
    OsdMapPart,
    PerfPart,
    PgPart,
    PgScrubState,
    Pool,
    RgwOpCounters,
    Snapshot,
)

TB = 10**12


def osd_map(t: float, used: list[float], data_device_bytes: int | None = None) -> OsdMapPart:
    """One 10 TB HDD OSD per entry of `used` (its fill ratio); data_device_bytes: on a DB device of its own."""
    osds = tuple(
        Osd(
            i,
            "hdd",
            "h0",
            True,
            True,
            10 * TB,
            int(u * 10 * TB),
            dedicated_db=data_device_bytes is not None,
            data_device_bytes=data_device_bytes,
        )  # fmt: skip
        for i, u in enumerate(used)
    )
    return OsdMapPart(t, osds, FullRatios(0.85, 0.9, 0.95))


def capacity(t: float, used_ratio: float, pools: dict[str, float] | None = None) -> CapacityPart:
    total = 100 * TB
    pool_list = tuple(
        Pool(i + 1, name, int(r * 10 * TB), int(r * 15 * TB), int((1 - r) * 10 * TB), r, 1000, 4, 2)
        for i, (name, r) in enumerate(sorted((pools or {}).items()))
    )
    return CapacityPart(t, total, int(used_ratio * total), pool_list)


def buckets(t: float, objects: dict[str, tuple[int, int]]) -> BucketsPart:
    """name -> (objects, shards)."""
    return BucketsPart(
        t, tuple(Bucket(n, "", f"z.{n}.1", s, o, "u", f"z.{n}.0") for n, (o, s) in sorted(objects.items()))
    )


def pgs(t: float, n: int, overdue: int, scrubbed_at: float = 500.0) -> PgPart:
    """n PGs; `overdue` of them last scrubbed 30 days before t=0 (overdue with Ceph's
    defaults), the others at `scrubbed_at`. Stamps only move when the caller moves them."""
    old = -30 * 86400.0
    return PgPart(
        t,
        tuple(
            PgScrubState(f"1.{i:x}", 1, "active+clean", *(2 * (old if i < overdue else scrubbed_at,))) for i in range(n)
        ),
    )


def perf(t: float, put_ops: int, get_ops: int, bluefs: Sequence[BlueFsCounters] = ()) -> PerfPart:
    return PerfPart(
        t, bluefs=tuple(bluefs), rgw_ops=(RgwOpCounters("4100", get_ops, put_ops, get_ops * 65536, put_ops * 65536),)
    )


def derive_with_state(snaps: list[Snapshot], th: Thresholds | None = None) -> tuple[list, DerivationState]:
    """The families of the last snapshot, and the state holding the signals' judgements of it."""
    th = th or Thresholds()
    state = DerivationState(th)
    fams: list = []
    for s in snaps:
        fams = derive(s, state, th, producer="mgr", cluster="test")
    return fams, state


def snap(t: float, **parts) -> Snapshot:
    parts.setdefault("settings", ClusterSettings(t, rgw_max_objs_per_shard=100_000))
    return Snapshot(taken_at=t, fsid="f", **parts)
