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


def test_a_reshard_state_no_release_gives_is_a_one_line_input_error():
    stats = captured("tentacle", "bucket_stats_reshard_running.json")
    with pytest.raises(inputs.InputError, match=r"^bucket_stats\.reshard_status: 'Done' is none of None, "):
        inputs.bucket_record({**stats, "reshard_status": "Done"}, 1.0)
    with pytest.raises(inputs.InputError, match=r"reshard_status"):
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
