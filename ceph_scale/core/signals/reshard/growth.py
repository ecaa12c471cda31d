"""Each bucket's object growth from two reference reads, at a fixed cost whatever the number
of buckets (the reshard signal's predictions; the tenants signal's byte growth)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ...snapshot import Bucket


class BucketGrowth:
    """Object growth of every bucket from two reference reads, not a series per bucket.

    100,000+ buckets cannot each keep a history; two references, the older between half
    a window and a window old, give each bucket's mean growth over that span at the cost
    of two dicts of the (shared) bucket records. Each record carries the time its stats
    were read (the bucket poll reads buckets on their own schedules), so a rate is the
    growth between two reads of that bucket, over the time between them. A bucket first
    seen since the newer reference joins it, so a new bucket filling fast is predicted
    at once.
    """

    def __init__(self, window: float) -> None:
        self.window = window
        # (time of the reference, bucket key -> its record then)
        self.older: tuple[float, dict[str, Bucket]] | None = None
        self.newer: tuple[float, dict[str, Bucket]] | None = None

    def observe(self, t: float, buckets: tuple[Bucket, ...]) -> None:
        if self.newer is not None and t <= self.newer[0]:
            return
        if self.newer is None or t - self.newer[0] >= self.window / 2:
            self.older = self.newer
            self.newer = (t, {b.key: b for b in buckets})
            return
        known = self.newer[1]
        for b in buckets:
            if b.key not in known:  # first seen now: its growth counts from now
                known[b.key] = b if b.stats_at else dataclasses.replace(b, stats_at=t)

    def span(self, t: float) -> float:
        """History behind the rates: back to the older reference where there is one."""
        ref = self.older or self.newer
        return t - ref[0] if ref is not None else 0.0

    def pairs(self, t: float, buckets: tuple[Bucket, ...]) -> Iterator[tuple[Bucket, Bucket, float]]:
        """(bucket, its reference read, seconds from that read to its latest) of each bucket with
        one: the older reference where it has an earlier read of the bucket (half a window to a
        window back), else the newer."""
        refs = [(at, known) for at, known in (self.older or (0.0, {}), self.newer or (0.0, {})) if known]
        for b in buckets:
            now, key = b.stats_at or t, b.key
            for at, known in refs:
                before = known.get(key)
                if before is not None and (span := now - (before.stats_at or at)) > 0:
                    yield b, before, span
                    break

    def rates(self, t: float, buckets: tuple[Bucket, ...]) -> dict[str, float]:
        """Objects per second of each bucket that grew since its reference read."""
        return {b.key: (b.num_objects - ref.num_objects) / span for b, ref, span in self.pairs(t, buckets)
                if b.num_objects > ref.num_objects}  # fmt: skip
