"""The study's counts and proportions [004, 003, 001], the fixed values of its cluster, and the
formats Pacific writes them in: time stamps, compact JSON, the mgr prometheus module's floats."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

STUDY = {"osds": 318, "pgs": 21760, "pools": 7, "buckets": 100_000, "rgws": 12}
FORMAT = 3  # of the files written: a data directory of another format is generated again
# The study's 100,000 buckets across 5,000 owners (issue 29): 20 buckets an owner on average.
BUCKETS_PER_OWNER = 20
TENANT_EVERY = 4  # every 4th owner is a `tenant$user` (its buckets `tenant/name` in the listings)
BUCKET_QUOTA_EVERY = 10  # every 10th owner's buckets carry an enabled bucket quota
USER_QUOTA_EVERY = 10  # ... and every 10th (other) owner has a user quota
# Proportions of the 10B study [004].
SPILLOVER_SHARE = 296 / 318
NEARFULL_SHARE = 13 / 318
NOT_SCRUBBED_SHARE = 21070 / 21760
NOT_DEEP_SCRUBBED_SHARE = 19494 / 21760
OSDS_PER_HOST = 53  # 318 OSDs on 6 nodes
RGWS_PER_HOST = 2

NOW = datetime(2026, 11, 22, 21, 13, 27, 243640, tzinfo=timezone.utc)  # the fixtures' capture time
DAY = 86400.0
TB = 10**12
HDD_BYTES = 16 * TB
DB_BYTES = 880 * 10**9 // 2**20 * 2**20  # 5.5 % of 16 TB, whole MiB
MIN_ALLOC_HDD = 65536
SCRUB_INTERVAL = 7 * DAY  # Ceph's defaults: osd_scrub_max_interval, osd_deep_scrub_interval
DEEP_INTERVAL = 7 * DAY
SCRUB_OVERDUE = SCRUB_INTERVAL * 1.5  # x (1 + mon_warn_pg_not_scrubbed_ratio)
DEEP_OVERDUE = DEEP_INTERVAL * 1.75  # x (1 + mon_warn_pg_not_deep_scrubbed_ratio)
SHARD_LIMIT = 100_000
DEFAULT_SHARDS = 11  # Pacific's bucket_index_max_shards
CEPH_VERSION = "ceph version 16.2.15 (618f440892089921c3e944a991122ddc44e60516) pacific (stable)"
FSID = "5a1c0e7e-10b0-4c3e-9d2a-3f0c5b1a0001"
ZONEGROUP = "b7e3c1d2-4f5a-4e6b-8c7d-9e0f1a2b3c4d"
ZONE = "2c7f9a10-6d3e-4b8a-a1f2-7e5d4c3b2a19"
# One group of 7 pools per zone, as an RGW zone creates them; pg share of each.
POOL_GROUP = (
    ("device_health_metrics", 128 / 21760, "mgr_devicehealth"),
    (".rgw.root", 128 / 21760, "rgw"),
    ("{z}.rgw.log", 512 / 21760, "rgw"),
    ("{z}.rgw.control", 256 / 21760, "rgw"),
    ("{z}.rgw.meta", 256 / 21760, "rgw"),
    ("{z}.rgw.buckets.index", 4096 / 21760, "rgw"),
    ("{z}.rgw.buckets.data", 16384 / 21760, "rgw"),  # EC 4+2, the rest of the PGs
)
EC_K, EC_M = 4, 2
OBJECT_BYTES = 65536


def stamp(t: float) -> str:
    """Pacific's time stamp: 2026-11-22T21:13:27.243640+0000."""
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f+0000")


def stamp_z(t: float) -> str:
    """RGW's: 2026-11-22T21:12:03.957443Z."""
    return datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def fmt(v: float) -> str:
    """Values as the mgr prometheus module prints them (Python's repr of a float)."""
    return repr(float(v))
