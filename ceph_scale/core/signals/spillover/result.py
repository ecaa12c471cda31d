"""The spillover signal's typed result: each OSD's DB device: what spills, what fits, and which
reach their next RocksDB level soonest; and the OSDs whose BlueFS outgrows its share of the main
device (Ceph's BLUESTORE_BLUEFS_OVERSIZED, computed on every release).

Its derivation fills it (derive.py); its health checks (check.py, where it has any) and its
section of `ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DbOsd:
    ceph_daemon: str
    spilled_bytes: float
    db_size_bytes: float
    db_used_bytes: float
    db_usable_bytes: float  # the RocksDB levels that fit whole
    db_share_ratio: float | None  # DB device size / data device size, when both are known


@dataclass(frozen=True)
class LevelEta:
    ceph_daemon: str
    seconds: float  # until DB use passes its usable size


@dataclass(frozen=True)
class MainShare:
    ceph_daemon: str
    ratio: float  # BlueFS used (DB + WAL + spilled) / main device size
    used_bytes: float  # DB + WAL + spilled
    main_bytes: float  # the main device's size (`osd metadata`)


@dataclass(frozen=True)
class SpilloverResult:
    osds: tuple[DbOsd, ...]  # the OSDs with a DB device, by OSD id
    next_level: tuple[LevelEta, ...]  # the top-K soonest of those not spilling, soonest first
    spillover_osds: int
    spilled_bytes: float
    share_below_min_osds: int
    # BlueFS as a share of the main device, over every OSD with BlueFS counters (a DB device or not).
    oversized: tuple[MainShare, ...] = ()  # past bluefs_warn_ratio, highest first
    main_share_unread_osds: int = 0  # no main device size or no WAL counter: not judged
    main_share_max: MainShare | None = None  # the highest of those judged
