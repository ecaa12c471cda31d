"""Raw Ceph outputs to snapshot parts: pure functions, no I/O.

Inputs are the decoded JSON of the `ceph` / `radosgw-admin` commands (the
same shapes the manager hands its modules), or the text of the mgr
prometheus module. Every function raises `InputError` with the path of the
offending field, so a source can report one clear line and keep its last
good part instead of serving a half-built one; a missing or mistyped field
is never read as 0 (parse_base.py).

The parsers live one module per source (parse_osd_map, parse_capacity, parse_perf, parse_pgs,
parse_settings, parse_health, parse_buckets, parse_reshard); this module is the one name the
producers import them by. Ceph versions
differ; the differences known and handled are listed where they are read
(every release's captures are in tests/fixtures/<release>/).
"""

from __future__ import annotations

from .parse_base import (
    InputError,
    _pacific_stamp,
    _str,
    parse_stamp,
    refuses_bad_shapes,
    stamp_by_formats,
)
from .parse_buckets import (
    _bucket_checked,
    _bucket_fast,
    bucket_record,
    buckets_part,
    instance_key,
    instance_shards,
    metadata_page,
)
from .parse_capacity import capacity_part
from .parse_health import health_part
from .parse_osd_map import osd_map_part
from .parse_perf import AVERAGED_COUNTERS, PERF_COUNTERS, RENAMED_COUNTERS, counters_from_prometheus_text, perf_part
from .parse_pgs import _pg_checked, _pg_fast, pg_part, pg_part_from_json
from .parse_reshard import reshard_part
from .parse_settings import (
    RGW_RUNNING_OPTIONS,
    SCRUB_HEALTH_OPTIONS,
    SETTING_OPTIONS,
    read_rgw_running,
    rgw_daemon_names,
    settings_part,
)
from .snapshot import BucketsPart, PgPart

__all__ = [
    "AVERAGED_COUNTERS",
    "PERF_COUNTERS",
    "RENAMED_COUNTERS",
    "RGW_RUNNING_OPTIONS",
    "SCRUB_HEALTH_OPTIONS",
    "SETTING_OPTIONS",
    "BucketsPart",
    "InputError",
    "PgPart",
    "_bucket_checked",
    "_bucket_fast",
    "_pacific_stamp",
    "_pg_checked",
    "_pg_fast",
    "_str",
    "bucket_record",
    "buckets_part",
    "capacity_part",
    "counters_from_prometheus_text",
    "health_part",
    "instance_key",
    "instance_shards",
    "metadata_page",
    "osd_map_part",
    "parse_stamp",
    "perf_part",
    "pg_part",
    "pg_part_from_json",
    "read_rgw_running",
    "refuses_bad_shapes",
    "reshard_part",
    "rgw_daemon_names",
    "settings_part",
    "stamp_by_formats",
]
