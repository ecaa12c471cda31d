"""The per-shard limit across the bucket population, and the buckets to pre-shard [000, 004].

Each dynamic reshard was a "sudden plunge" in throughput; pre-sharded buckets were
deterministic [000]. The runway is the time until the next bucket reaches its limit (0 while one
is past it); the plan lists the buckets that reach it before the target date, each with the
shards that keep it at rgw_preshard_fill_ratio of the limit then, never more than
rgw_max_dynamic_shards (past that, more buckets: about 100 K objects each [000]), and the shards
the RGW board recommends for its objects today (`preshard`, the same rule). One pass over the
buckets, and only the top N are kept: 100,000 buckets never become 100,000 rows.
"""

from __future__ import annotations

import heapq
import math

from ..signals.reshard.derive import preshard
from ..snapshot import Bucket
from .model import BucketDue, ShardOutlook


def outlook(
    buckets: tuple[Bucket, ...],
    rates: dict[str, float],
    limit: int,
    horizon: float,
    fill_ratio: float,
    top_n: int,
    span: float,
    max_shards: int,
) -> ShardOutlook:
    """rates: objects per second of the buckets that grew (reshard.BucketGrowth); span: the
    history behind them, 0 while there is none (then only buckets past the limit count);
    max_shards: rgw_max_dynamic_shards."""
    soonest = math.inf
    over = 0
    due: list[tuple[float, str, Bucket, float]] = []
    for b in buckets:
        room = max(1, b.num_shards) * limit - b.num_objects
        rate = rates.get(b.key, 0.0)
        if room <= 0:
            over += 1
            seconds = 0.0
        elif rate > 0:
            seconds = room / rate
        else:
            continue
        soonest = min(soonest, seconds)
        if seconds <= horizon:
            due.append((seconds, b.key, b, b.num_objects + rate * horizon))
    top = tuple(
        BucketDue(
            b.name,
            b.tenant,
            seconds,
            objects,
            b.num_shards,
            preshard(objects, b.num_shards, limit, fill_ratio, max_shards),
            preshard(b.num_objects, b.num_shards, limit, fill_ratio, max_shards),
        )
        for seconds, _, b, objects in heapq.nsmallest(top_n, due, key=lambda d: (d[0], d[1]))
    )
    runway: float | None = soonest
    if not over and span <= 0:
        runway = None  # nobody is past the limit and no growth is known yet
    return ShardOutlook(runway, over, len(due), top, span)
