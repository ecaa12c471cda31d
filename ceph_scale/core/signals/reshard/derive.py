"""RGW dynamic bucket resharding [000, 004].

A completed reshard shows in the bucket's index: from Reef on the index layout's
generation counts up by one per reshard (exact, several between two polls
included; see core/index_generation.py), while Pacific gives the bucket a new
instance id and keeps the first one as its marker (one observed change per poll at
most: Pacific removes the old instances). A bucket whose marker changed was deleted
and created again, which is not a reshard. A bucket first seen already resharded
counts its reshards only if it was created after the producer began watching (the
watch start is durable). The bucket table is state that must survive restarts, or
a reshard that completes while the producer is down is lost; it is kept compact so
100,000+ buckets stay cheap.
"""

from __future__ import annotations

import heapq
import math
from bisect import bisect_left
from collections import deque
from operator import attrgetter
from typing import Any

from ...config import Thresholds
from ...families import Family, counter, gauge, histogram
from ...inputs import InputError, parse_stamp
from ...saved_rows import Dropped, as_count, as_time, read_rows, read_value
from ...snapshot import Bucket
from ...top_k import top_k
from ..signal_input import SignalInput
from .growth import BucketGrowth
from .handed import to_look_at
from .result import BucketEta, BucketShards, ReshardResult, TopBucket
from .running import being_processed

# Upper bounds of the shard-fill histogram, in shares of the per-shard limit.
FILL_BUCKETS = (0.1, 0.25, 0.5, 0.75, 0.8, 0.9, 1.0, 1.5, 2.0, math.inf)

UNKNOWN_GEN = -1
# A bucket seen resharding without its generation (Reef's shard count, the index pool unread):
# resharded at least once, at an unknown generation.
RESHARDED_GEN_UNKNOWN = -2
RECENT_EVENTS = 50
# What the count keeps of a bucket: marker, instance id, num_shards, index generation (or
# UNKNOWN_GEN, RESHARDED_GEN_UNKNOWN), and the read time of the stats that last changed these (not of the latest
# read: the table is durable, and a time that moved at every poll would rewrite it each time).
Record = tuple[str, str, int, int, float]
# The record of a saved row that did not read: the bucket's next sight takes its place, counting nothing.
UNREAD_ROW: Record = ("", "", 0, UNKNOWN_GEN, 0.0)
_KEY = attrgetter("key")
_OBJECTS = attrgetter("num_objects")


def created_at(b: Bucket) -> float | None:
    try:
        return parse_stamp(b.created, "creation_time") if b.created else None
    except InputError:
        return None


def resharded_ever(b: Bucket, gen: int) -> bool:
    return gen > 0 or gen == RESHARDED_GEN_UNKNOWN or bool(b.marker and b.marker != b.bucket_id)


