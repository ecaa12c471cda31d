"""How many times a bucket was resharded, from its index objects' names [000].

From Reef on a reshard keeps the bucket's instance id and counts up the index layout's
generation (`radosgw-admin bucket layout`: `current_index.gen`); neither the Admin Ops API
nor the metadata shows it. The index shard objects carry it in their names, in the
zone's index pool:

    generation 0:  .dir.<bucket id>.<shard>
    generation g:  .dir.<bucket id>.<g>.<shard>

Whether an object exists is one cheap read (a stat) under `osd 'allow r'` on the index
pool, so the generation is found by probing shard 0 of successive generations: the
current one exists, older ones are removed once a reshard completes (multisite may keep
them a while, hence the walk on to the newest). On Pacific a reshard makes a new
instance id and the walk finds generation 0.

Pure: the caller passes `exists(oid) -> bool` (librados stat) and decides which buckets
to probe; `probe_plan` picks them so that the cost per poll stays bounded.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import threading
from collections.abc import Callable, Iterable
from typing import Any

from .snapshot import Bucket, BucketsPart

# At most this many generations are walked past the last known one. RGW's reshard
# thread needs a poll interval or more per reshard, so a gap this wide means a
# bucket we did not see for a very long time; its count then stays a lower bound.
MAX_WALK = 32


def shard0_oid(bucket_id: str, gen: int) -> str:
    return f".dir.{bucket_id}.0" if gen == 0 else f".dir.{bucket_id}.{gen}.0"


def index_generation(exists: Callable[[str], bool], bucket_id: str, known: int = 0) -> int | None:
    """The newest generation whose shard 0 exists, walking up from `known`; None if none does.

    `exists` may raise (refused, timed out): the caller treats that bucket as unprobed."""
    gen = None
    for g in range(known, known + MAX_WALK):
        if exists(shard0_oid(bucket_id, g)):
            gen = g
        elif gen is not None:
            break
    return gen


class ProbeError(RuntimeError):
    pass


def stat_exists(ioctx: Any, pool: str, oid: str, timeout: float) -> bool:
    """Whether `oid` exists, by a python-rados asynchronous stat waited for at most `timeout`:
    without a cap on the pool the OSDs never answer, and a plain stat would wait
    rados_osd_op_timeout. Both producers call it on their own librados handle; keep the
    ioctx open afterwards, a stat given up on may still complete on it."""
    done = threading.Event()
    result: list[int] = []

    def complete(completion: Any, *_: Any) -> None:
        result.append(completion.get_return_value())
        done.set()

    ioctx.aio_stat(oid, complete)
    if not done.wait(timeout):
        raise ProbeError(f"stat of {pool}/{oid}: no answer in {timeout:g}s")
    if result[0] == 0:
        return True
    if result[0] == -errno.ENOENT:
        return False
    raise ProbeError(f"stat of {pool}/{oid}: {os.strerror(-result[0])}")


# bucket key -> (instance id, shard count, generation) as last probed
Probed = dict[str, tuple[str, int, int]]


def probe_plan(buckets: Iterable[Bucket], probed: Probed, budget: int) -> list[Bucket]:
    """The buckets to probe this poll, at most `budget`.

    First those whose instance id or shard count changed since their last probe (a
    reshard, at once), then those never probed, most shards first (a bucket with many
    shards is the likelier to have been resharded). Unchanged buckets keep their
    generation: the cost is a few reads per reshard, plus a one-off sweep of the buckets
    there were when the producer started."""
    changed: list[Bucket] = []
    unknown: list[Bucket] = []
    for b in buckets:
        seen = probed.get(b.key)
        if seen is None:
            unknown.append(b)
        elif seen[0] != b.bucket_id or seen[1] != b.num_shards:
            changed.append(b)
    unknown.sort(key=lambda b: -b.num_shards)
    return (changed + unknown)[: max(0, budget)]


class GenerationProber:
    """Keeps what was probed, and attaches this poll's generations to a bucket part.

    A failed probe (refused, or timed out: a cephx user without the index pool cap gets
    no answer at all) ends this poll's probing, and the next polls skip it, twice as many
    after each failure up to MAX_SKIP: a missing cap costs one bounded wait now and then,
    never the bucket stats themselves."""

    MAX_SKIP = 64

    def __init__(self, budget: int = 1000) -> None:
        self.budget = budget
        self.probed: Probed = {}
        self.failures = 0
        self.skip = 0
        self.error = ""

    def attach(self, part: BucketsPart, exists: Callable[[str], bool]) -> BucketsPart:
        if self.skip > 0:
            self.skip -= 1
            return dataclasses.replace(part, generation_error=self.error)
        gens: dict[str, int] = {}
        error = ""
        # Tentacle's bucket stats carry the generation: nothing to probe for those.
        unknown = [b for b in part.buckets if b.index_gen is None]
        for b in probe_plan(unknown, self.probed, self.budget):
            seen = self.probed.get(b.key)
            start = seen[2] if seen is not None and seen[0] == b.bucket_id else 0
            try:
                gen = index_generation(exists, b.bucket_id, start)
            except Exception as e:
                error = f"{type(e).__name__}: {e}"
                break
            if gen is not None:
                self.probed[b.key] = (b.bucket_id, b.num_shards, gen)
                gens[b.key] = gen
        if error:
            self.failures += 1
            self.skip = min(self.MAX_SKIP, 2 ** (self.failures - 1))
        else:
            self.failures = 0
        self.error = error
        if len(self.probed) > len(part.buckets):  # buckets deleted since
            keys = {b.key for b in part.buckets}
            self.probed = {k: v for k, v in self.probed.items() if k in keys}
        buckets = part.buckets
        if gens:
            buckets = tuple(dataclasses.replace(b, index_gen=gens[b.key]) if b.key in gens else b for b in buckets)
        return dataclasses.replace(part, buckets=buckets, generation_error=error)
