"""The buckets' index shards over the span: the scenario's own reshards, and RGW's dynamic ones.

Dynamic resharding as the study's RGW did it [000]: a bucket past `shards x
rgw_max_objs_per_shard` objects joins the reshard queue asking for objects x 2 / the limit
shards (16 -> 32 -> ... -> 512 as one bucket grew to 30 M objects); the reshard thread takes the
queue every `thread_interval` and copies the index entries at `entries_per_second`, while the
bucket's writes wait. A reshard event of the scenario is queued at `at` and done `for` later,
its last `running` seconds in progress.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bench import synth
from replay.scenario import Cluster

MAX_DYNAMIC_SHARDS = 1999  # rgw_max_dynamic_shards


@dataclass
class Reshard:
    bucket: int
    old_shards: int
    new_shards: int
    queued_at: float
    start: float | None = None  # in progress from here
    end: float | None = None  # done at


class BucketIndexes:
    """Each bucket's shards at the times `update` is given, in order."""

    def __init__(self, spec: Cluster, start: float) -> None:
        self.spec, self.begin = spec, start
        self.shards = list(spec.shards)
        self.generation = [0] * spec.buckets  # reshards done: each a new bucket instance
        self.reshards: list[Reshard] = []
        for e in spec.events:
            if e.kind == "reshard":
                self.reshards.append(
                    Reshard(
                        e.bucket,
                        0,
                        e.shards,
                        start + e.at,
                        start + e.at + e.duration - e.running,
                        start + e.at + e.duration,
                    )
                )
        self.now = start

    def update(self, t: float, objects: list[int]) -> None:
        """Move to t, with each bucket's objects then."""
        self.now = t
        for r in self.reshards:
            if not r.old_shards and r.queued_at <= t:
                r.old_shards = self.shards[r.bucket]
            if r.end is not None and r.end <= t and r.old_shards and self.shards[r.bucket] == r.old_shards:
                self.shards[r.bucket] = r.new_shards
                self.generation[r.bucket] += 1
        dynamic = self.spec.dynamic_reshard
        if dynamic is None:
            return
        interval, rate = dynamic
        waiting = {r.bucket for r in self.reshards if r.end is None or r.end > t}
        for b, n in enumerate(objects):
            limit = self.shards[b] * synth.SHARD_LIMIT
            if b not in waiting and n > limit and self.shards[b] < MAX_DYNAMIC_SHARDS:
                wanted = min(MAX_DYNAMIC_SHARDS, n * 2 // synth.SHARD_LIMIT)
                self.reshards.append(Reshard(b, self.shards[b], wanted, t))
        # The reshard thread's last pass, every `interval` from the span's start: it took what was queued.
        tick = self.begin + (t - self.begin) // interval * interval
        for r in self.reshards:
            if r.start is None and r.queued_at <= tick:
                r.start, r.end = tick, tick + math.ceil(objects[r.bucket] / rate)

    def running(self, t: float) -> set[int]:
        """The buckets being resharded at t: their writes wait."""
        return set(self.processing(t))

    def processing(self, t: float) -> dict[int, int]:
        """The buckets being resharded at t, with the shards each is resharded to."""
        under_way = (r for r in self.reshards if r.start is not None and r.start <= t < (r.end or math.inf))
        return {r.bucket: r.new_shards for r in under_way}

    def queue(self) -> list[Reshard]:
        """The reshard queue now: queued and not done."""
        return [r for r in self.reshards if r.queued_at <= self.now and (r.end is None or self.now < r.end)]
