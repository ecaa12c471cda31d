"""The sidecar's settings of Python's cyclic garbage collector.

Decoding `pg dump` at the 10B study's 21,760 PGs makes ~50 MB of short-lived dicts, a chunk at a
time. With Python's default thresholds (700, 10, 10) a young collection runs every 700 new
objects, so the chunk being decoded is always alive at a middle collection and is counted as
long-lived; the 51 chunks of one dump then set off a full collection over the whole heap (the
bucket poll's 100,000 records and the parts kept): ~0.15-0.2 s of a ~1.3 s cycle, on every pg poll
(docs/benchmark.md). The bucket poll's listing of 100,000 buckets did the same. The dump is now
decoded 64 KiB at a time (core/json_stream.py), whose dicts die young under the defaults too: each
of the two keeps the full collections off on its own (tests/unit/test_gc_tuning.py).

A young collection every 50,000 new objects lets a chunk's dicts die young: the decodes set off no
full collection, and the collector still runs, so cycles are still freed, later: a young one
within 50,000 new objects, one that reached the oldest generation after ~70 times as many
allocations as before (full collections come every 100 middle ones, and still only once the
long-lived objects grew by a quarter). Cyclic garbage holding a large buffer would wait that long.

The sidecar only: the ceph-mgr module shares the manager's collector with every other module,
and leaves it alone.
"""

from __future__ import annotations

import gc

# (young, middle, old): a young collection every YOUNG new objects; the other two as Python's.
SIDECAR_THRESHOLDS = (50_000, 10, 10)


def tune_collector() -> None:
    gc.set_threshold(*SIDECAR_THRESHOLDS)
