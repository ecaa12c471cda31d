"""SCALE_TENANT_QUOTA_RUNWAY: a tenant reaching its bucket quotas within a week at its fitted
growth; soonest first.

Judged as its alerts judge it (CephScaleTenantQuotaRunwayShort and, under a day,
CephScaleTenantQuotaRunwayUnderADay): only a runway the history supports (a bounded one is held
to plan_max_extrapolation x its history, so it says "at least this long", never "soon"), only
figures read within two days (older ones may describe a tenant that has since changed), and an
error under a day (at 0 RGW refuses the tenant's writes with QuotaExceeded)."""

from __future__ import annotations

from ...config import Thresholds
from ..check_options import CheckOptions
from ..judging import DAY, HealthCheck, JsonObject, health_check
from ..wording import duration
from .result import TenantRunway, UsageSummary

# Written in the check as in the alerts (rules.yml): the warning's horizon, the critical's, and
# the age past which a tenant's figures are not judged.
RUNWAY_WARN_SECONDS = 7 * DAY
RUNWAY_CRITICAL_SECONDS = DAY
STALE_SECONDS = 2 * DAY


def short_runways(usage: UsageSummary | None) -> list[TenantRunway]:
    """The unbounded runways under a week of tenants whose figures are fresh, soonest first."""
    if usage is None:
        return []
    out = []
    for r in usage.runways:
        tenant = usage.usage_of(r.owner)
        if r.bounded or r.seconds >= RUNWAY_WARN_SECONDS or tenant is None or usage.age(tenant) >= STALE_SECONDS:
            continue
        out.append(r)
    out.sort(key=lambda r: (r.seconds, r.lower_seconds, r.owner, r.quota))
    return out


def check_tenant_quota_runway(usage: UsageSummary | None, th: Thresholds, opts: CheckOptions) -> JsonObject | None:
    short = short_runways(usage)
    if not short:
        return None
    severity = "error" if any(r.seconds < RUNWAY_CRITICAL_SECONDS for r in short) else "warning"
    lines = [
        f"{r.owner}: {r.quota} quota in {duration(r.seconds)} (at least {duration(r.lower_seconds)})" for r in short
    ]
    summary = f"{len(short)} tenant quota(s) reached within 7 days at the tenant's fitted growth"
    return health_check(severity, summary, len(short), lines, opts.health_detail_max)


CHECKS = (HealthCheck("SCALE_TENANT_QUOTA_RUNWAY", check_tenant_quota_runway),)
