"""The usage signal's typed result: the tenants with their own series, their growth and quota
runways, the rest summed, and the buckets past the advised objects per bucket.

Its derivation fills it (derive.py); its health check (check.py) and its section of
`ceph scale status` (status.py) judge it again in words."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TenantUsage:
    owner: str  # RGW's `tenant$user`, or `user` for no tenant
    buckets: int
    bytes: int
    objects: int
    oldest_stats_at: float  # the oldest last read of its buckets: how old its figures are
    # The sum of its buckets' quotas where every one of its buckets has one (it can hold no more),
    # else None: a bucket without a quota leaves the tenant unbounded.
    quota_bytes: int | None
    quota_objects: int | None


@dataclass(frozen=True)
class TenantGrowth:
    owner: str
    bytes_per_second: float  # fitted over runway_window_seconds; 0 within noise
    objects_per_second: float


@dataclass(frozen=True)
class TenantRunway:
    owner: str
    quota: str  # "bytes" or "objects" (its buckets' quotas summed), "user_bytes" or "user_objects"
    seconds: float  # to the quota at the fitted growth; +Inf when not growing
    lower_seconds: float  # at the fastest growth the fit allows
    bounded: bool  # held to plan_max_extrapolation x the history: at least this long
    quota_read_at: float = 0.0  # when its user quota was read; 0: a bucket quota, read with the stats


@dataclass(frozen=True)
class UsageSummary:
    """What the signal judged at its last derivation, for `ceph scale status` and the health check."""

    tenants: int
    buckets: int
    top: tuple[TenantUsage, ...]  # the tenants with their own series, largest first
    others: TenantUsage | None  # the rest summed, None when every tenant has its series
    runways: tuple[TenantRunway, ...]
    past_advised: int  # buckets past rgw_bucket_objects_advised
    past_advised_top: tuple[tuple[str, int], ...]  # (bucket key, objects) of the largest of them
    collected_at: float = 0.0  # the poll's time: what the tenants' ages are counted from
    growth: tuple[TenantGrowth, ...] = ()  # of the tenants in `top` whose history is long enough

    def age(self, usage: TenantUsage) -> float:
        """How old a tenant's figures were at the poll."""
        return max(0.0, self.collected_at - usage.oldest_stats_at)

    def usage_of(self, owner: str) -> TenantUsage | None:
        return next((u for u in self.top if u.owner == owner), None)

    def growth_of(self, owner: str) -> TenantGrowth | None:
        return next((g for g in self.growth if g.owner == owner), None)
