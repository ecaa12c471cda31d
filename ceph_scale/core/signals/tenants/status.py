"""The usage signal's section of `ceph scale status`: how many tenants over how many buckets and
how many summed into the others, the largest tenants with their bytes, growth and figures' age,
the quota runways under 30 days, and the buckets past the advised objects per bucket [000]."""

from __future__ import annotations

from typing import Any

from ..judging import DAY, JsonObject, Judged, Raised, StatusSection, section, status_word
from ..wording import duration, number, size
from .result import TenantUsage, UsageSummary

RUNWAY_LISTED_SECONDS = 30 * DAY  # a month: what is worth planning for, past the check's week
NAMED_BUCKETS = 3


def _tenant(usage: UsageSummary, u: TenantUsage) -> dict[str, Any]:
    growth = usage.growth_of(u.owner)
    return {
        "owner": u.owner,
        "bytes": float(u.bytes),
        "objects": float(u.objects),
        "buckets": float(u.buckets),
        "growth_bytes_per_second": growth.bytes_per_second if growth is not None else None,
        "growth_objects_per_second": growth.objects_per_second if growth is not None else None,
        "stats_age_seconds": usage.age(u),
    }


def _tenant_line(t: dict[str, Any]) -> str:
    rate, objects = t["growth_bytes_per_second"], t["growth_objects_per_second"]
    grows = (
        "growth not fitted yet"
        if rate is None
        else f"{'+' if rate >= 0 else '-'}{size(abs(rate) * DAY)}, {objects * DAY:+.0f} objects a day"
    )
    return (
        f"  {t['owner']}: {size(t['bytes'])} in {number(t['objects'])} objects, {number(t['buckets'])} bucket(s); "
        f"{grows}; figures {duration(t['stats_age_seconds'])} old"
    )


def tenants(r: Judged, checks: Raised, top: int) -> JsonObject:
    usage = r.results.get(UsageSummary)
    if usage is None:
        return section("NO DATA", ["no bucket stats yet (source buckets)"], {}, [])
    summed = usage.tenants - len(usage.top)
    lines = [
        f"{number(usage.tenants)} tenants over {number(usage.buckets)} buckets, {number(summed)} summed into others"
    ]
    largest = [_tenant(usage, u) for u in usage.top[:top]]
    if largest:
        lines.append("largest tenants by bytes:")
        lines.extend(_tenant_line(t) for t in largest)
    soon = sorted(
        (w for w in usage.runways if w.seconds < RUNWAY_LISTED_SECONDS), key=lambda w: (w.seconds, w.owner, w.quota)
    )
    runways: list[dict[str, Any]] = [
        {"owner": w.owner, "quota": w.quota, "seconds": w.seconds, "lower_seconds": w.lower_seconds,
         "bounded": w.bounded}
        for w in soon
    ]  # fmt: skip
    if soon:
        lines.append("quota runways under 30 days, soonest first:")
        for w in soon[:top]:
            held = ", held to what the history supports" if w.bounded else ""
            lines.append(
                f"  {w.owner}: {w.quota} quota in {duration(w.seconds)} (at least {duration(w.lower_seconds)}{held})"
            )
    advised = r.th.rgw_bucket_objects_advised
    named = usage.past_advised_top[:NAMED_BUCKETS]
    past = f"{number(usage.past_advised)} bucket(s) past {number(advised)} objects"
    if named:
        past += ", the largest " + ", ".join(f"{key} ({number(n)})" for key, n in named)
    lines.append(past)
    data = {
        "tenants": float(usage.tenants),
        "buckets": float(usage.buckets),
        "tenants_summed": float(summed),
        "others": _tenant(usage, usage.others) if usage.others is not None else None,
        "largest": largest,
        "buckets_past_objects_advised": float(usage.past_advised),
        "objects_advised": float(advised),
        "buckets_past_objects_advised_largest": [{"bucket": key, "objects": float(n)} for key, n in named],
    }
    return section(status_word(True, "SCALE_TENANT_QUOTA_RUNWAY" in checks), lines, data, runways)


SECTION = StatusSection("Usage per tenant", tenants)
