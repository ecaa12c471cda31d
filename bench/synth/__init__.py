"""Synthetic cluster state at a given scale, in the JSON shapes captured from Pacific.

    python -m bench.synth --out DIR                       # the 10B study cluster (1x)
    python -m bench.synth --scale 10 --out DIR            # every count x10
    python -m bench.synth --osds 318 --pgs 21760 --pools 7 --buckets 100000 --rgws 12 --out DIR

Writes the files the sources read, named as in tests/fixtures/pacific/ and with
exactly their keys (tests/bench/test_synth.py compares them recursively):
osd_df.json, osd_dump.json, osd_metadata.json, df_detail.json, pg_dump_pgs.json,
health_detail.json, config_get.json, mgr_prometheus_metrics.txt (filtered as the
fixture is), admin_api_bucket_stats.json, reshard_list.json, the bucket poll's listings, record
offsets and saved state (admin_api_metadata_bucket*.json, bucket_offsets.json,
state.json.buckets), and manifest.json with
the parameters, the capture time and the counts the state was built to have.

JSON is written compact, as `ceph ... -f json` and the Admin Ops API send it (the
fixtures were re-indented when captured). Seeded: the same arguments give the
same bytes.

The state is the 10B-object study cluster [004, 003, 001]: 6 nodes of 53 x 16 TB
HDD OSDs with ~880 GB NVMe DB each (5.5 %), BlueFS spillover on 296 of 318 OSDs
(L5 does not fit), 13 nearfull OSDs, EC 4+2 data pool holding 10 B x 64 KB
objects (64 KB min_alloc makes it ~6x raw), 21,070 of 21,760 PGs not scrubbed in
time and 19,494 not deep-scrubbed, 100,000 buckets of ~100,000 objects (11 index
shards, Pacific's default) and a few big dynamically resharded ones, 12 RGWs.
At other scales every count keeps the study's proportions.

One module per part of the state (the seeded layout; the OSDs; the pools; the PGs; health and
config; the counters text; the buckets, owners and quotas; the writer; the command line), joined
in state.py's Synth; this package exports what other code imports.
"""

from __future__ import annotations

from bench.synth.cli import main, scaled
from bench.synth.constants import (
    BUCKET_QUOTA_EVERY,
    BUCKETS_PER_OWNER,
    CEPH_VERSION,
    DAY,
    DB_BYTES,
    DEEP_INTERVAL,
    DEEP_OVERDUE,
    DEFAULT_SHARDS,
    EC_K,
    EC_M,
    FORMAT,
    FSID,
    HDD_BYTES,
    MIN_ALLOC_HDD,
    NEARFULL_SHARE,
    NOT_DEEP_SCRUBBED_SHARE,
    NOT_SCRUBBED_SHARE,
    NOW,
    OBJECT_BYTES,
    OSDS_PER_HOST,
    POOL_GROUP,
    RGWS_PER_HOST,
    SCRUB_INTERVAL,
    SCRUB_OVERDUE,
    SHARD_LIMIT,
    SPILLOVER_SHARE,
    STUDY,
    TB,
    TENANT_EVERY,
    USER_QUOTA_EVERY,
    ZONE,
    ZONEGROUP,
    dumps,
    fmt,
    stamp,
    stamp_z,
)
from bench.synth.state import Synth

__all__ = [
    "BUCKETS_PER_OWNER",
    "BUCKET_QUOTA_EVERY",
    "CEPH_VERSION",
    "DAY",
    "DB_BYTES",
    "DEEP_INTERVAL",
    "DEEP_OVERDUE",
    "DEFAULT_SHARDS",
    "EC_K",
    "EC_M",
    "FORMAT",
    "FSID",
    "HDD_BYTES",
    "MIN_ALLOC_HDD",
    "NEARFULL_SHARE",
    "NOT_DEEP_SCRUBBED_SHARE",
    "NOT_SCRUBBED_SHARE",
    "NOW",
    "OBJECT_BYTES",
    "OSDS_PER_HOST",
    "POOL_GROUP",
    "RGWS_PER_HOST",
    "SCRUB_INTERVAL",
    "SCRUB_OVERDUE",
    "SHARD_LIMIT",
    "SPILLOVER_SHARE",
    "STUDY",
    "Synth",
    "TB",
    "TENANT_EVERY",
    "USER_QUOTA_EVERY",
    "ZONE",
    "ZONEGROUP",
    "dumps",
    "fmt",
    "main",
    "scaled",
    "stamp",
    "stamp_z",
]
