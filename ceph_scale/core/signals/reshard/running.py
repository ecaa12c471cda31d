"""Which entries of the reshard queue RGW is processing now. Pure.

Pacific's entries say so themselves (`new_instance_id`, set once processing begins). From Reef on
an entry stays unchanged from its queueing to its removal once done, and the bucket's read says it
(tests/fixtures/{reef,tentacle}/timeline_reshard_running.json): Tentacle's stats carry the
layout's `reshard_status`, and the bucket poll finds Reef's target index generation built beside
the current one (core/bucket_poll.py). Where neither was read (a cephx user without the index
pool's read cap on Reef), a reshard being processed reads as queued.
"""

from __future__ import annotations

from ...snapshot import BucketsPart, ReshardEntry, ReshardPart


def being_processed(queue: ReshardPart, buckets: BucketsPart | None) -> list[ReshardEntry]:
    """The queue's entries being processed, in the queue's order."""
    if not queue.entries:
        return []
    if buckets is None or all(e.in_progress for e in queue.entries):
        return [e for e in queue.entries if e.in_progress]
    resharding = {(b.tenant, b.name, b.bucket_id) for b in buckets.buckets if b.resharding}
    return [e for e in queue.entries if e.in_progress or (e.tenant, e.bucket, e.bucket_id) in resharding]
