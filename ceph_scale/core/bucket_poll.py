"""Every bucket's stats at 100,000+ buckets, within a budget of RADOS reads [000, 004].

`GET /admin/bucket?stats=true` reads the header of every index shard of every bucket and
the metadata of each: at the 10B study's 100,000+ buckets of 11+ shards, 1.5 M reads per
poll, about 12,000 reads/s every 120 s (docs/cluster-cost.md has the measurements). This
poll reads instead, each time:

- the bucket and bucket-instance metadata listings (a few reads per thousand buckets):
  buckets created or deleted, and on Pacific a reshard's new instance id (every poll while
  they cost at most half the budget; at a million buckets every few polls);
- the stats (one read per index shard, plus the bucket's metadata) of the buckets that must
  be read: new ones, those whose instances changed, those in the reshard queue (and once
  more after they left it), and those whose growth bound says they may have crossed a line
  (`rgw_shard_warn_ratio` or the limit itself) since their last read;
- each owner's user quota once per `rgw_bucket_stats_max_age_seconds` (core/user_quotas.py),
  with a share of what the budget leaves, before the buckets never read;
- with what the budget leaves, the generation of buckets never probed, then the buckets
  read longest ago (a sweep: every bucket is read again within the sweep's period).

The bound: a bucket with n objects on s shards, growing at most g objects/s, cannot reach
r x limit x s objects before (r x limit x s - n) / g seconds after its read. g is the
larger of `rgw_bucket_growth_floor` and `rgw_bucket_growth_safety` x the bucket's observed
growth: an assumption. A bucket that crosses a line is seen at the first poll after it
did, within one interval, as long as it grows within its bound and the budget suffices;
`ceph_scale_rgw_bucket_stats_overdue` counts the buckets the budget left unread, and
`ceph_scale_rgw_bucket_growth_bound_exceeded_total` the reads that found a bucket had grown
faster than assumed. The budget is a token bucket: `rgw_bucket_reads_per_second` on
average, never more than `rgw_bucket_poll_max_reads` in one poll.

Pure: the reads go through a `BucketReader` (io/admin_ops.AdminOpsBuckets, or
io/radosgw_admin.RadosgwAdminBuckets) and a librados `exists` for the generation probes.
The state (one small record per bucket) is durable (`to_dict`/`from_dict`): a restart
goes on from the saved stats, their ages bounding what may have changed meanwhile.
"""

from __future__ import annotations

import dataclasses
import zlib
from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from typing import Any, Protocol

from .bucket_entries import Entry, from_table, to_table
from .bucket_poll_limits import PollLimits, may_cross_at
from .index_generation import GenerationProber
from .saved_rows import as_time, read_value, version_of
from .snapshot import Bucket, BucketPollReport, BucketsPart
from .user_quotas import UserQuotaReader, UserQuotaReads

READ_KINDS = ("list", "meta", "stats", "probe", "quota")
IN_QUEUE, LEFT_QUEUE = 2, 1
# Reads of a generation probe kept in reserve with a stats read: shard 0 of the known
# generation and of the next two (one reshard since the last read; each further one costs a read more).
PROBE_RESERVE = 3
READ_REASONS = ("new", "changed", "queued", "due", "unread", "sweep")
# Stop reading with this much of the source's timeout left: the part must still be returned.
TIME_RESERVE = 1.0
# At most this share of what the budget leaves after the reads that must be made goes to
# probing generations of buckets never probed; the rest to the sweep.
PROBE_SHARE = 0.25
# The listings (new and deleted buckets, Pacific's new instances) take at most this share of
# the budget over time: every poll up to ~250,000 buckets at the defaults, every few above.
LIST_SHARE = 0.5
# How often the producers save the poll's state: a restart then re-reads at most what changed
# in this long, bounded by the ages the saved stats carry.
SAVE_EVERY = 600.0
_STATS_AT = attrgetter("stats_at")


class BucketReader(UserQuotaReader, Protocol):
    stats_overhead: int  # RADOS reads of a stats read beyond one per index shard
    meta_reads: int  # RADOS reads of reading one instance's shard count

    def list_instances(self, time_left: Callable[[], float]) -> tuple[dict[str, tuple[str, ...]], int]:
        """Every bucket key with its listed instance ids, and the RADOS reads the listing cost."""
        ...

    def shards(self, key: str, instance_id: str, time_left: Callable[[], float]) -> int | None: ...

    def stats(self, key: str, time_left: Callable[[], float]) -> Bucket | None: ...


def fingerprint(instance_ids: Iterable[str]) -> int:
    return zlib.crc32(",".join(instance_ids).encode())


