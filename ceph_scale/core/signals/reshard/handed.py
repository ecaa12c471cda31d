"""Which records of a bucket part the bucket signals must look at: those the bucket poll made
anew since the part before.

The bucket poll (core/bucket_poll.py) hands the same Bucket record again for every bucket it did
not read, ~99 % of them a poll, in its table's order (new buckets last, a deleted one's place
closed up). The records are compared place by place, which costs one step a bucket, a block at a
time: a part out of step with the one before (a bucket deleted or created) is found within the
first blocks past OUT_OF_STEP of places, and costs no more than the signals' full passes.
"""

from __future__ import annotations

from ...snapshot import Bucket

# Past this share of places holding another record, the parts are out of step.
OUT_OF_STEP = 0.125
_BLOCK = 8192
_SAMPLES = 32


def in_step(before: tuple[Bucket, ...], now: tuple[Bucket, ...]) -> tuple[list[Bucket], bool] | None:
    """When `now` holds `before`'s records in their places but for at most OUT_OF_STEP of them:
    the records of `now` in other places than before's, or with no read time (such a record's read
    counts as the poll's, which moves), and whether `now` holds exactly `before`'s keys. Else None."""
    if len(before) != len(now) or not now:
        return None
    most = OUT_OF_STEP * len(now)
    # A first look at evenly spread places: a bucket deleted before the last quarter shows here.
    step = max(1, len(now) // _SAMPLES)
    if sum(before[i] is not now[i] for i in range(0, len(now), step)) * step > 2 * most:
        return None
    placed: list[tuple[Bucket, Bucket]] = []
    for at in range(0, len(now), _BLOCK):
        placed += [
            (a, b) for a, b in zip(before[at : at + _BLOCK], now[at : at + _BLOCK]) if a is not b or not b.stats_at
        ]
        if len(placed) > most:
            return None
    return [b for _, b in placed], all(a.key == b.key for a, b in placed)


def to_look_at(before: tuple[Bucket, ...], now: tuple[Bucket, ...]) -> tuple[list[Bucket], bool]:
    """The records of `now` that are not in `before` (by identity) or carry no read time; and True
    when `now` is known to hold exactly the keys of `before` (False: not known). Parts out of step
    are told apart by identity, as a set."""
    found = in_step(before, now)
    if found is not None:
        return found
    kept = set(map(id, before))
    return [b for b in now if id(b) not in kept or not b.stats_at], False
