"""A reshard that holds the writes past the baseline, with the reshard queue and the bucket poll
read on their own intervals (the sidecar's defaults: the queue every 60 s, the buckets every
120 s, the RGW counters every 15 s), at the study's scale (tests/unit/study_rounds.py). A held
plunge needs its cause seen as it began; these are the cases where that is seen later than the
plunge's start: a start backdated to an earlier small dip, a cause whose first poll comes a
minute or two after the drop was read, more buckets being processed than the evidence tells."""

from __future__ import annotations

import dataclasses

import pytest

from ceph_scale.core.snapshot import Bucket, BucketsPart, ReshardEntry, ReshardPart, Snapshot
from tests.unit.signals.plunge.test_plunge_study import LONG_RESHARD, RESHARD_STALL, RESHARDING, plunge_spans
from tests.unit.study_rounds import PUT, StudyCluster

WRITTEN = RESHARDING[0].bucket


class Polled(StudyCluster):
    """The reshard queue every `queue_every` s and the buckets every `buckets_every` s, at their
    phases; between their polls a snapshot carries the last read part, as the sidecar's does."""

    def __init__(self, queue_phase: float = 0.0, buckets_phase: float = 0.0, buckets: bool = False) -> None:
        super().__init__()
        self.queue_every, self.queue_phase = 60.0, queue_phase
        self.buckets_every, self.buckets_phase = 120.0, buckets_phase
        self.bucket = Bucket(WRITTEN, "", "zone.0", 16, 800_000, marker="zone.0", index_gen=1) if buckets else None
        self.others = tuple(Bucket(f"b{i}", "", f"zone.b{i}", 11, 1000, marker=f"zone.b{i}") for i in range(50))
        self.queue: ReshardPart | None = None
        self.buckets: BucketsPart | None = None

    def snapshot(self) -> Snapshot:
        snap, t = super().snapshot(), self.t
        if self.queue is None or (t - self.queue_phase) % self.queue_every == 0:
            self.queue = ReshardPart(t, self.resharding)
        if self.bucket is not None and (self.buckets is None or (t - self.buckets_phase) % self.buckets_every == 0):
            self.buckets = BucketsPart(t, (self.bucket, *self.others))
        return dataclasses.replace(snap, reshard=self.queue, buckets=self.buckets)


def held_to_its_end(c: StudyCluster, start: float, end: float) -> None:
    spans = [(on, off) for on, off in plunge_spans(c) if off > start]
    assert len(spans) == 1, [(on - start, off - start) for on, off in spans]
    on, off = spans[0]
    assert on - start <= 120 and end < off <= end + 120, (on - start, off - end)


@pytest.mark.parametrize("dip_before", [180, 600])
def test_a_reshard_after_a_small_dip_that_began_the_plunge_holds_it(dip_before):
    """One poll at -40 %, then the PUTs 15 % slow (under the threshold, over half of it), and the
    written bucket's 53-minute reshard `dip_before` seconds later: the plunge is read as the reshard
    halves the PUTs, its start backdated to the dip. The reshard made it, and holds it to its end."""
    c = Polled()
    c.run(2400, PUT)
    c.run(15, dataclasses.replace(PUT, slowdown=1 / 0.6))
    c.run(dip_before - 15, dataclasses.replace(PUT, slowdown=1 / 0.85))
    c.resharding = RESHARDING
    start = c.t
    c.run(LONG_RESHARD, RESHARD_STALL)
    c.resharding = ()
    end = c.t
    c.run(600, PUT)
    held_to_its_end(c, start, end)
    assert c.plunges() == {"reshard": 1}


@pytest.mark.parametrize("queue_phase", [0, 15, 30, 45])
def test_on_reef_a_reshard_seen_through_the_bucket_poll_holds_the_plunge(queue_phase):
    """Reef's queue entry does not say it is processed: the bucket poll (every 120 s) reads the
    bucket resharding, and the queue's next poll (every 60 s) names it. Its first evidence comes
    up to 165 s after the reshard began, past the drop's being read."""
    queued = (dataclasses.replace(RESHARDING[0], in_progress=False),)
    c = Polled(queue_phase=queue_phase, buckets=True)
    c.run(1800, PUT)
    c.resharding = queued
    c.run(600, PUT)
    assert c.bucket is not None
    c.bucket = dataclasses.replace(c.bucket, resharding=True)
    start = c.t
    c.run(LONG_RESHARD, RESHARD_STALL)
    c.resharding = ()
    c.bucket = dataclasses.replace(c.bucket, resharding=False, num_shards=32, index_gen=2)
    end = c.t
    c.run(300, PUT)
    held_to_its_end(c, start, end)


def test_the_written_bucket_behind_more_reshards_than_are_told_holds_the_plunge():
    """24 small buckets ahead of the written one in the queue, done within two minutes: the evidence
    tells the first 20, and the written bucket's 53-minute reshard, 25th, still holds the plunge."""
    small = tuple(ReshardEntry(f"a-small-{i:02d}", "", f"zone.s{i}", 11, 23, True) for i in range(24))
    c = Polled()
    c.run(2400, PUT)
    start = c.t
    c.resharding = small + RESHARDING
    c.run(120, RESHARD_STALL)
    c.resharding = RESHARDING
    c.run(LONG_RESHARD - 120, RESHARD_STALL)
    c.resharding = ()
    end = c.t
    c.run(300, PUT)
    held_to_its_end(c, start, end)
