"""The bucket_watch signal's typed result: what the bucket poll costs the cluster and whether it keeps up.

Its derivation fills it (derive.py); its health checks (check.py, where it has any) and its
section of `ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BucketPollResult:
    last_reads: int  # RADOS reads the last bucket poll caused
    budget_reads: float
    overdue: int  # buckets it had to read and could not
    unread: int  # listed buckets never read yet
    oldest_stats_age_seconds: float | None
