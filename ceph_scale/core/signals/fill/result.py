"""The fill signal's typed result: where the cluster, its pools and its OSDs stand against the fill target.

Its derivation fills it (derive.py); its health checks (check.py, where it has any) and its
section of `ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClusterFill:
    used_ratio: float
    headroom_bytes: float  # raw bytes left before the fill target; negative once past it
    seconds_to_target: float | None  # at the fitted fill rate; 0 once past it, None when not filling


@dataclass(frozen=True)
class PoolFill:
    pool_id: str
    name: str
    used_ratio: float
    seconds_to_target: float | None


@dataclass(frozen=True)
class OsdFill:
    ceph_daemon: str
    used_ratio: float


@dataclass(frozen=True)
class FillResult:
    cluster: ClusterFill | None
    pools: tuple[PoolFill, ...]  # by pool id
    osds: tuple[OsdFill, ...]  # by OSD id, those that report a size
    fullest: OsdFill | None  # of the up and in OSDs
