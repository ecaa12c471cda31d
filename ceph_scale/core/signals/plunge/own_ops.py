"""A resharding bucket's own ops: what confirms or rules out its reshard as a plunge's cause.

A reshard holds its bucket's writes [000]; it made the cluster's drop only if that bucket's own
ops fell. The reshard source carries the queued (and lately queued) buckets' per-bucket op
counters where the RGWs keep them (core/queued_bucket_ops.py: the manager's labeled calls, Tentacle
with `rgw_bucket_counters_cache` on). A bucket's ops are judged as its share of its RGWs' ops,
read in the same pass (their `rgw_op` totals), so that clients switching from writes to reads do
not read as the bucket's writes falling, and both counts are of one moment. Counts are summed over
the RGWs as increases: one RGW restarting (its counters from 0 again) or evicting the bucket from
its cache loses only that poll's ops. Over the evidence's own interval, against the bucket's usual
share (the median of its intervals over the baseline before this reshard was first judged, none of
them its own):

- confirmed: the bucket's share of an op the clients still ask fell by at least
  `plunge_drop_ratio`, and by more than its usual swing (SWING_SPREADS robust standard deviations
  of its usual intervals' shares, where there are MIN_SWING_INTERVALS of them): a bucket whose
  rate moves 15 % from poll to poll falls 20 % by chance at about one poll in 14;
- ruled out: its share of none of those ops fell by `plunge_drop_ratio`, one of them at least
  judged; a fall past that but within the usual swing is unconfirmed, and said so;
- an op is judged only where the bucket would have served MIN_EXPECTED_OPS of it over the interval
  at its usual share: fewer, and chance moves a share by more than the drop looked for;
- unconfirmed, and said why: the counters were not read (the sidecar without the module, Reef's
  manager, the option off: an idle bucket has no counters either, RGW makes them at its first op),
  or not for this bucket (a tenant's, past the buckets read, not counted over a usual interval
  before), or too few of its ops to judge, or none of the ops asked now asked over a usual interval
  (clients that switched from reads to writes).
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

from ...queued_bucket_ops import ALL_BUCKETS, TENANTED
from ...snapshot import ReshardPart

OPS = ("put", "get")
# Ops a bucket must have served over an interval at its usual share for a fall to be judged: a
# Poisson count of 400 moves by 5 % (one standard deviation), a quarter of the 20 % drop looked for
# (at 100, a bucket whose share held read as fallen at 1 % of polls).
MIN_EXPECTED_OPS = 400
# A fall is confirmed only past this many robust standard deviations (1.4826 x the median absolute
# deviation) of the bucket's usual shares, relative to their median: where its shares vary
# normally, one interval in 30,000 falls that far by chance, and half the bucket's level is
# confirmed as held for a bucket whose rate moves up to 12 % a poll (at 3 deviations, 0.25 % of
# a 15 %-bursty bucket's polls were confirmed by chance, the deviation being estimated from 30).
SWING_SPREADS = 4.0
# Fewer usual intervals than this tell no swing (a median absolute deviation of 2 or 3 is noise):
# the fall is judged against `plunge_drop_ratio` alone, as a Poisson count of MIN_EXPECTED_OPS.
MIN_SWING_INTERVALS = 8
# A bucket judged again within this long of its last judgement is the same reshard (reshard polls
# are a minute apart): its usual share stays the one from before that reshard was first judged.
SAME_RESHARD = 300.0
Point = tuple[float, float, float, float, float]  # t, the bucket's PUTs and GETs, the cluster's


@dataclass(frozen=True)
class Verdict:
    confirmed: bool | None  # None: not known
    text: str  # what was seen, to follow the reshard's evidence


class Increases:
    """Counters of several sources summed as increases: a source's counter going back counts from
    0 (a restart), a source first seen adds nothing yet."""

    def __init__(self) -> None:
        self.last: dict[object, tuple[int, int]] = {}
        self.total = [0.0, 0.0]

    def add(self, counts: Iterable[tuple[object, int, int]]) -> tuple[float, float]:
        seen = {}
        for key, put, get in counts:
            seen[key] = (put, get)
            before = self.last.get(key)
            if before is not None:
                for i, now in enumerate((put, get)):
                    self.total[i] += now - before[i] if now >= before[i] else now
        self.last = seen
        return self.total[0], self.total[1]


class OwnOps:
    def __init__(self, keep: float, baseline: float, drop_ratio: float) -> None:
        self.keep, self.baseline, self.drop_ratio = keep, baseline, drop_ratio
        self.buckets: dict[str, Increases] = {}
        self.their_rgws: dict[str, Increases] = {}  # bucket -> the totals of the RGWs that count it
        self.points: dict[str, deque[Point]] = {}  # bucket -> its counts and the cluster's, at each read
        self.unread = "no reshard queue read yet"
        self.seen_at = 0.0
        self.counted: tuple[int, int] = (0, 0)  # buckets, RGWs at the last read
        self.counts_now: dict[str, dict[str, int]] = {}
        self.judged: dict[str, tuple[float, float]] = {}  # bucket -> (first, last) start judged

    def observe(self, part: ReshardPart) -> None:
        """The queue's bucket counts, beside their RGWs' totals read with them."""
        if part.collected_at <= self.seen_at:
            return
        t = self.seen_at = part.collected_at
        self.unread = part.bucket_ops_unread
        by_bucket: dict[str, list[tuple[object, int, int]]] = {}
        for o in part.bucket_ops:
            by_bucket.setdefault(o.bucket, []).append((o.rgw, o.put, o.get))
        totals = by_bucket.pop(ALL_BUCKETS, [])
        self.counted = (len(by_bucket), len(totals))
        self.counts_now = {
            b: {"put": sum(c[1] for c in counts), "get": sum(c[2] for c in counts)}
            for b, counts in sorted(by_bucket.items())
        }
        by_rgw = {rgw: (put, get) for rgw, put, get in totals}
        for bucket, counts in by_bucket.items():
            # Its share of the ops of the RGWs that count it, each from the same poll on (an RGW
            # first seen adds nothing to either): RGWs serving other buckets, or a cache that
            # evicted it on some, do not move its share.
            mine = [(rgw, *by_rgw[rgw]) for rgw, _, _ in counts if rgw in by_rgw]
            cput, cget = self.their_rgws.setdefault(bucket, Increases()).add(mine)
            put, get = self.buckets.setdefault(bucket, Increases()).add(c for c in counts if c[0] in by_rgw)
            self.points.setdefault(bucket, deque()).append((t, put, get, cput, cget))
        for bucket in [b for b, points in self.points.items() if points[-1][0] < t - self.keep]:
            del self.points[bucket], self.buckets[bucket], self.their_rgws[bucket]
        for points in self.points.values():
            while points and points[0][0] < t - self.keep:
                points.popleft()
        # A bucket judged longer ago than the polls are kept begins a new reshard when judged again
        # (SAME_RESHARD is shorter): at 100,000 buckets another is judged at nearly every poll.
        self.judged = {b: spans for b, spans in self.judged.items() if spans[1] >= t - self.keep}

    def summary(self) -> str:
        """Whether a reshard named as a cause is confirmed, for the status."""
        if self.unread:
            return f"reshards named unconfirmed: {self.unread}"
        buckets, rgws = self.counted
        return f"reshards confirmed by their buckets' own ops: {buckets} bucket(s) counted on {rgws} RGW(s)"

    def judge(self, key: str, start: float, end: float, usual_end: float) -> Verdict:
        """The bucket's (`tenant/name`, or its name) share of the cluster's ops over [start, end]
        against its usual share before `usual_end`."""
        tenant, _, bucket = key.rpartition("/")
        if self.unread:
            return Verdict(None, f"its own ops unconfirmed: {self.unread}")
        if tenant:
            return Verdict(None, f"its own ops unconfirmed: {TENANTED}")
        first, last = self.judged.get(bucket, (start, start))
        if start - last > SAME_RESHARD:
            first = start
        self.judged[bucket] = (min(first, start), max(last, start))
        usual_end = min(usual_end, first)
        points = list(self.points.get(bucket, ()))
        before = [p for p in points if p[0] <= start]
        after = [p for p in points if start < p[0] <= end]
        usual = [(a, b) for a, b in zip(points, points[1:]) if usual_end - self.baseline < b[0] <= usual_end]
        if not before or not after or not usual:
            return Verdict(None, "its own ops unconfirmed: not counted over the interval and a usual one before")
        a, b = before[-1], after[-1]
        fell: dict[str, tuple[float, float, float, float]] = {}  # op -> (fall, usual share, now, swing)
        few = False
        for i, op in enumerate(OPS):
            asked = b[3 + i] - a[3 + i]
            shares = [s for x, y in usual if (s := _share(x, y, i)) is not None]
            now = _share(a, b, i)
            if now is None or not shares:
                continue  # not asked now, or not over a usual interval: not judged
            was = statistics.median(shares)
            if was * asked < MIN_EXPECTED_OPS:
                few = True
                continue
            fell[op] = (1 - now / was, was, now, _swing(shares, was))
        if few and not fell:
            return Verdict(None, f"its own ops unconfirmed: fewer than {MIN_EXPECTED_OPS} to judge")
        if not fell:
            # Clients that switched from reads to writes as the bucket began to reshard: nothing
            # its share could show is known, which rules out nothing.
            return Verdict(None, "its own ops unconfirmed: none of the ops asked now was asked over a usual interval")
        # The op that fell most past the drop and its swing, else the one that fell most.
        op = max(fell, key=lambda o: (self.drop_ratio <= fell[o][0] > fell[o][3], fell[o][0], o))
        fall, was, now, swing = fell[op]
        if fall < self.drop_ratio:
            return Verdict(False, "")
        seen = f"its share of the {op.upper()}s fell from {_pct(was)} to {_pct(now)}"
        if fall <= swing:
            return Verdict(None, f"its own ops unconfirmed: {seen}, within its usual swing of {swing:.0%}")
        return Verdict(True, seen)


def _swing(shares: list[float], was: float) -> float:
    """How far the bucket's share falls by chance, relative to its median `was`: SWING_SPREADS robust
    standard deviations of its usual intervals' shares; 0 where too few intervals tell it."""
    if len(shares) < MIN_SWING_INTERVALS:
        return 0.0
    mad = statistics.median(abs(s - was) for s in shares)
    return SWING_SPREADS * 1.4826 * mad / was


def _share(a: Point, b: Point, op: int) -> float | None:
    """The bucket's share of the cluster's ops of OPS[op] between two points; None: the cluster had none."""
    cluster = b[3 + op] - a[3 + op]
    return (b[1 + op] - a[1 + op]) / cluster if cluster > 0 else None


def _pct(share: float) -> str:
    return f"{share:.1%}" if 0 < abs(share) < 0.1 else f"{share:.0%}"
