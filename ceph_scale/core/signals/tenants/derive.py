"""Usage per tenant (bucket owner) and per bucket at 100,000+ buckets, at a fixed series count.

Everything comes from the bucket stats the bucket poll already reads (core/bucket_poll.py): not
one read more. A tenant is a bucket's `owner`, labelled as RGW's own per-user counters label it
(`tenant`, `user`: `ceph_rgw_op_per_user_*` joins on them). The `rgw_tenant_series` largest by
bytes have their own series; the rest are summed into one, so every family sums exactly to the
cluster's total whatever the number of tenants.

Freshness: at 100,000 buckets the poll does not read every bucket every time, so each tenant's
figures are as old as the oldest last read of its buckets. Buckets listed but never read yet
belong to no tenant (their owner is not known): `ceph_scale_rgw_bucket_stats_unread` counts them.

Quotas: a bucket's quota is in its stats; a tenant is bounded by them when every one of its
buckets has one, by their sum. Its user quota is in none of the buckets' reads: the poll reads it
once per `rgw_bucket_stats_max_age_seconds` per owner (core/user_quotas.py, 0 to 2 RADOS ops
each, catalog.md). Of the two, per kind (bytes, objects), the smaller is the one the tenant
reaches first and the one exposed (`quota` "bytes"/"objects": its buckets'; "user_bytes"/
"user_objects": its user quota), so a tenant has at most the same quota series either way.
The runway is the room left over the
growth fitted like the other trends (core/trend.py), withheld while the history is short, and
held to `plan_max_extrapolation` times the history it was fitted over (`bounded="true"`: at least
that long).
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from typing import Any

from ...config import Thresholds
from ...families import Family, gauge
from ...snapshot import Bucket, UserQuota
from ...trend import Fit, fit
from ..signal_input import SignalInput
from .buckets import OTHERS, bucket_families
from .result import TenantGrowth, TenantRunway, TenantUsage, UsageSummary
from .state import BucketRefs, TenantsState, split_owner

__all__ = ["TenantsState", "derive"]  # the registry's row: its derivation and its state

TENANT_LABELS = ("tenant", "user")
# Its series per exposed tenant (docs/metrics.md, "Usage per tenant and bucket"): bytes, objects,
# buckets, age, growth span, byte and object growth, and per quota kind its quota, runway and lower runway.
SERIES_PER_TENANT = 13
SERIES_PER_BUCKET = 4  # by bytes, by objects, by growth, past the advised objects
# The rest: the tenants' totals (2), the other tenants' four, the other buckets' three, the count past advised.
SERIES_FIXED = 10
# Its own in the series every signal has: ceph_scale_signal_success and _failures_total{signal="tenants"}.
SIGNAL = "tenants"
SIGNAL_FAMILIES = ("ceph_scale_signal_success", "ceph_scale_signal_failures")
# Its options' ceph_scale_config series: the two that set its budget and its quota thresholds.
OPTIONS = (
    "rgw_tenant_series",
    "rgw_bucket_usage_top",
    "rgw_tenant_quota_warn_seconds",
    "rgw_tenant_quota_critical_seconds",
    "rgw_tenant_stats_judged_seconds",
)


# The names of its families (with the PREFIX), told apart from the core's for their own budget.
FAMILY_PREFIXES = (
    "ceph_scale_rgw_tenant",
    "ceph_scale_rgw_bucket_usage_",
    "ceph_scale_rgw_bucket_past_objects_advised",
    "ceph_scale_rgw_buckets_past_objects_advised",
)


def usage_family(name: str) -> bool:
    return name.startswith(FAMILY_PREFIXES)


def series_budget(th: Thresholds) -> int:
    """The most series the signal adds under `th`, whatever the number of buckets or tenants: its
    families', its two signal series and its options' (what `usage_series` counts); its own
    budget, beside the core's (bench/report.py)."""
    families = SERIES_PER_TENANT * th.rgw_tenant_series + SERIES_PER_BUCKET * th.rgw_bucket_usage_top + SERIES_FIXED
    return families + len(SIGNAL_FAMILIES) + len(OPTIONS)


def usage_series(families: list[Family]) -> int:
    """The series of `families` (a whole derivation's) that `series_budget` bounds."""
    n = 0
    for f in families:
        if usage_family(f.name):
            n += len(f.samples)
        elif f.name in SIGNAL_FAMILIES:
            at = f.label_names.index("signal")
            n += sum(1 for s in f.samples if s[1][at] == SIGNAL)
        elif f.name == "ceph_scale_config":
            at = f.label_names.index("option")
            n += sum(1 for s in f.samples if s[1][at] in OPTIONS)
    return n


