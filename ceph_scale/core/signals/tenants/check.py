"""SCALE_TENANT_QUOTA_RUNWAY: a tenant reaching its bucket quotas (summed) or its user quota within
`rgw_tenant_quota_warn_seconds` (a week) at its fitted growth; soonest first.

Judged as its alerts judge it (CephScaleTenantQuotaRunwayShort and, under
`rgw_tenant_quota_critical_seconds`, CephScaleTenantQuotaRunwayUnderADay), by the same
thresholds, which the rules read from ceph_scale_config: only a runway the history supports (a
bounded one is held to plan_max_extrapolation x its history, so it says "at least this long",
never "soon"), only figures read within `rgw_tenant_stats_judged_seconds` (older ones may
describe a tenant that has since changed; for a user quota, its own read too), and an error
under the critical runway (at 0 RGW refuses the tenant's writes with QuotaExceeded)."""

from __future__ import annotations

from ...config import Thresholds
from ..check_options import CheckOptions
from ..judging import HealthCheck, JsonObject, health_check
from ..wording import duration
from .result import TenantRunway, UsageSummary


def short_runways(usage: UsageSummary | None, th: Thresholds) -> list[TenantRunway]:
    """The unbounded runways either alert fires for, of tenants whose figures are fresh, soonest first."""
    if usage is None:
        return []
    horizon = max(th.rgw_tenant_quota_warn_seconds, th.rgw_tenant_quota_critical_seconds)
    out = []
    for r in usage.runways:
        tenant = usage.usage_of(r.owner)
        if r.bounded or r.seconds >= horizon or tenant is None:
            continue
        if usage.age(tenant) >= th.rgw_tenant_stats_judged_seconds:
            continue
        if r.quota_read_at and usage.collected_at - r.quota_read_at >= th.rgw_tenant_stats_judged_seconds:
            continue  # a user quota read too long ago (the budget left it unread): it may have changed
        out.append(r)
    out.sort(key=lambda r: (r.seconds, r.lower_seconds, r.owner, r.quota))
    return out


def check_tenant_quota_runway(usage: UsageSummary | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    short = short_runways(usage, th)
    if not short:
        return None
    severity = "error" if any(r.seconds < th.rgw_tenant_quota_critical_seconds for r in short) else "warning"
    lines = [
        f"{r.owner}: {r.quota} quota in {duration(r.seconds)} (at least {duration(r.lower_seconds)})" for r in short
    ]
    summary = (
        f"{len(short)} tenant quota(s) reached within {duration(th.rgw_tenant_quota_warn_seconds)} "
        "at the tenant's fitted growth"
    )
    return health_check(severity, summary, len(short), lines, opts.health_detail_max)


CHECKS = (HealthCheck("SCALE_TENANT_QUOTA_RUNWAY", check_tenant_quota_runway),)