class ReshardState:
    def __init__(self, th: Thresholds | None = None) -> None:  # counts that no threshold changes
        self.events = 0
        self.seen_at = 0.0
        self.watch_start = 0.0  # the first bucket poll ever: buckets created later are ours to count
        self.buckets: dict[str, Record] = {}
        # The buckets the last poll did not hold (not durable): one a listing leaves out for a
        # moment is listed again later, and would count once more as a bucket first seen already
        # resharded. (A "no such bucket" stats read no longer drops one: the bucket poll keeps it.)
        self.lost: dict[str, Record] = {}
        self.growth: BucketGrowth | None = None  # not durable: a restart only delays predictions
        # The last rates of the buckets that grew, and the history behind them (the runway reads them).
        self.rates: dict[str, float] = {}
        self.rates_span = 0.0
        # The latest reshards seen, for the plunge signal's evidence (not durable): (the poll
        # before, the poll that saw it, bucket, shards before (0: not seen), shards after).
        self.recent: deque[tuple[float, float, str, int, int]] = deque(maxlen=RECENT_EVENTS)
        # The records `buckets` was last made from (not durable; held, so that no other object
        # can take one's id). The bucket poll hands the same record again for every bucket it did
        # not read (~99 % of them a poll), and the same record over its own result gives that
        # result back, with no event: if it carries its read time (without one, the read counts
        # as the poll's, which moves). Told apart place by place, else by id in sets (handed.py).
        self.made_from: tuple[Bucket, ...] = ()
        self.unread_from: frozenset[str] | None = None  # ... and the unread keys it was given (None: none yet)

    def observe(self, t: float, buckets: tuple[Bucket, ...], unread: frozenset[str] = frozenset()) -> None:
        """One poll's buckets; `unread`: listed buckets whose stats were not read yet, which keep
        what is known of them."""
        if t <= self.seen_at:
            return
        before_poll = self.seen_at
        if not self.watch_start:
            self.watch_start = t
            first_poll = True
        else:
            first_poll = False
        self.seen_at = t
        previous = self.buckets
        look, same_keys = to_look_at(self.made_from, buckets)
        # Every listed key keeps its record unless its bucket is looked at below; those listed
        # no more go (to `lost`); the unread keep theirs, or take back a lost one. The table holds
        # only keys of the last observe's buckets and unread: with the same again, none goes.
        current = dict(previous)
        if same_keys and unread == self.unread_from:
            unlisted: set[str] = set()
        else:
            unlisted = previous.keys() - set(map(_KEY, buckets)) - unread
        for k in unlisted:
            del current[k]
        current.update((k, v) for k in unread - previous.keys() if (v := self.lost.get(k)) is not None)
        for b in look:
            old = previous.get(b.key) or self.lost.get(b.key)
            read_at = b.stats_at or t
            if old is not None and read_at < old[4]:
                # Stats older than those that last changed the record: a bucket poll restarted
                # from a state saved before (its records wait for their next read), which would
                # count a reshard seen since then once going back and once more coming forward.
                current[b.key] = old
                continue
            gen = b.index_gen
            if gen is None:  # not probed this poll: unchanged buckets keep their generation
                gen = old[3] if old is not None and old[1] == b.bucket_id and old[2] == b.num_shards else UNKNOWN_GEN
            seen = (b.marker, b.bucket_id, b.num_shards, gen)
            current[b.key] = old if old is not None and old[:4] == seen else (*seen, read_at)
            if old == UNREAD_ROW:  # a saved row that did not read: what it held is unknown, so it counts nothing
                continue
            if old is None:
                if not first_poll and (unseen := self._before_first_sight(b, gen)):
                    self.events += unseen
                    self.recent.append((before_poll, t, b.key, 0, b.num_shards))
                continue
            if old[0] and b.marker and old[0] != b.marker:
                continue  # deleted and created again under the same name
            events = self.events
            if gen >= 0 and old[3] >= 0 and gen > old[3]:
                self.events += gen - old[3]
            elif old[1] != b.bucket_id:
                self.events += 1
            elif old[2] != b.num_shards and b.bucket_id == b.marker:
                # A reshard that keeps the instance id (Reef on) seen without its generation. An
                # instance id that is not the marker is Pacific's new instance of a reshard already
                # counted: a poll between its switch of instance and of shard count sees it twice.
                self.events += 1
                if gen < 0:  # so that the bucket counts among those resharded
                    current[b.key] = (*seen[:3], RESHARDED_GEN_UNKNOWN, read_at)
            if self.events > events:
                self.recent.append((before_poll, t, b.key, old[2], b.num_shards))
        self.lost = {k: previous[k] for k in unlisted}  # read by key only
        self.buckets = current
        # Only once the table is made from them: a poll that raised on the way is looked at whole.
        self.made_from, self.unread_from = buckets, unread

    def _before_first_sight(self, b: Bucket, gen: int) -> int:
        """Reshards of a bucket first seen now, made between its creation and this poll."""
        created = created_at(b)
        if created is None or created < self.watch_start:
            return 0  # older than the watch: its past reshards are not events of ours
        if gen > 0:
            return gen
        return 1 if resharded_ever(b, gen) else 0

    def resharded_buckets(self) -> int:
        return sum(
            1
            for marker, bucket_id, _, gen, _ in self.buckets.values()
            if gen > 0 or gen == RESHARDED_GEN_UNKNOWN or marker != bucket_id
        )

    def retuned(self, th: Thresholds) -> ReshardState:
        return self  # every count goes on under new thresholds

    def to_dict(self) -> dict[str, Any]:
        return {"events": self.events, "seen_at": self.seen_at, "watch_start": self.watch_start,
                "buckets": self.buckets}  # fmt: skip

    @classmethod
    def from_dict(cls, data: dict[str, Any], problems: list[str] | None = None) -> ReshardState:
        """A bucket row that does not read counts nothing when its bucket is seen again (UNREAD_ROW).
        A table lost whole (not a table; `buckets_lost`: a chunk of the mgr store lost) leaves its
        buckets new to the next poll: the watch then starts at the last poll seen, so that a bucket
        created before it counts none of its reshards, which that poll had counted. Reshards while
        no one watched go uncounted; none counts twice."""
        state = cls()
        state.events = read_value(data, "events", as_count, 0, problems)
        state.seen_at = read_value(data, "seen_at", as_time, 0.0, problems)
        # A state from before watch_start was kept: its first poll stands for it.
        state.watch_start = read_value(data, "watch_start", as_time, state.seen_at, problems)
        dropped = Dropped("reshard buckets")
        saved = data.get("buckets", {})
        state.buckets = read_rows(saved, _bucket_row, dropped, unread=lambda _: UNREAD_ROW)
        if not isinstance(saved, dict) or data.get("buckets_lost") is True:
            state.watch_start = max(state.watch_start, state.seen_at)
        dropped.report(problems)
        return state