def tenant_usage(buckets: tuple[Bucket, ...], now: float) -> dict[str, TenantUsage]:
    """Each owner's buckets summed, in one pass (100,000 buckets every poll); `now`: the read time
    of stats that carry none (one read of all)."""
    # owner -> [buckets, bytes, objects, oldest read, quota bytes, quota objects]; a quota goes
    # to NO_QUOTA (-1) for good at the owner's first bucket without one.
    acc: dict[str, list[Any]] = {}
    for b in buckets:
        a = acc.get(b.owner)
        read_at = b.stats_at or now
        if a is None:
            acc[b.owner] = [1, b.size_bytes, b.num_objects, read_at, b.quota_bytes, b.quota_objects]
            continue
        a[0] += 1
        a[1] += b.size_bytes
        a[2] += b.num_objects
        if read_at < a[3]:
            a[3] = read_at
        a[4] = a[4] + b.quota_bytes if a[4] >= 0 and b.quota_bytes >= 0 else -1
        a[5] = a[5] + b.quota_objects if a[5] >= 0 and b.quota_objects >= 0 else -1
    return {
        owner: TenantUsage(owner, n, size, objects, oldest, qb if qb >= 0 else None, qo if qo >= 0 else None)
        for owner, (n, size, objects, oldest, qb, qo) in acc.items()
    }


def merged(usages: list[TenantUsage]) -> TenantUsage:
    """The tenants past the cap as one: their sums, their oldest read (no quota: not one tenant's)."""
    return TenantUsage(
        owner="",
        buckets=sum(u.buckets for u in usages),
        bytes=sum(u.bytes for u in usages),
        objects=sum(u.objects for u in usages),
        oldest_stats_at=min(u.oldest_stats_at for u in usages),
        quota_bytes=None,
        quota_objects=None,
    )


def runway(owner: str, kind: str, room: float, growth: Fit, th: Thresholds) -> TenantRunway:
    """Seconds to the quota at the fitted growth, and at its fastest plausible value."""
    longest = growth.span * th.plan_max_extrapolation  # past this the history says nothing

    def held(seconds: float) -> tuple[float, bool]:
        return (longest, True) if seconds > longest else (seconds, False)

    if room <= 0:
        return TenantRunway(owner, kind, 0.0, 0.0, False)
    fastest = held(room / growth.high)[0] if growth.high > 0 else math.inf
    if growth.slope <= 0:
        return TenantRunway(owner, kind, math.inf, fastest, False)  # not growing (within noise)
    seconds, bounded = held(room / growth.slope)
    return TenantRunway(owner, kind, seconds, fastest, bounded)


def binding_quotas(u: TenantUsage, user: UserQuota | None) -> list[tuple[int, str, int, int, float]]:
    """Per kind the quota the tenant reaches first, of its buckets' (summed) and its user's:
    (trend column, `quota` label, quota, used, when the user quota was read or 0)."""
    out = []
    for i, kind, buckets_quota, user_quota, used in (
        (0, "bytes", u.quota_bytes, user.max_bytes if user else -1, u.bytes),
        (1, "objects", u.quota_objects, user.max_objects if user else -1, u.objects),
    ):
        if user is not None and user_quota >= 0 and (buckets_quota is None or user_quota < buckets_quota):
            out.append((i, f"user_{kind}", user_quota, used, user.read_at))
        elif buckets_quota is not None:
            out.append((i, kind, buckets_quota, used, 0.0))
    return out


def tenant_runways(
    state: TenantsState, top: tuple[TenantUsage, ...], users: dict[str, UserQuota], th: Thresholds
) -> list[TenantRunway]:
    out = []
    for u in top:
        trend = state.trends.get(u.owner)
        if trend is None:
            continue
        for i, kind, quota, used, read_at in binding_quotas(u, users.get(u.owner)):
            growth = fit(trend.column(i), th.forecast_min_span_seconds)
            if growth is not None:
                out.append(dataclasses.replace(runway(u.owner, kind, quota - used, growth, th), quota_read_at=read_at))
    return out