class _Spent:
    def __init__(self) -> None:
        self.reads = dict.fromkeys(READ_KINDS, 0)
        self.buckets = dict.fromkeys(READ_REASONS, 0)

    @property
    def total(self) -> int:
        return sum(self.reads.values())


class BucketPoll:
    def __init__(self) -> None:
        self.entries: dict[str, Entry] = {}
        self.tokens: float | None = None  # None: nothing spent yet, a full poll's worth
        self.refilled_at = 0.0
        self.listed = False  # a first listing was made: later arrivals are new buckets
        self.listed_at = 0.0  # when the listings were last made (not durable: at once after a start)
        self.list_reads = 0  # ... and what they cost
        self.bound_exceeded = 0
        self.reads_total = dict.fromkeys(READ_KINDS, 0)
        self.buckets_read_total = dict.fromkeys(READ_REASONS, 0)
        self.prober = GenerationProber()
        self.users = UserQuotaReads()
        self.cross_lim: PollLimits | None = None  # the limits the entries' cross_at were worked out under

    # --- the budget -----------------------------------------------------------------

    def _refill(self, now: float, lim: PollLimits) -> float:
        if self.tokens is None:
            self.tokens = float(lim.max_reads)
        else:
            self.tokens += max(0.0, now - self.refilled_at) * lim.reads_per_second
        self.tokens, self.refilled_at = min(self.tokens, float(lim.max_reads)), now
        return max(0.0, self.tokens)

    # --- one poll -------------------------------------------------------------------

    def poll(
        self,
        now: float,
        reader: BucketReader,
        lim: PollLimits,
        queued: frozenset[str],
        time_left: Callable[[], float],
        exists: Callable[[str], bool] | None = None,
    ) -> BucketsPart:
        budget = self._refill(now, lim)
        spent = _Spent()
        if self._listing_due(now, lim):
            listing, list_reads = reader.list_instances(time_left)
            spent.reads["list"] += list_reads
            self.listed_at, self.list_reads = now, list_reads
            self._merge_listing(listing)
        self._merge_queue(queued)

        probing = exists is not None and self.prober.start_poll()
        probe = exists if probing else None
        read_now: set[str] = set()
        overdue = 0
        for reason, key in self._must_read(now, lim):
            if reason == "quota":  # after what may have crossed a line, before the buckets never read
                owners = (e.bucket.owner for e in self.entries.values() if e.bucket is not None)
                spent.reads["quota"] += self.users.read(now, owners, reader, budget - spent.total, time_left, lim)
            elif self._read(key, reason, reader, budget, spent, time_left, probe, lim):
                read_now.add(key)
            elif reason != "unread":
                overdue += 1
        if probe is not None:
            self._probe_unknown(probe, budget, spent)
        self._sweep(read_now, reader, budget, spent, time_left, probe, lim)
        self.prober.end_poll()
        self.tokens = (self.tokens or 0.0) - spent.total
        return self._part(now, budget, spent, overdue)

    def _listing_due(self, now: float, lim: PollLimits) -> bool:
        """Every poll while the listings cost at most LIST_SHARE of the budget; past that (a
        million buckets) every few polls, as the budget's share allows."""
        if not self.listed_at:
            return True
        return self.list_reads <= LIST_SHARE * lim.reads_per_second * (now - self.listed_at)

    def _merge_listing(self, listing: dict[str, tuple[str, ...]]) -> None:
        first = not self.listed
        self.listed = True
        for key in [k for k in self.entries if k not in listing]:
            del self.entries[key]  # deleted
        for key, ids in listing.items():
            fp = fingerprint(ids)
            e = self.entries.get(key)
            if e is None:
                e = self.entries[key] = Entry(fp, ids, fresh=not first)
            else:
                e.listed_fp = fp
                if e.bucket is None:
                    e.ids = ids

    def _merge_queue(self, queued: frozenset[str]) -> None:
        for key, e in self.entries.items():
            if key in queued:
                e.queued = IN_QUEUE
            elif e.queued == IN_QUEUE:
                e.queued = LEFT_QUEUE

    def _must_read(self, now: float, lim: PollLimits) -> Iterator[tuple[str, str]]:
        """(reason, key) in the order they are read: what changed first, the queued (read or not),
        what may have crossed a line (the most overdue first), then the buckets never read. Made
        as they are read: a pair each for 10^6 unread buckets would be ~60 MB at once."""
        new: list[str] = []
        changed: list[str] = []
        queued: list[str] = []
        unread: list[str] = []
        due: list[tuple[float, str]] = []
        if lim != self.cross_lim:
            self.cross_lim = lim
            for e in self.entries.values():
                e.cross_of = None
        for key, e in self.entries.items():
            b = e.bucket
            if b is None or e.fresh:  # a queued one never read: not behind 10^5 unread after a start
                (new if e.fresh else queued if e.queued else unread).append(key)
            elif e.listed_fp != e.read_fp:
                changed.append(key)
            elif e.queued:
                queued.append(key)
            else:
                if e.cross_of is b:
                    at = e.cross_at
                else:  # read since: the bound of its new stats (~1 % of the buckets a poll)
                    at = e.cross_at = may_cross_at(b, e.rate, lim)
                    e.cross_of = b
                if at <= now:
                    due.append((at, key))
        overdue = [k for _, k in sorted(due)]
        groups = {"new": new, "changed": changed, "queued": queued, "due": overdue, "quota": [""], "unread": unread}
        for reason, keys in groups.items():
            for key in keys:
                yield reason, key

    def _sweep(
        self,
        skip: set[str],
        reader: BucketReader,
        budget: float,
        spent: _Spent,
        time_left: Callable[[], float],
        probe: Callable[[str], bool] | None,
        lim: PollLimits,
    ) -> None:
        """What the budget has left, on the held buckets not read this poll, oldest stats first.
        A bucket with more shards than the reads left is passed over before _read (which would
        refuse it) is called: at 100,000 buckets nearly all are, each poll."""
        extra = reader.stats_overhead + (PROBE_RESERVE if probe else 0)
        room = budget - spent.total
        if room < reader.stats_overhead + 1:
            return
        # The room only shrinks: a bucket too big for it now is passed over all the sweep long.
        held = [
            (b.stats_at, k, b.num_shards)
            for k, e in self.entries.items()
            if (b := e.bucket) is not None and b.num_shards + extra <= room
        ]
        held.sort()
        for _, key, shards in held:
            if key in skip or (shards + extra > room and room >= reader.stats_overhead + 1):
                continue  # read this poll, or one _read would refuse: a smaller one may still fit
            if room < reader.stats_overhead + 1 or time_left() < TIME_RESERVE:
                break
            self._read(key, "sweep", reader, budget, spent, time_left, probe, lim)
            room = budget - spent.total

    def _read(
        self,
        key: str,
        reason: str,
        reader: BucketReader,
        budget: float,
        spent: _Spent,
        time_left: Callable[[], float],
        probe: Callable[[str], bool] | None,
        lim: PollLimits,
    ) -> bool:
        """Read one bucket's stats if the budget and the time allow; False if it was not read."""
        e = self.entries.get(key)
        if e is None or time_left() < TIME_RESERVE:
            return False
        old = e.bucket
        if old is None:
            shards = None
            for instance in e.ids[::-1]:
                if spent.total + reader.meta_reads > budget:
                    return False
                spent.reads["meta"] += reader.meta_reads
                shards = reader.shards(key, instance, time_left)
                if shards is not None:
                    break
            if shards is None:
                return False  # gone since the listing, or listed without an instance yet
        else:
            shards = old.num_shards
        # A probe follows a change of instance or shard count: keep room for one.
        if spent.total + shards + reader.stats_overhead + (PROBE_RESERVE if probe else 0) > budget:
            return False
        if time_left() < TIME_RESERVE:
            return False
        b = reader.stats(key, time_left)
        spent.reads["stats"] += (b.num_shards if b is not None else shards) + reader.stats_overhead
        if b is None:
            # "No such bucket": deleted since the listing, or a moment of Pacific's reshard
            # between its instances. The record stays, read again the next poll, until a listing
            # no longer has the bucket: dropped for a poll, it came back as a bucket first seen.
            e.read_fp = -1
            return True
        spent.buckets[reason] += 1
        self._update(e, b, lim, probe, spent)
        return True

    def _update(self, e: Entry, b: Bucket, lim: PollLimits, probe: Callable[[str], bool] | None, spent: _Spent) -> None:
        old = e.bucket
        if b.index_gen is None and old is not None and old.bucket_id == b.bucket_id and old.num_shards == b.num_shards:
            b = dataclasses.replace(b, index_gen=old.index_gen)  # unchanged: the generation holds
            if e.queued == IN_QUEUE and b.index_gen is not None:
                # Queued and as it was (Reef's stats say nothing of a reshard): is it being processed?
                running, reads = self.prober.next_exists(probe, b.bucket_id, b.index_gen) if probe else (None, 0)
                spent.reads["probe"] += reads
                # Unknown (a probe refused, or backing off): as last seen, the entry still queued.
                b = dataclasses.replace(b, resharding=old.resharding if running is None else running)
        elif b.index_gen is None and probe is not None:
            same = old is not None and old.bucket_id == b.bucket_id and old.index_gen is not None
            gen, reads = self.prober.probe(probe, b.bucket_id, old.index_gen if same else 0)  # type: ignore[union-attr,arg-type]
            spent.reads["probe"] += reads
            if gen is not None:
                b = self._first_seen(e, dataclasses.replace(b, index_gen=gen), probe, spent)
        if old is not None and b.stats_at > old.stats_at:
            span = b.stats_at - old.stats_at
            grown = b.num_objects - old.num_objects
            if grown > lim.growth_bound(e.rate) * span + 1:
                self.bound_exceeded += 1
            e.rate = max(max(0.0, grown) / span, e.rate / 2)
            e.fresh = False  # read twice: its growth is known
        e.bucket, e.read_fp, e.ids = b, e.listed_fp, ()
        if e.queued == LEFT_QUEUE:
            e.queued = 0

    def _first_seen(self, e: Entry, b: Bucket, probe: Callable[[str], bool], spent: _Spent) -> Bucket:
        """A queued bucket's generation just found by the walk, which takes the newest: while its
        reshard is processed that is the target, built beside the current one."""
        if e.queued != IN_QUEUE or b.index_gen is None:
            return b
        target, reads = self.prober.is_target(probe, b.bucket_id, b.index_gen, b.num_shards)
        spent.reads["probe"] += reads
        return dataclasses.replace(b, index_gen=b.index_gen - 1, resharding=True) if target else b

    def _probe_unknown(self, probe: Callable[[str], bool], budget: float, spent: _Spent) -> None:
        """Generations of buckets never probed (a bucket's first generation makes its later
        reshards exact), most shards first, within PROBE_SHARE of what the budget leaves."""
        allowance = spent.total + max(0.0, budget - spent.total) * PROBE_SHARE
        unknown = [e for e in self.entries.values() if e.bucket is not None and e.bucket.index_gen is None]
        unknown.sort(key=lambda e: -e.bucket.num_shards)  # type: ignore[union-attr]
        for e in unknown:
            if spent.total + 2 > allowance:
                return
            b = e.bucket
            assert b is not None
            gen, reads = self.prober.probe(probe, b.bucket_id)
            spent.reads["probe"] += reads
            if self.prober.error:
                return
            if gen is not None:
                e.bucket = self._first_seen(e, dataclasses.replace(b, index_gen=gen), probe, spent)

    def _part(self, now: float, budget: float, spent: _Spent, overdue: int) -> BucketsPart:
        for kind, n in spent.reads.items():
            self.reads_total[kind] += n
        for reason, n in spent.buckets.items():
            self.buckets_read_total[reason] += n
        held, unlisted = [], []
        for k, e in self.entries.items():
            if e.bucket is None:
                unlisted.append(k)
            else:
                held.append(e.bucket)
        buckets, unread = tuple(held), frozenset(unlisted)
        report = BucketPollReport(
            budget=budget,
            reads=spent.total,
            reads_total=tuple(self.reads_total.items()),
            buckets_read_total=tuple(self.buckets_read_total.items()),
            overdue=overdue,
            unread=len(unread),
            oldest_stats_at=min(map(_STATS_AT, buckets), default=None),
            bound_exceeded_total=self.bound_exceeded,
        )
        return BucketsPart(now, buckets, self.prober.error, unread, report, self.users.part())

    # --- durable state --------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The state a restart goes on from (core/bucket_entries.py has the bucket table's format)."""
        out = {"version": 1, "tokens": self.tokens, "refilled_at": self.refilled_at, "buckets": to_table(self.entries)}
        return {**out, "users": self.users.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any], problems: list[str] | None = None) -> BucketPoll:
        """What does not read costs itself and a line in `problems` (core/saved_rows.py)."""
        if (version := version_of(data)) != 1:
            raise ValueError(f"unsupported bucket poll state version {version!r}")
        poll = cls()
        poll.tokens = read_value(data, "tokens", lambda t: None if t is None else as_time(t), None, problems)
        poll.refilled_at = read_value(data, "refilled_at", as_time, 0.0, problems)
        poll.entries = from_table(data.get("buckets", {}), problems)
        poll.listed = bool(poll.entries)
        poll.users = UserQuotaReads.from_dict(data.get("users"), problems)  # absent in a state saved before: all due
        return poll