def _bucket_row(_: str, v: Any) -> Record:
    if not isinstance(v, (list, tuple)) or not (3 <= len(v) <= 5) or not all(isinstance(x, str) for x in v[:2]):
        raise ValueError(f"not a bucket row: {str(v)[:80]}")
    gen = as_count(v[3], RESHARDED_GEN_UNKNOWN) if len(v) > 3 else UNKNOWN_GEN
    return v[0], v[1], as_count(v[2]), gen, as_time(v[4]) if len(v) > 4 else 0.0


def next_prime(n: int) -> int:
    n = max(2, n)
    while any(n % d == 0 for d in range(2, int(n**0.5) + 1)):
        n += 1
    return n


def recommended_shards(objects: int, limit: int, fill_ratio: float) -> int:
    """Shards that keep objects per shard at fill_ratio of the limit; RGW prefers primes."""
    return next_prime(math.ceil(objects / max(1.0, limit * fill_ratio)))


def preshard(objects: float, shards: int, limit: int, fill_ratio: float, max_shards: int) -> int:
    """Shards to pre-shard a bucket of `objects` to, as the RGW board and the plan both say: never
    fewer than it has, and held to rgw_max_dynamic_shards (past that, more buckets [000])."""
    return min(max(shards, max_shards), max(shards, recommended_shards(math.ceil(objects), limit, fill_ratio)))


def next_reshards(
    buckets: tuple[Bucket, ...], rates: dict[str, float], limit: int, k: int, warn: float
) -> tuple[list[tuple[float, Bucket, bool]], tuple[float, ...]]:
    """The k buckets still below the per-shard limit predicted to reach it soonest, from
    their growth rate: (seconds, bucket, at or above `warn` of the limit already); and the
    seconds of every one predicted below `warn`, sorted. Buckets already at the limit are
    counted by rgw_buckets_over_shard_limit and listed by shard fill; listed here too, they
    would fill the top-K exactly when resharding is widespread and hide the buckets still ahead."""
    predicted = []
    ahead = []
    for b in buckets:
        index_shards = max(1, b.num_shards)
        room = index_shards * limit - b.num_objects
        if room <= 0:
            continue
        rate = rates.get(b.key)
        if rate:
            seconds = room / rate
            near = b.num_objects / (index_shards * limit) >= warn  # as the `near` count judges it
            predicted.append((seconds, b, near))
            if not near:
                ahead.append(seconds)
    ahead.sort()
    return heapq.nsmallest(k, predicted, key=lambda p: (p[0], p[1].key)), tuple(ahead)