def tenant_families(
    now: float,
    top: tuple[TenantUsage, ...],
    others: TenantUsage | None,
    users: dict[str, UserQuota],
    state: TenantsState,
    th: Thresholds,
) -> tuple[list[Family], list[TenantRunway], list[TenantGrowth]]:
    size_f = gauge("rgw_tenant_bytes", "Bytes (size_actual) of the tenant's buckets; user=\"(others)\" sums "
                   "the tenants past rgw_tenant_series.", *TENANT_LABELS)  # fmt: skip
    objects_f = gauge("rgw_tenant_objects", "Objects in the tenant's buckets.", *TENANT_LABELS)
    count_f = gauge("rgw_tenant_buckets", "Buckets the tenant owns (with stats read).", *TENANT_LABELS)
    age_f = gauge("rgw_tenant_stats_age_seconds", "Age of the oldest stats read among the tenant's buckets: "
                  "how old its figures are.", *TENANT_LABELS)  # fmt: skip
    span_f = gauge("rgw_tenant_growth_span_seconds", "History behind the tenant's fitted growth (none is "
                   "fitted before forecast_min_span_seconds).", *TENANT_LABELS)  # fmt: skip
    bytes_growth_f = gauge("rgw_tenant_growth_bytes_per_second", "The tenant's fitted byte growth "
                           "(0 within noise).", *TENANT_LABELS)  # fmt: skip
    objects_growth_f = gauge("rgw_tenant_growth_objects_per_second", "The tenant's fitted object growth "
                             "(0 within noise).", *TENANT_LABELS)  # fmt: skip
    quota_f = gauge("rgw_tenant_quota", "The quota the tenant reaches first per kind: its bucket quotas summed "
                    "(quota=\"bytes\"/\"objects\", where every bucket it owns has one) or its user quota "
                    "(quota=\"user_bytes\"/\"user_objects\").", *TENANT_LABELS, "quota")  # fmt: skip
    growths: list[TenantGrowth] = []
    for u in (*top, *((others,) if others is not None else ())):
        labels = split_owner(u.owner) if u is not others else ("", OTHERS)
        size_f.add(u.bytes, *labels)
        objects_f.add(u.objects, *labels)
        count_f.add(u.buckets, *labels)
        age_f.add(max(0.0, now - u.oldest_stats_at), *labels)
        trend = state.trends.get(u.owner) if u is not others else None
        if trend is None:
            continue
        span_f.add(trend.span(), *labels)
        slopes = []
        for i, family in ((0, bytes_growth_f), (1, objects_growth_f)):
            growth = fit(trend.column(i), th.forecast_min_span_seconds)
            if growth is not None:
                family.add(growth.slope, *labels)
                slopes.append(growth.slope)
        if len(slopes) == 2:
            growths.append(TenantGrowth(u.owner, slopes[0], slopes[1]))
    for u in top:
        for _, kind, quota, _, _ in binding_quotas(u, users.get(u.owner)):
            quota_f.add(quota, *split_owner(u.owner), kind)
    runways = tenant_runways(state, top, users, th)
    runway_f = gauge("rgw_tenant_quota_runway_seconds", "Seconds until the tenant reaches its quota at its "
                     "fitted growth (+Inf: not growing); bounded=\"true\": held to plan_max_extrapolation x its "
                     "history, at least this long.", *TENANT_LABELS, "quota", "bounded")  # fmt: skip
    lower_f = gauge("rgw_tenant_quota_runway_lower_seconds", "The same at the fastest growth the fit "
                    "allows (its 95 % interval).", *TENANT_LABELS, "quota")  # fmt: skip
    for r in runways:
        labels = split_owner(r.owner)
        runway_f.add(r.seconds, *labels, r.quota, "true" if r.bounded else "false")
        lower_f.add(r.lower_seconds, *labels, r.quota)
    families = [size_f, objects_f, count_f, age_f, span_f, bytes_growth_f, objects_growth_f, quota_f]
    return families + [runway_f, lower_f], runways, growths


def derive(given: SignalInput, state: TenantsState) -> list[Family]:
    part, th = given.snap.buckets, given.th
    if part is None:
        return []
    now = part.collected_at
    if state.derived is not None and state.derived[0] == now and state.derived[1] == th:
        # The same poll derived again (the other sources come more often): 100,000 buckets are not
        # summed again for the same figures.
        given.judged(state.summary)
        return [dataclasses.replace(f, samples=list(f.samples)) for f in state.derived[2]]
    usages = tenant_usage(part.buckets, now)
    ranked = heapq.nlargest(th.rgw_tenant_series, usages.values(), key=lambda u: (u.bytes, u.objects, u.owner))
    top = tuple(ranked)
    exposed = {u.owner for u in top}
    rest = [u for owner, u in usages.items() if owner not in exposed]
    others = merged(rest) if rest else None
    state.observe(now, top, th)

    if state.refs is None or state.refs.window != th.rgw_growth_window_seconds:
        state.refs = BucketRefs(th.rgw_growth_window_seconds)
    rates = state.refs.byte_rates(now, part.buckets)
    state.refs.observe(now, part.buckets)

    families = [
        gauge("rgw_tenants", "Bucket owners among the buckets with stats read.").add(len(usages)),
        gauge("rgw_tenants_summed", 'Tenants past rgw_tenant_series, summed into user="(others)".').add(len(rest)),
    ]
    users = {q.owner: q for q in part.user_quotas}
    tenant_fams, runways, growths = tenant_families(now, top, others, users, state, th)
    bucket_fams, past, named = bucket_families(part.buckets, rates, th)
    state.summary = UsageSummary(
        len(usages), len(part.buckets), top, others, tuple(runways), past, named, now, tuple(growths)
    )
    given.judged(state.summary)
    out = families + tenant_fams + bucket_fams
    state.derived = (now, th, [dataclasses.replace(f, samples=list(f.samples)) for f in out])
    return out
