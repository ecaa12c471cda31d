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

Pure: the caller passes `exists(oid) -> bool` (librados stat, io/rados_reads.stat_exists);
the bucket poll (core/bucket_poll.py) decides which buckets to probe, within its budget of reads.
"""

from __future__ import annotations

from collections.abc import Callable

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


class GenerationProber:
    """Probes generations for the bucket poll (core/bucket_poll.py), which decides which
    buckets and within what budget; this counts the reads and handles failures.

    A failed probe (refused, or timed out: a cephx user without the index pool cap gets
    no answer at all) ends this poll's probing, and the next polls skip it, twice as many
    after each failure up to MAX_SKIP: a missing cap costs one bounded wait now and then,
    never the bucket stats themselves."""

    MAX_SKIP = 64

    def __init__(self) -> None:
        self.failures = 0
        self.skip = 0
        self.error = ""
        self._started = False  # this poll may probe
        self._probing = False  # ... and no probe of it failed yet

    def start_poll(self) -> bool:
        """Whether this poll may probe; False while backing off after a failure."""
        if self.skip > 0:
            self.skip -= 1
            self._started = self._probing = False
            return False
        self._started = self._probing = True
        self.error = ""
        return True

    def probe(self, exists: Callable[[str], bool], bucket_id: str, known: int = 0) -> tuple[int | None, int]:
        """(the bucket's generation, or None if unknown, and the stats it took)."""
        if not self._probing:
            return None, 0
        reads = 0

        def counted(oid: str) -> bool:
            nonlocal reads
            reads += 1
            return exists(oid)

        try:
            return index_generation(counted, bucket_id, known), reads
        except Exception as e:
            self.error = f"{type(e).__name__}: {e}"
            self._probing = False
            return None, reads

    def next_exists(self, exists: Callable[[str], bool], bucket_id: str, gen: int) -> tuple[bool | None, int]:
        """(whether shard 0 of generation `gen` + 1 exists, or None if unknown; the stats it took).
        From Reef on, a reshard being processed has built its target generation beside the
        current one, which it removes once done (tests/fixtures/reef/timeline_reshard_running.json)."""
        if not self._probing:
            return None, 0
        try:
            return exists(shard0_oid(bucket_id, gen + 1)), 1
        except Exception as e:
            self.error = f"{type(e).__name__}: {e}"
            self._probing = False
            return None, 1

    def is_target(
        self, exists: Callable[[str], bool], bucket_id: str, gen: int, shards: int
    ) -> tuple[bool | None, int]:
        """(whether generation `gen`, the newest found, is a reshard's target still being built
        rather than the current index, or None if unknown; the stats it took). The bucket's stats
        count the current generation's `shards`: a newest generation with a shard past them, its
        older one still there, is the target of a reshard up (a reshard down, which RGW makes only
        after days, is not told apart: its bucket reads as queued)."""
        if not self._probing or gen < 1:
            return None, 0
        reads = 0
        try:
            for oid in (f".dir.{bucket_id}.{gen}.{shards}", shard0_oid(bucket_id, gen - 1)):
                reads += 1
                if not exists(oid):
                    return False, reads
            return True, reads
        except Exception as e:
            self.error = f"{type(e).__name__}: {e}"
            self._probing = False
            return None, reads

    def end_poll(self) -> None:
        if not self._started:
            return
        if self.error:
            self.failures += 1
            self.skip = min(self.MAX_SKIP, 2 ** (self.failures - 1))
        else:
            self.failures = 0
        self._started = self._probing = False
