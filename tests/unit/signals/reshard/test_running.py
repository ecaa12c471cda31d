"""A reshard being processed, told apart from one queued on every release: Pacific's queue entry
says it (`new_instance_id`); from Reef on the entry stays unchanged from queueing to removal and
the bucket's read says it (signals/reshard/running.py). The facts come from a reshard caught
while processed on real Reef and Tentacle clusters (tests/fixtures/{reef,tentacle}/
timeline_reshard_running.json, cluster/capture_reshard_running.py)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from ceph_scale.core import inputs
from ceph_scale.core.bucket_poll import BucketPoll
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.index_generation import GenerationProber
from ceph_scale.core.reshard_queue import decode_entry
from ceph_scale.core.signals.reshard.derive import ReshardState
from ceph_scale.core.signals.reshard.running import being_processed
from ceph_scale.core.snapshot import Bucket, BucketsPart, ReshardEntry, ReshardPart, Snapshot
from tests.unit.bucket_reader import FIXTURES, Clock, MemoryBuckets
from tests.unit.test_bucket_poll import INTERVAL, LIM
from tests.unit.test_fixtures import values

NEWER = ("reef", "tentacle")


def captured(release: str, name: str):
    return json.loads((FIXTURES / release / name).read_text())


def index_pool(release: str, name: str) -> set[str]:
    return set((FIXTURES / release / name).read_text().split())


@pytest.mark.parametrize(
    ("release", "name", "resharding"),
    [
        ("tentacle", "bucket_stats.json", False),
        ("tentacle", "bucket_stats_reshard_running.json", True),  # InLogrecord: most of the copy
        ("tentacle", "bucket_stats_reshard_running_inprogress.json", True),  # InProgress: its last moment
        ("tentacle", "admin_api_bucket_stats_reshard_running.json", True),
        ("reef", "bucket_stats_reshard_running.json", False),  # Reef's stats say nothing of it
        ("pacific", "bucket_stats.json", False),
    ],
)
def test_the_captured_stats_say_whether_a_reshard_is_processed(release, name, resharding):
    stats = captured(release, name)
    records = stats if isinstance(stats, list) else [stats]
    assert {inputs.bucket_record(r, 1.0).resharding for r in records} == {resharding}


def test_a_state_rgw_does_not_name_is_a_reshard_under_way_and_a_wrong_type_a_one_line_error():
    """RGW prints "Unknown" for a state it does not know: every state but None is a reshard under
    way, so a new one never fails the poll of every bucket (its bucket is read at every poll)."""
    stats = captured("tentacle", "bucket_stats_reshard_running.json")
    assert inputs.bucket_record({**stats, "reshard_status": "Unknown"}, 1.0).resharding
    assert not inputs.bucket_record({**stats, "reshard_status": "None"}, 1.0).resharding
    with pytest.raises(inputs.InputError, match=r"^bucket_stats\.reshard_status: expected "):
        inputs.bucket_record({**stats, "reshard_status": ["InProgress"]}, 1.0)


@pytest.mark.parametrize("release", NEWER)
def test_reefs_index_pool_during_the_copy_holds_the_next_generation_and_after_it_only_that_one(release):
    """The captured index objects, `rados ls` inside the processing window: generation 0 and 1."""
    bucket_id = captured(release, "bucket_stats_reshard_running.json")["id"]
    during = index_pool(release, "index_objects_reshard_running.txt")
    prober = GenerationProber()
    assert prober.start_poll()
    assert prober.next_exists(during.__contains__, bucket_id, 0) == (True, 1)
    done = {oid for oid in during if oid.startswith(f".dir.{bucket_id}.1.")}  # the old one removed
    assert prober.next_exists(done.__contains__, bucket_id, 1) == (False, 1)
    # A first walk finds generation 1 newest: during the copy the target (a shard past the stats'
    # one, generation 0 still there), once done the current one.
    shards = captured(release, "bucket_stats_reshard_running.json")["num_shards"]
    assert prober.is_target(during.__contains__, bucket_id, 1, shards) == (True, 2)
    assert prober.is_target(done.__contains__, bucket_id, 1, 11) == (False, 1)


@pytest.mark.parametrize("release", ("pacific", *NEWER))
def test_a_queued_bucket_is_in_progress_only_while_processed_and_counts_one_reshard(release):
    """A bucket queued, then processed for two polls, then done: the gauge reads 0, 1, 1, 0, and
    one reshard is counted; on Pacific the queue entry says it, from Reef on the bucket's read."""
    clock, cluster, p = Clock(), MemoryBuckets(Clock(), release), BucketPoll()
    cluster.clock = clock
    for i in range(30):
        cluster.create(f"b{i:05d}", 11, objects=1000)
    state = DerivationState(Thresholds())
    idle = ReshardPart(clock(), ())
    p.poll(clock(), cluster, LIM, frozenset(), lambda: 60.0, cluster.exists)
    first = cluster.probes  # each bucket's generation: 2 stats (0 there, 1 not) where not in its stats

    def entry(in_progress: bool) -> ReshardEntry:
        bucket_id = cluster.buckets["b00007"]["id"]
        return ReshardEntry("b00007", "", bucket_id, 11, 23, in_progress=in_progress and release == "pacific")

    seen = []
    for step in ("queued", "processed", "processed", "done"):
        clock.t += INTERVAL
        if step == "processed":
            cluster.begin_reshard("b00007")
        if step == "done":
            cluster.reshard("b00007", 23, new_instance=release == "pacific")
        queue = ReshardPart(clock(), (entry(step == "processed"),)) if step != "done" else idle
        part = p.poll(clock(), cluster, LIM, frozenset(e.bucket for e in queue.entries), lambda: 60.0, cluster.exists)
        snap = Snapshot(taken_at=clock(), buckets=part, reshard=queue)
        families = derive(snap, state)
        seen.append((values(families, "ceph_scale_rgw_reshard_in_progress")[()], state.of(ReshardState).events))
    assert seen == [(0, 0), (1, 0), (1, 0), (0, 1)], release
    # Then one stat a poll while queued, and the walk to the new generation once done: Reef's from
    # the old one (gone, 1 there, 2 not), Pacific's over its new instance (0 there, 1 not);
    # Tentacle's stats say both.
    assert cluster.probes - first == {"pacific": 3 + 2, "reef": 3 + 3, "tentacle": 0}[release]
    assert dict(part.poll.reads_total)["probe"] == cluster.probes  # type: ignore[union-attr]


