"""Per-bucket op counters from the manager's labeled counter call, for the reshard queue's buckets.

RGW counts each bucket's ops as labeled counters (section `rgw_op_per_bucket`, label `bucket`)
where `rgw_bucket_counters_cache` is on (off by default), in a cache of up to
`rgw_bucket_counters_cache_size` buckets. Of the routes captured, only the RGW's admin socket and
the manager's labeled calls give them: Tentacle 20.2.4 has them, Reef 18.2.7 has none
(tests/fixtures/tentacle/*_bucket_counters*). The manager reads one counter of one label set
without walking the others: `get_latest_counter(type, id, section, counter, labels)` answers
{section: [timestamp, value]}, or {section: []} where that RGW has no such label set (it never
counted the bucket, or evicted it from its cache). Reading the few buckets a reshard concerns
that way costs a few calls a bucket, where the whole labeled schema of 10,000 cached buckets on
each of 12 RGWs would be millions of entries a poll. Each RGW's own totals (`rgw_op`'s
put_obj_ops and get_obj_ops, which RGW counts in the same call as the bucket's) are read in the
same pass, `get_latest_unlabeled_counter(type, id, path)`, {path: [timestamp, value]}: a bucket's
share of its RGWs' ops is then of one moment, whatever the perf source's own schedule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .parse_base import InputError, _count, _float, _get, _list, _obj
from .snapshot import BucketOps, ReshardEntry

SECTION = "rgw_op_per_bucket"
COUNTERS = ("put_obj_ops", "get_obj_ops")
TOTALS = ("rgw_op.put_obj_ops", "rgw_op.get_obj_ops")  # the RGW's own, over all its buckets
ALL_BUCKETS = ""  # the bucket of a BucketOps that carries its RGW's totals
# Buckets read a poll: RGW runs about one reshard per RGW at a time, and a queue longer than this
# is read in its order, the first being the next processed.
MAX_BUCKETS = 100
NO_LABELED_CALLS = "this manager has no labeled counter calls (Reef's has none, Tentacle's has)"
TENANTED = "a tenant's bucket is not read (its counters' labels were not captured)"
# rgw_bucket_counters_cache is off by default; on, it keeps up to rgw_bucket_counters_cache_size.
# A bucket is still read this long after it left the queue: a reshard the bucket poll sees done is
# judged on the bucket's ops up to then, and its ops are seen to come back.
WATCH_AFTER = 600.0
NOT_COUNTED = "no RGW counted these buckets (rgw_bucket_counters_cache off, or no op on them lately)"


def latest_count(answer: Any, where: str, key: str = SECTION) -> int | None:
    """The value of one plain counter in the manager's answer, {key: [timestamp, value]}; None: no
    such counter (no such label set, or no report yet)."""
    points = _list(_get(_obj(answer, where), key, where), f"{where}.{key}")
    if not points:
        return None
    if len(points) != 2:
        raise InputError(f"{where}.{key}: expected [timestamp, value], got {len(points)} item(s)")
    _float(points[0], f"{where}.{key}[0]")  # when the manager had it
    return _count(points[1], f"{where}.{key}[1]")


def read_bucket_ops(
    read: Callable[[str, str, str], Any],
    read_total: Callable[[str, str], Any],
    rgws: Iterable[str],
    buckets: Iterable[str],
) -> tuple[tuple[BucketOps, ...], str]:
    """Each RGW's PUT and GET totals (bucket ALL_BUCKETS) and counts of each bucket (up to
    MAX_BUCKETS of them, in order), from the manager's answers `read(rgw, bucket, counter)` and
    `read_total(rgw, path)`; and "" or why none was counted. A bucket an RGW has not counted is
    left out for that RGW, never read as 0; an RGW without its totals is left out whole."""
    names = list(dict.fromkeys(buckets))[:MAX_BUCKETS]
    out = []
    for rgw in rgws:
        put, get = (latest_count(read_total(rgw, path), f"rgw.{rgw} {path}", path) for path in TOTALS)
        if put is None or get is None:
            continue
        mine = [BucketOps(rgw, ALL_BUCKETS, put, get)]
        for bucket in names:
            put, get = (latest_count(read(rgw, bucket, c), f"rgw.{rgw} {SECTION} {bucket} {c}") for c in COUNTERS)
            # RGW makes a label set's counters together: with one of the two missing, the pair
            # is left for the next poll rather than half read.
            if put is not None and get is not None:
                mine.append(BucketOps(rgw, bucket, put, get))
        if len(mine) > 1:
            out += mine
    return tuple(out), "" if out or not names else NOT_COUNTED


class WatchedBuckets:
    """The buckets to read at each poll of the queue: those the queue says are being processed
    (Pacific's entries do; from Reef on an entry does not change), then the rest of the queue in
    its order, then those queued in the last WATCH_AFTER seconds, latest first. A tenant's bucket
    is not read (its counters' labels were not captured)."""

    def __init__(self) -> None:
        self.queued_at: dict[str, float] = {}  # bucket name -> when last seen in the queue

    def at(self, entries: Iterable[ReshardEntry], t: float) -> list[str]:
        entries = [e for e in entries if not e.tenant]
        now = [e.bucket for e in entries]
        for name in now:
            self.queued_at[name] = t
        self.queued_at = {b: seen for b, seen in self.queued_at.items() if seen >= t - WATCH_AFTER}
        queued = set(now)
        lately = sorted((b for b in self.queued_at if b not in queued), key=lambda b: (-self.queued_at[b], b))
        processed = [e.bucket for e in entries if e.in_progress]
        return list(dict.fromkeys([*processed, *now, *lately]))


def reply(ops: Iterable[BucketOps], unread: str) -> dict[str, Any]:
    """What `ceph scale bucket-ops` answers: the counts and why there are none."""
    return {"bucket_ops": [[o.rgw, o.bucket, o.put, o.get] for o in ops], "unread": unread}


def reply_part(doc: Any) -> tuple[tuple[BucketOps, ...], str]:
    """`ceph scale bucket-ops`'s answer read back (the sidecar's reshard source)."""
    doc = _obj(doc, "scale bucket-ops")
    unread = _get(doc, "unread", "scale bucket-ops")
    if not isinstance(unread, str):
        raise InputError(f"scale bucket-ops.unread: expected a string, got {type(unread).__name__}")
    ops = []
    for i, row in enumerate(_list(_get(doc, "bucket_ops", "scale bucket-ops"), "scale bucket-ops.bucket_ops")):
        p = f"scale bucket-ops.bucket_ops[{i}]"
        row = _list(row, p)
        if len(row) != 4 or not all(isinstance(v, str) for v in row[:2]):
            raise InputError(f"{p}: expected [RGW, bucket, PUTs, GETs]")
        ops.append(BucketOps(row[0], row[1], _count(row[2], f"{p}[2]"), _count(row[3], f"{p}[3]")))
    return tuple(ops), unread
