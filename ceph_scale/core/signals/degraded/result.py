"""The degraded signal's typed result: the share of HDD OSDs down and the S3 throughput drop the study measured for it.

Its derivation fills it (derive.py); its health checks (check.py, where it has any) and its
section of `ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DegradedResult:
    down_ratio: float  # share of the in HDD OSDs that are down
    put_drop_ratio: float  # the S3 throughput drop the study measured for that share
    get_drop_ratio: float
