"""What the bucket poll (core/bucket_poll.py) keeps of each bucket, and its durable form.

A bucket listed and not yet read costs ~370 bytes (CPython 3.11: its key, its instance id,
this record and its dict slot; `python -m bench.decode_bound --only listing`): 350 MB at
10^6 buckets. A bucket read keeps its stats record (core/snapshot.Bucket) instead of its ids.
"""

from __future__ import annotations

from typing import Any

from .saved_rows import Dropped, as_count, as_time, read_rows
from .snapshot import Bucket

OLD_ROW = 11  # the columns of a row saved before bytes and quotas were kept


class Entry:
    """One bucket's record in the poll."""

    __slots__ = ("bucket", "read_fp", "listed_fp", "ids", "rate", "queued", "fresh", "cross_of", "cross_at")

    def __init__(self, listed_fp: int, ids: tuple[str, ...] = (), fresh: bool = False) -> None:
        self.bucket: Bucket | None = None  # None: never read
        self.read_fp = -1  # the instances' fingerprint when last read
        self.listed_fp = listed_fp  # ... in the latest listing
        self.ids = ids  # listed instance ids, kept until the first read
        self.rate = 0.0  # observed object growth, objects/s (decaying maximum)
        self.queued = 0  # IN_QUEUE, LEFT_QUEUE (to be read once more) or 0
        self.fresh = fresh  # created while watched, and not yet read twice (its growth unknown)
        # may_cross_at of `cross_of` (the record it was worked out for) under the poll's limits:
        # the rate changes only with a new record, so it holds until the next read.
        self.cross_of: Bucket | None = None
        self.cross_at = 0.0


def to_table(entries: dict[str, Entry]) -> dict[str, list[Any]]:
    """One list per bucket read: [id, marker or "", shards, objects, stats_at, rate, gen or -1,
    instances' fingerprint, creation time, owner, queue state + 4 if read only once since its creation,
    bytes, quota bytes, quota objects (-1: none)]."""
    out: dict[str, list[Any]] = {}
    for key, e in entries.items():
        b = e.bucket
        if b is None:
            continue
        marker = "" if b.marker == b.bucket_id else b.marker
        gen = -1 if b.index_gen is None else b.index_gen
        out[key] = [b.bucket_id, marker, b.num_shards, b.num_objects, round(b.stats_at, 3),
                    round(e.rate, 6), gen, e.read_fp, b.created, b.owner, e.queued + 4 * e.fresh,
                    b.size_bytes, b.quota_bytes, b.quota_objects]  # fmt: skip
    return out


def from_table(table: object, problems: list[str] | None = None) -> dict[str, Entry]:
    """The entries of a `to_table` table. A row saved before bytes and quotas were kept (11
    columns) restores the bucket as listed and not read: it is read again within the budget, its
    usage never shown as 0 meanwhile. So does a row that does not read (a line in `problems`)."""
    dropped = Dropped("bucket poll rows")
    entries = read_rows(table, _entry, dropped, unread=lambda _: Entry(-1))
    dropped.report(problems)
    return entries


def _entry(key: str, v: Any) -> Entry:
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"a row is a list, not {type(v).__name__}")
    if len(v) == OLD_ROW:
        return Entry(as_count(v[7], -1))
    bucket_id, marker, shards, objects, stats_at, rate, gen, fp, created, owner, flags, size, qb, qo = v
    if not all(isinstance(x, str) for x in (bucket_id, marker, created, owner)):
        raise TypeError("ids, creation time and owner are strings")
    tenant, _, name = key.rpartition("/")
    e = Entry(as_count(fp, -1))
    e.bucket = Bucket(name=name, tenant=tenant, bucket_id=bucket_id, num_shards=as_count(shards),
                      num_objects=as_count(objects), owner=owner, marker=marker or bucket_id, created=created,
                      index_gen=None if as_count(gen, -1) < 0 else int(gen), stats_at=as_time(stats_at),
                      size_bytes=as_count(size), quota_bytes=as_count(qb, -1),
                      quota_objects=as_count(qo, -1))  # fmt: skip
    e.read_fp, e.rate, e.queued, e.fresh = e.listed_fp, as_time(rate), as_count(flags) & 3, bool(int(flags) & 4)
    if e.rate < 0:
        raise ValueError(f"growth rate {rate!r}")
    return e
