"""Each bucket's object growth from two reference reads, at a fixed cost whatever the number
of buckets (the reshard signal's predictions; the tenants signal's byte growth)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator

from ...snapshot import Bucket
from .handed import in_step

# A bucket's rate from its latest read, its reference read and the seconds between; None: no rate.
RateOf = Callable[[Bucket, Bucket, float], "float | None"]


def object_rate(b: Bucket, ref: Bucket, span: float) -> float | None:
    """Objects per second, of a bucket that grew."""
    return (b.num_objects - ref.num_objects) / span if b.num_objects > ref.num_objects else None


class BucketGrowth:
    """Object growth of every bucket from two reference reads, not a series per bucket.

    100,000+ buckets cannot each keep a history; two references, the older between half
    a window and a window old, give each bucket's mean growth over that span at the cost
    of two dicts of the (shared) bucket records. Each record carries the time its stats
    were read (the bucket poll reads buckets on their own schedules), so a rate is the
    growth between two reads of that bucket, over the time between them. A bucket first
    seen since the newer reference joins it, so a new bucket filling fast is predicted
    at once.

    The bucket poll hands the same record again for ~99 % of the buckets a poll: such a
    record keeps what the last call found of it, under the same references (a reference
    only ever gains buckets first seen, whose own record then gives no span), so only the
    others are looked at (handed.in_step).
    """

    def __init__(self, window: float) -> None:
        self.window = window
        # (time of the reference, bucket key -> its record then)
        self.older: tuple[float, dict[str, Bucket]] | None = None
        self.newer: tuple[float, dict[str, Bucket]] | None = None
        self._observed: tuple[Bucket, ...] = ()  # the buckets observe last looked at
        # The last rates: (their rate_of, the references then, of which buckets, key -> rate).
        self._last: tuple[RateOf, object, object, tuple[Bucket, ...], dict[str, float]] | None = None

    def observe(self, t: float, buckets: tuple[Bucket, ...]) -> None:
        if self.newer is not None and t <= self.newer[0]:
            return
        if self.newer is None or t - self.newer[0] >= self.window / 2:
            self.older = self.newer
            self.newer = (t, {b.key: b for b in buckets})
            self._observed = buckets
            return
        known = self.newer[1]
        found = in_step(self._observed, buckets)  # a record handed again has its key known
        self._observed = buckets
        for b in buckets if found is None else found[0]:
            if b.key not in known:  # first seen now: its growth counts from now
                known[b.key] = b if b.stats_at else dataclasses.replace(b, stats_at=t)

    def span(self, t: float) -> float:
        """History behind the rates: back to the older reference where there is one."""
        ref = self.older or self.newer
        return t - ref[0] if ref is not None else 0.0

    def pairs(self, t: float, buckets: Iterable[Bucket]) -> Iterator[tuple[Bucket, Bucket, float]]:
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

    def kept_rates(self, t: float, buckets: tuple[Bucket, ...], rate_of: RateOf) -> dict[str, float]:
        """{key: rate_of(bucket, its reference read, span)} of each bucket with a reference read
        and a rate; the records handed again since the last call, under the same references,
        keep theirs (or their lack of one). The dict is the last call's, brought up to date: it
        is the caller's until the next call."""
        last = self._last
        if last is not None and last[0] is rate_of and last[1] is self.older and last[2] is self.newer:
            found = in_step(last[3], buckets)
            if found is not None and found[1]:
                out = last[4]
                for b in found[0]:
                    out.pop(b.key, None)
                out.update(self._rates_among(t, found[0], rate_of))
                self._last = (rate_of, self.older, self.newer, buckets, out)
                return out
        out = self._rates_among(t, buckets, rate_of)
        self._last = (rate_of, self.older, self.newer, buckets, out)
        return out

    def _rates_among(self, t: float, buckets: Iterable[Bucket], rate_of: RateOf) -> dict[str, float]:
        return {b.key: rate for b, ref, span in self.pairs(t, buckets) if (rate := rate_of(b, ref, span)) is not None}

    def rates(self, t: float, buckets: tuple[Bucket, ...]) -> dict[str, float]:
        """Objects per second of each bucket that grew since its reference read."""
        return self.kept_rates(t, buckets, object_rate)
