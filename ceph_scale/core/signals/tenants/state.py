"""What the usage signal keeps between bucket polls: the growth history of the tenants that have
their own series, and two reference reads of every bucket for its byte growth.

Memory stays bounded by the options, not by the tenants: a trend (at most trend.MAX_POINTS points)
is kept only for the `rgw_tenant_series` tenants exposed, and a tenant that leaves them loses its
history (it starts again, its fit short, if it comes back). The bucket references hold the poll's
own Bucket records (shared, not copied): two dict slots per bucket.
"""

from __future__ import annotations

from typing import Any

from ...config import Thresholds
from ...families import Family
from ...saved_rows import Dropped, as_time, read_rows, read_value
from ...snapshot import Bucket
from ...trend import Trend
from ..reshard.growth import BucketGrowth
from .result import TenantUsage, UsageSummary


def split_owner(owner: str) -> tuple[str, str]:
    """RGW writes a tenant's user as `tenant$user`; its labelled counters name them `tenant`, `user`."""
    tenant, sep, user = owner.partition("$")
    return (tenant, user) if sep else ("", owner)


class BucketRefs(BucketGrowth):
    """Each bucket's usage at two reference reads, the older between half a window and a window
    old (the reshard signal's BucketGrowth): a rate per bucket without a series per bucket."""

    def byte_rates(self, t: float, buckets: tuple[Bucket, ...]) -> dict[str, float]:
        """Bytes per second of each bucket between its reference read and its latest read
        (negative where it shrank: the sums of growth stay exact)."""
        return self.kept_rates(t, buckets, byte_rate)


def byte_rate(b: Bucket, ref: Bucket, span: float) -> float | None:
    return (b.size_bytes - ref.size_bytes) / span if b.size_bytes != ref.size_bytes else None


class TenantsState:
    def __init__(self, th: Thresholds | None = None) -> None:
        self.trends: dict[str, Trend] = {}  # owner -> (bytes, objects), the exposed tenants only
        self.refs: BucketRefs | None = None  # not durable: a restart only delays the bucket rates
        self.seen_at = 0.0
        self.summary: UsageSummary | None = None
        self.derived: tuple[float, Thresholds, list[Family]] | None = None  # (poll time, thresholds, families)

    def retuned(self, th: Thresholds) -> TenantsState:
        return self  # the history stays; new windows and caps apply from the next poll

    def observe(self, t: float, top: tuple[TenantUsage, ...], th: Thresholds) -> None:
        """A point for each exposed tenant; the trends of tenants no longer exposed are dropped."""
        if self.seen_at and t <= self.seen_at:
            return  # a part already seen (the producers derive again without a new poll)
        self.seen_at = t
        window, span = th.runway_window_seconds, th.forecast_min_span_seconds
        kept = {}
        for u in top:
            trend = self.trends.get(u.owner) or Trend(2)
            trend.add(t, (float(u.bytes), float(u.objects)), window, span)
            kept[u.owner] = trend
        self.trends = kept

    def to_dict(self) -> dict[str, Any]:
        return {"seen_at": self.seen_at, "trends": {k: v.to_dict() for k, v in self.trends.items()}}

    @classmethod
    def from_dict(cls, data: dict[str, Any], problems: list[str] | None = None) -> TenantsState:
        """A tenant's malformed history is dropped alone (Trend.from_dict)."""
        state = cls()
        state.seen_at = read_value(data, "seen_at", as_time, 0.0, problems)
        dropped = Dropped("tenant trends")
        state.trends = read_rows(data.get("trends", {}), _trend, dropped)
        dropped.report(problems)
        return state


def _trend(_: str, saved: Any) -> Trend:
    unread: list[str] = []
    trend = Trend.from_dict(saved, 2, unread, "history")
    if unread:
        raise ValueError(unread[0])
    return trend
