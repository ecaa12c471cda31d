"""Per-bucket usage at a fixed series count: the top K by bytes, by objects and by byte growth,
each with one series summing every other bucket (so `sum()` over a family is the cluster's
total), and the buckets past the studies' ~100 K objects per bucket [000], counted and the
largest named."""

from __future__ import annotations

import heapq
from collections.abc import Callable
from operator import attrgetter

from ...config import Thresholds
from ...families import Family, gauge
from ...snapshot import Bucket
from ...top_k import top_k
from .state import split_owner

OTHERS = "(others)"  # no bucket name (nor RGW user id) holds parentheses
BUCKET_LABELS = ("tenant", "bucket", "user")


def _labels(b: Bucket) -> tuple[str, str, str]:
    return b.tenant, b.name, split_owner(b.owner)[1]


def top_with_others(
    family: Family, buckets: tuple[Bucket, ...], k: int, value: Callable[[Bucket], float]
) -> list[Bucket]:
    """The k buckets with the largest `value` (ties by key) and one series for all the others."""
    values = list(map(value, buckets))
    top = top_k(k, buckets, values, key=lambda b: (value(b), b.key))  # ties by key
    for b in top:
        family.add(value(b), *_labels(b))
    if len(buckets) > len(top):
        total = sum(values)  # exact: the rest is the total less the top
        family.add(total - sum(value(b) for b in top), "", OTHERS, "")
    return top


def bucket_families(
    buckets: tuple[Bucket, ...], rates: dict[str, float], th: Thresholds
) -> tuple[list[Family], int, tuple[tuple[str, int], ...]]:
    """The bucket families, the count past the advised objects and the largest of those."""
    k = th.rgw_bucket_usage_top
    size_f = gauge(
        "rgw_bucket_usage_bytes",
        'Bytes (size_actual) of the top-K buckets by bytes; bucket="(others)" sums every other bucket.',
        *BUCKET_LABELS,
    )
    objects_f = gauge(
        "rgw_bucket_usage_objects",
        'Objects of the top-K buckets by objects; bucket="(others)" sums every other bucket.',
        *BUCKET_LABELS,
    )
    growth_f = gauge(
        "rgw_bucket_usage_growth_bytes_per_second",
        "Byte growth of the top-K buckets by growth, between two reads half a window to a window apart "
        '(rgw_growth_window_seconds); bucket="(others)" sums every other bucket\'s.',
        *BUCKET_LABELS,
    )
    top_with_others(size_f, buckets, k, attrgetter("size_bytes"))
    top_with_others(objects_f, buckets, k, attrgetter("num_objects"))
    growing = tuple(b for b in buckets if b.key in rates)
    top_with_others(growth_f, growing, k, lambda b: rates[b.key])

    advised = th.rgw_bucket_objects_advised
    past = [b for b in buckets if b.num_objects > advised]
    count_f = gauge(
        "rgw_buckets_past_objects_advised",
        "Buckets holding more objects than rgw_bucket_objects_advised (the studies' ~100 K per bucket [000]).",
    ).add(len(past))
    named_f = gauge(
        "rgw_bucket_past_objects_advised_objects",
        "Objects of the top-K buckets past rgw_bucket_objects_advised, the largest first.",
        *BUCKET_LABELS,
    )
    largest = heapq.nlargest(k, past, key=lambda b: (b.num_objects, b.key)) if k else []
    for b in largest:
        named_f.add(b.num_objects, *_labels(b))
    named = tuple((b.key, b.num_objects) for b in largest)
    return [size_f, objects_f, growth_f, count_f, named_f], len(past), named
