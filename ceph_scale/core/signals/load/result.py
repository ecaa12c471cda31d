"""The load signal's typed result: the S3 load per HDD OSD against the study's baseline, and the hot OSDs.

Its derivation fills it (derive.py); its health checks (check.py, where it has any) and its
section of `ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PerHddLoad:
    put_ops: float  # S3 op rates per up and in HDD OSD
    get_ops: float
    put_ops_ratio: float  # those rates / their baselines
    get_ops_ratio: float
    mixed_ratio: float  # put / baseline put + get / baseline get
    put_bytes_ratio: float  # byte rates per HDD OSD / their baselines
    get_bytes_ratio: float
    put_headroom: float  # PUT/s (or GET/s) the cluster can add before the mixed load reaches 1
    get_headroom: float


@dataclass(frozen=True)
class Hotspot:
    ceph_daemon: str
    ratio: float  # its op rate / the mean of the up and in HDD OSDs of its device class under its CRUSH root
    device_class: str = ""
    crush_root: str = ""  # "" for an OSD in no CRUSH tree
    # its op rate / the mean of every up and in HDD OSD: x the cluster's load ratio, its own load
    # against one HDD OSD's baseline (hot past 1, as CephScaleHddOsdHotspot judges)
    cluster_ratio: float = 0.0

    def hot(self, hotspot_ratio: float, load: float) -> bool:
        return self.ratio > hotspot_ratio and self.cluster_ratio * load >= 1


@dataclass(frozen=True)
class LoadResult:
    hdd_osds: int | None  # up and in; None without an OSD map
    s3_ops: tuple[float, float] | None  # cluster PUT/s, GET/s once there are rates
    per_hdd: PerHddLoad | None  # once there are rates and HDD OSDs
    osd_rates: bool  # whether any OSD's op rate is known yet
    hotspots: tuple[Hotspot, ...]  # the top-K HDD OSDs by their ratio, of every class and root
    hotspot_count: int  # HDD OSDs hot as CephScaleHddOsdHotspot judges them (Hotspot.hot)