def queued_reef_bucket(first_poll_during_the_copy: bool = False):
    clock = Clock()
    cluster, p = MemoryBuckets(clock, "reef"), BucketPoll()
    for i in range(30):
        cluster.create(f"b{i:05d}", 11, objects=1000)
    if first_poll_during_the_copy:
        cluster.begin_reshard("b00007")
    bucket_id = cluster.buckets["b00007"]["id"]
    queue = ReshardPart(clock(), (ReshardEntry("b00007", "", bucket_id, 11, 23),))
    return clock, cluster, p, queue


def processed(p: BucketPoll, cluster: MemoryBuckets, clock: Clock, queue: ReshardPart, exists=None) -> int:
    clock.t += INTERVAL
    part = p.poll(clock(), cluster, LIM, frozenset({"b00007"}), lambda: 60.0, exists or cluster.exists)
    return len(being_processed(queue, part))


def test_a_reef_reshard_already_under_way_at_the_first_poll_is_seen_and_its_generation_is_the_current_one():
    """A fresh start (or a lost state file) during an hours-long reshard: the walk finds the target
    generation newest; its shard past the stats' count and the older generation still there tell
    it is the target."""
    clock, cluster, p, queue = queued_reef_bucket(first_poll_during_the_copy=True)
    assert [processed(p, cluster, clock, queue) for _ in range(3)] == [1, 1, 1]
    assert p.entries["b00007"].bucket.index_gen == 0  # type: ignore[union-attr]
    cluster.reshard("b00007", 23, new_instance=False)
    assert processed(p, cluster, clock, dataclasses.replace(queue, entries=())) == 0
    assert p.entries["b00007"].bucket.index_gen == 1  # type: ignore[union-attr]


