"""Which records of a bucket part the reshard count must look at: those the bucket poll made
anew since the part before.

The bucket poll (core/bucket_poll.py) hands the same Bucket record again for every bucket it did
not read, ~99 % of them a poll, in its table's order (new buckets last, a deleted one's place
closed up). The records are compared place by place first, which costs one step a bucket; a part
out of step with the one before (a bucket deleted or created) is told apart by identity, as a set.
"""

from __future__ import annotations

from ...snapshot import Bucket

# Past this share of places holding another record, the parts are out of step: a set is cheaper.
OUT_OF_STEP = 0.125


def to_look_at(before: tuple[Bucket, ...], now: tuple[Bucket, ...]) -> tuple[list[Bucket], bool]:
    """The records of `now` that are not in `before` (by identity) or carry no read time (such a
    record's read counts as the poll's, which moves); and True when `now` is known to hold exactly
    the keys of `before` (False: not known)."""
    if len(before) == len(now):
        placed = [(a, b) for a, b in zip(before, now) if a is not b or not b.stats_at]
        if len(placed) <= OUT_OF_STEP * len(now):
            return [b for _, b in placed], all(a.key == b.key for a, b in placed)
    kept = set(map(id, before))
    return [b for b in now if id(b) not in kept or not b.stats_at], False