def derive(given: SignalInput, state: ReshardState) -> list[Family]:
    snap, th, limit = given.snap, given.th, given.shard_limit
    families: list[Family] = []
    shards: BucketShards | None = None
    events: int | None = None
    part = snap.buckets
    if part is not None:
        state.observe(part.collected_at, part.buckets, part.unread)
        families.append(
            gauge("rgw_buckets", "Buckets listed (with stats read or not yet).").add(
                len(part.buckets) + len(part.unread)
            )
        )
        objects = sum(map(_OBJECTS, part.buckets))
        families.append(gauge("rgw_objects", "Objects over all buckets.").add(objects))
        counts = [0] * len(FILL_BUCKETS)
        total = 0.0
        near = over = 0
        per_shard = []  # objects per shard, the top-K's first key
        for b in part.buckets:
            index_shards = max(1, b.num_shards)
            per_shard.append(b.num_objects / index_shards)
            fill = b.num_objects / (index_shards * limit)
            total += fill
            counts[bisect_left(FILL_BUCKETS, fill)] += 1  # the first bound at or above the fill
            if fill >= 1.0:
                over += 1
            if fill >= th.rgw_shard_warn_ratio:
                near += 1
        cumulative, running = [], 0
        for bound, n in zip(FILL_BUCKETS, counts):
            running += n
            cumulative.append((bound, running))
        families.append(
            histogram(
                "rgw_bucket_shard_fill_ratio", "Distribution over buckets of objects per shard / per-shard limit."
            ).add_histogram(cumulative, total, len(part.buckets))
        )
        families.append(
            gauge("rgw_buckets_near_reshard", "Buckets at or above rgw_shard_warn_ratio of the per-shard limit.").add(
                near
            )
        )
        families.append(
            gauge("rgw_buckets_over_shard_limit", "Buckets at or above the per-shard limit (reshard due).").add(over)
        )
        top = top_k(
            th.rgw_top_buckets,
            part.buckets,
            per_shard,
            key=lambda b: (b.num_objects / max(1, b.num_shards), b.num_objects, b.key),
        )
        fill_f = gauge(
            "rgw_top_bucket_shard_fill_ratio", "Top-K buckets by objects per shard / limit.", "bucket", "tenant"
        )
        objects_f = gauge("rgw_top_bucket_objects", "Objects in the top-K buckets.", "bucket", "tenant")
        shards_f = gauge("rgw_top_bucket_shards", "Index shards of the top-K buckets.", "bucket", "tenant")
        recommend_f = gauge(
            "rgw_top_bucket_recommended_shards",
            "Shards keeping the top-K buckets at rgw_preshard_fill_ratio of the limit, at most "
            "rgw_max_dynamic_shards (plan_rgw_max_dynamic_shards).",
            "bucket",
            "tenant",
        )
        listed: list[TopBucket] = []
        for b in top:
            shard_fill = b.num_objects / (max(1, b.num_shards) * limit)
            recommended = preshard(
                b.num_objects, b.num_shards, limit, th.rgw_preshard_fill_ratio, th.plan_rgw_max_dynamic_shards
            )
            fill_f.add(shard_fill, b.name, b.tenant)
            objects_f.add(b.num_objects, b.name, b.tenant)
            shards_f.add(b.num_shards, b.name, b.tenant)
            recommend_f.add(recommended, b.name, b.tenant)
            listed.append(TopBucket(b.tenant, b.name, shard_fill, b.num_objects, b.num_shards, recommended))
        families += [fill_f, objects_f, shards_f, recommend_f]

        if state.growth is None or state.growth.window != th.rgw_growth_window_seconds:
            state.growth = BucketGrowth(th.rgw_growth_window_seconds)
        rates = state.growth.rates(part.collected_at, part.buckets)
        state.rates, state.rates_span = rates, state.growth.span(part.collected_at)
        state.growth.observe(part.collected_at, part.buckets)
        eta_f = gauge(
            "rgw_bucket_reshard_seconds",
            "Predicted seconds until the bucket reaches the per-shard limit at its object growth rate, "
            "for the top-K buckets below the limit predicted to reach it soonest.",
            "bucket",
            "tenant",
        )
        soonest, ahead = next_reshards(part.buckets, rates, limit, th.rgw_top_buckets, th.rgw_shard_warn_ratio)
        for seconds, b, _ in soonest:
            eta_f.add(seconds, b.name, b.tenant)
        families.append(eta_f)
        etas = tuple(BucketEta(b.tenant, b.name, seconds, near) for seconds, b, near in soonest)
        shards = BucketShards(len(part.buckets) + len(part.unread), objects, near, over, tuple(listed), etas, ahead)

    if part is not None or state.seen_at > 0:
        events = state.events
        families.append(
            counter(
                "rgw_reshard_events",
                "Completed bucket reshards (index generations, or instance id / shard count changes where the "
                "generation cannot be read).",
            ).add(state.events)
        )
        families.append(
            gauge("rgw_buckets_resharded", "Buckets resharded at least once in their life.").add(
                state.resharded_buckets()
            )
        )
    if part is not None:
        families.append(
            gauge(
                "rgw_index_generation_readable",
                "1 if this poll could read the index generations it needed (exact reshard counts), 0 if not.",
            ).add(0 if part.generation_error else 1)
        )

    queue = snap.reshard
    queued = in_progress = None
    if queue is not None:
        queued, in_progress = len(queue.entries), len(being_processed(queue, part))
        families.append(gauge("rgw_reshard_queued", "Entries in the reshard queue.").add(queued))
        families.append(gauge("rgw_reshard_in_progress", "Reshard queue entries being processed now.").add(in_progress))
    given.judged(ReshardResult(limit, shards, events, queued, in_progress))
    return families
