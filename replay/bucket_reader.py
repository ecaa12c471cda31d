"""A simulated cluster's buckets read the way the exporter reads them: through its bucket poll
(core/bucket_poll.py), with the listings, each bucket's stats when due within the read budget,
and stats of index objects in the zone's index pool (core/index_generation.py).

A scenario cluster with `buckets_read: poll` is read this way (the default on Reef, whose queue
entry and bucket stats do not say a reshard is being processed: only the index pool does, the
target generation built beside the current one, as tests/fixtures/reef/timeline_reshard_running.json
shows). With `stats` every bucket's stats are parsed at every poll, as `radosgw-admin bucket stats`
answers them: the simulator's ideal, every bucket fresh, where the poll reads within its budget
(docs/replay.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ceph_scale.core import inputs
from ceph_scale.core.bucket_poll import BucketPoll
from ceph_scale.core.bucket_poll_limits import poll_inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.index_generation import shard0_oid
from ceph_scale.core.parse_buckets import user_quota
from ceph_scale.core.snapshot import Bucket, BucketsPart, ClusterSettings, ReshardPart, UserQuota, bucket_key
from ceph_scale.io.admin_ops import LIST_PAGE, META_READS, STATS_OVERHEAD_READS, USER_QUOTA_READS, listing_reads
from replay.release_shapes import captured

# The simulator answers at once: a poll is never cut short by its deadline.
NO_DEADLINE = 60.0


def no_deadline() -> float:
    return NO_DEADLINE


def key(record: dict[str, Any]) -> str:
    return bucket_key(record.get("tenant", ""), str(record["bucket"]))


class SimBuckets:
    """One poll's buckets (core/bucket_poll.BucketReader): the bucket stats the simulator answers
    at t, each bucket's index generation, and the reshards being processed (bucket number ->
    the target's shard count)."""

    stats_overhead = STATS_OVERHEAD_READS
    meta_reads = META_READS
    user_quota_reads = USER_QUOTA_READS

    def __init__(
        self, records: list[dict[str, Any]], generations: list[int], processing: dict[int, int], t: float, release: str
    ) -> None:
        self.t = t
        self.records = {key(r): r for r in records}
        self.index_pool: set[str] = set()
        for b, (record, gen) in enumerate(zip(records, generations)):
            self.index_pool.add(shard0_oid(record["id"], gen))
            if b in processing:  # the target generation, every shard of it, beside the current one
                self.index_pool |= {f".dir.{record['id']}.{gen + 1}.{s}" for s in range(processing[b])}
        quota = captured(release, "admin_api_user_quota_only_acme_ops.json")  # read once, not every poll
        self.no_quota = {**quota, "enabled": False, "max_size": -1, "max_objects": -1, "max_size_kb": 0}

    def list_instances(self, _time_left: Callable[[], float]) -> tuple[dict[str, tuple[str, ...]], int]:
        pages = max(1, -(-len(self.records) // LIST_PAGE))
        return {k: (str(r["id"]),) for k, r in self.records.items()}, listing_reads(pages, pages)

    def shards(self, key: str, instance_id: str, _time_left: Callable[[], float]) -> int | None:
        r = self.records.get(key)
        return int(r["num_shards"]) if r is not None and r["id"] == instance_id else None

    def stats(self, key: str, _time_left: Callable[[], float]) -> Bucket | None:
        r = self.records.get(key)
        return None if r is None else inputs.bucket_record(r, self.t)

    def user_quota(self, owner: str, _time_left: Callable[[], float]) -> UserQuota | None:
        return user_quota(self.no_quota, owner, self.t)

    def exists(self, oid: str) -> bool:
        return oid in self.index_pool


def polled(
    poll: BucketPoll, reader: SimBuckets, settings: ClusterSettings | None, reshard: ReshardPart | None
) -> BucketsPart:
    """The bucket poll's part at the reader's t, as the sidecar's buckets source makes it, from the
    latest settings and reshard queue read before it."""
    limits, queued = poll_inputs(Thresholds(), settings, reshard)
    return poll.poll(reader.t, reader, limits, queued, no_deadline, reader.exists)