def test_a_probe_that_fails_during_a_reef_reshard_keeps_what_was_last_seen_not_a_confident_0():
    """40 minutes of index-pool stats timing out, during one long reshard: it stays in progress (the
    entry still queued, the bucket as it was), and the part says the generations were unreadable."""
    clock, cluster, p, queue = queued_reef_bucket()
    processed(p, cluster, clock, queue)
    cluster.begin_reshard("b00007")

    def timing_out(oid: str) -> bool:
        raise TimeoutError("stat of " + oid)

    seen = [processed(p, cluster, clock, queue)]
    for _ in range(20):
        seen.append(processed(p, cluster, clock, queue, timing_out))
    assert seen == [1] * 21


def test_the_prober_says_unknown_and_stops_when_the_next_generation_cannot_be_read():
    prober = GenerationProber()
    assert prober.start_poll()

    def refused(oid: str) -> bool:
        raise PermissionError("EACCES")

    assert prober.next_exists(refused, "zone.1", 0) == (None, 1)
    assert prober.error.startswith("PermissionError")
    assert prober.next_exists(lambda oid: True, "zone.1", 0) == (None, 0)  # no more this poll
    assert prober.is_target(lambda oid: True, "zone.1", 1, 11) == (None, 0)


def test_a_bucket_of_the_same_name_made_again_is_not_the_queued_one():
    """The queue holds the deleted bucket's instance; the new bucket of that name reshards."""
    part = BucketsPart(1.0, (Bucket("b", "", "zone.2.1", 11, 5, resharding=True),))
    queue = ReshardPart(1.0, (ReshardEntry("b", "", "zone.1.1", 11, 23),))
    assert being_processed(queue, part) == []


def test_at_100000_buckets_only_the_processed_entry_of_40_queued_is_in_progress():
    """The 10B study's 100,000 buckets, 40 of them queued (RGW's queue at that scale is rarely
    empty), one of those processed: one in progress, by its bucket's instance; a bucket of the same
    name in another tenant, resharding, is not taken for it."""
    buckets = [Bucket(f"b{i:06d}", "", f"zone.{i}.1", 11, 100_000, marker=f"zone.{i}.1") for i in range(100_000)]
    buckets[1234] = dataclasses.replace(buckets[1234], resharding=True)
    buckets.append(Bucket("b000007", "acme", "zone.acme.7", 11, 100_000, resharding=True))
    part = BucketsPart(1.0, tuple(buckets))
    queue = ReshardPart(1.0, tuple(ReshardEntry(b.name, "", b.bucket_id, 11, 23) for b in buckets[1200:1240]))
    assert [e.bucket for e in being_processed(queue, part)] == ["b001234"]
    assert being_processed(queue, None) == []
    assert [e.bucket for e in being_processed(dataclasses.replace(queue, entries=queue.entries[:1]), part)] == []


@pytest.mark.parametrize("release", NEWER)
def test_the_queue_entry_of_a_reshard_being_processed_is_the_one_queued(release):
    """The raw omap value RGW keeps while it processes the entry (Tentacle's adds its initiator):
    it says nothing of the processing, so the bucket's read must."""
    raw = (FIXTURES / release / "reshard_entry_reshard_running.bin").read_bytes()
    entry = decode_entry(raw)
    listed = captured(release, "reshard_list_reshard_running.json")[0]
    assert (entry.bucket, entry.bucket_id, entry.old_num_shards, entry.new_num_shards) == (
        listed["bucket_name"], listed["bucket_id"], listed["old_num_shards"], listed["tentative_new_num_shards"]
    )  # fmt: skip
    assert not entry.in_progress
    assert inputs.reshard_part(captured(release, "reshard_list_reshard_running.json"), 1.0).entries == (entry,)
