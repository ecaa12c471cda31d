"""What watching the buckets costs the cluster, and whether the watch keeps its promise [004].

The bucket poll (core/bucket_poll.py) reads each bucket's stats on a schedule of its own
within a budget of RADOS reads (`rgw_bucket_reads_per_second`, 1 % of the 10B study's
17,800 PUT/s with the rest of the producer [004]). Its promise, that a bucket crossing
`rgw_shard_warn_ratio` or the limit is seen within a poll, holds while the budget covers
the reads it must make and while buckets grow within their assumed bound; these families
say when either fails, without a series per bucket.
"""

from __future__ import annotations

from ...families import Family, counter, gauge
from ..signal_input import SignalInput
from .result import BucketPollResult


def derive(given: SignalInput, state: None = None) -> list[Family]:
    part = given.snap.buckets
    if part is None or part.poll is None:
        return []
    report = part.poll
    reads = counter(
        "rgw_bucket_poll_reads",
        "RADOS reads the bucket poll caused since the producer started, by kind (list, meta, stats, probe, quota).",
        "kind",
    )
    for kind, n in report.reads_total:
        reads.add(n, kind)
    read = counter(
        "rgw_bucket_stats_reads",
        "Bucket stats read since the producer started, by why (new, changed, queued, due, unread, sweep).",
        "reason",
    )
    for reason, n in report.buckets_read_total:
        read.add(n, reason)
    families = [
        reads,
        read,
        gauge("rgw_bucket_poll_last_reads", "RADOS reads the last bucket poll caused.").add(report.reads),
        gauge("rgw_bucket_poll_budget_reads", "RADOS reads the last bucket poll could spend.").add(report.budget),
        gauge(
            "rgw_bucket_stats_overdue",
            "Buckets the last poll had to read (new, changed, queued, or past their growth bound) and could not "
            "within its budget or time: the promise to see a crossing within a poll does not hold for them.",
        ).add(report.overdue),
        gauge("rgw_bucket_stats_unread", "Listed buckets whose stats were never read yet (a first start).").add(
            report.unread
        ),
        counter(
            "rgw_bucket_growth_bound_exceeded",
            "Reads that found a bucket had grown more than its bound assumed since its previous read.",
        ).add(report.bound_exceeded_total),
    ]
    oldest_age = None
    if report.oldest_stats_at is not None:
        oldest_age = max(0.0, given.snap.taken_at - report.oldest_stats_at)
        families.append(
            gauge(
                "rgw_bucket_stats_oldest_age_seconds",
                "Age of the oldest bucket stats held: how long the sweep takes to read every bucket again.",
            ).add(oldest_age)
        )
    given.judged(BucketPollResult(report.reads, report.budget, report.overdue, report.unread, oldest_age))
    return families
