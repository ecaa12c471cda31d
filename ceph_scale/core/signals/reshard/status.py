"""The reshard signal's section of `ceph scale status`: the buckets against the per-shard object
limit, fullest first, those expected to reshard next, RGW's reshard queue, and what the bucket
poll (the bucket_watch signal) costs and whether it keeps up."""

from __future__ import annotations

from typing import Any

from ...snapshot import bucket_key
from ..bucket_watch.result import BucketPollResult
from ..judging import JsonObject, Judged, Raised, StatusSection, maybe, section, status_word
from ..wording import duration, number, pct
from .result import ReshardResult


def reshard(r: Judged, checks: Raised, top: int) -> JsonObject:
    judged = r.results.get(ReshardResult)
    if judged is None or (judged.buckets is None and judged.queued is None and judged.events is None):
        return section("NO DATA", ["no RGW data (sources buckets, reshard): see `Sources` below"], {}, [])
    b = judged.buckets
    data: dict[str, Any] = {
        "buckets": maybe(b.listed) if b is not None else None,
        "objects": maybe(b.objects) if b is not None else None,
        "reshard_events": maybe(judged.events),
        "reshard_queued": maybe(judged.queued),
        "reshard_in_progress": maybe(judged.in_progress),
        "buckets_near_reshard": maybe(b.near) if b is not None else None,
        "buckets_over_shard_limit": maybe(b.over) if b is not None else None,
        "max_objs_per_shard": float(judged.shard_limit),
    }
    lines = []
    if b is not None:
        lines.append(
            f"{number(b.listed)} buckets, {number(b.objects)} objects; "
            f"{number(b.near)} near the per-shard limit of "
            f"{number(judged.shard_limit)}, {number(b.over)} at it"
        )
    if judged.events is not None:
        lines.append(f"{number(judged.events)} completed reshard(s) seen")
    poll = r.results.get(BucketPollResult)
    if poll is not None:
        # What watching costs the cluster, and whether the bucket poll keeps up (docs/cluster-cost.md).
        data["bucket_poll"] = {
            "last_reads": float(poll.last_reads),
            "budget_reads": float(poll.budget_reads),
            "overdue": float(poll.overdue),
            "unread": float(poll.unread),
            "oldest_stats_age_seconds": maybe(poll.oldest_stats_age_seconds),
        }
        oldest = poll.oldest_stats_age_seconds
        lines.append(
            f"bucket poll: {number(poll.last_reads)} RADOS reads of {number(poll.budget_reads)} "
            f"budgeted; oldest stats {duration(oldest) if oldest is not None else 'none yet'}; "
            f"{number(poll.overdue)} bucket(s) overdue, {number(poll.unread)} not read yet"
        )
    if judged.queued is not None:
        lines.append(f"reshard queue: {number(judged.queued)} queued, {number(judged.in_progress or 0)} in progress")
    offenders: list[dict[str, Any]] = [
        {
            "bucket": t.bucket,
            "tenant": t.tenant,
            "shard_fill_ratio": t.shard_fill_ratio,
            "objects": float(t.objects),
            "shards": float(t.shards),
            "recommended_shards": float(t.recommended_shards),
        }
        for t in sorted(b.top if b is not None else (), key=lambda t: -t.shard_fill_ratio)
    ]
    if offenders:
        lines.append("buckets by objects per shard, fullest first:")
        for o in offenders[:top]:
            lines.append(
                f"  {bucket_key(o['tenant'], o['bucket'])}: {pct(o['shard_fill_ratio'])} of the limit, "
                f"{number(o['objects'])} objects in {number(o['shards'])} shard(s); "
                f"recommended {number(o['recommended_shards'])} shards"
            )
    soonest = sorted(b.next_reshards if b is not None else (), key=lambda e: (e.seconds, e.tenant, e.bucket))
    data["expected_to_reshard_next"] = [{"bucket": e.bucket, "tenant": e.tenant, "seconds": e.seconds} for e in soonest]
    if soonest:
        lines.append("expected to reshard next, at their own object growth:")
        for e in soonest[:top]:
            when = "at the limit now" if e.seconds <= 0 else f"in {duration(e.seconds)}"
            lines.append(f"  {bucket_key(e.tenant, e.bucket)}: {when}")
    warn = "SCALE_RESHARD_SOON" in checks or bool(judged.queued) or bool(poll is not None and poll.overdue)
    return section(status_word(True, warn), lines, data, offenders)


SECTION = StatusSection("3. RGW dynamic bucket resharding", reshard)
