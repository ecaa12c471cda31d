"""The capacity source's parser: `df detail` + the pools' types from `osd dump` (fields: tests/fixtures/README.md)."""

from __future__ import annotations

from typing import Any

from .parse_base import (
    InputError,
    _count,
    _float,
    _get,
    _int,
    _list,
    _obj,
    _opt_int,
    _opt_str,
    _str,
    refuses_bad_shapes,
)
from .snapshot import CapacityPart, Pool

# --- capacity: `df detail` + pool types from `osd dump` ---------------------------


@refuses_bad_shapes
def capacity_part(df: Any, osd_dump: Any, collected_at: float) -> CapacityPart:
    stats = _get(df, "stats", "df")
    total = _count(_get(stats, "total_bytes", "df.stats"), "df.stats.total_bytes")
    # total_used_raw_bytes includes BlueStore's DB and overhead: what fills OSDs.
    # Releases before it (Mimic) have total_used_bytes only.
    used_key = "total_used_raw_bytes" if "total_used_raw_bytes" in stats else "total_used_bytes"
    used = _count(_get(stats, used_key, "df.stats"), f"df.stats.{used_key}")
    layout = _pool_layout(osd_dump)
    pools = []
    for i, p in enumerate(_list(_get(df, "pools", "df"), "df.pools")):
        path = f"df.pools[{i}]"
        pool_id = _count(_get(p, "id", path), path + ".id")
        if pool_id not in layout:  # created or deleted between the two reads
            raise InputError(f"{path}.id: pool {pool_id} is not in osd_dump.pools")
        s = _get(p, "stats", path)
        sp = path + ".stats"
        pools.append(
            Pool(
                pool_id=pool_id,
                name=_str(_get(p, "name", path), path + ".name"),
                stored_bytes=_count(_get(s, "stored", sp), sp + ".stored"),
                used_bytes=_count(_get(s, "bytes_used", sp), sp + ".bytes_used"),
                max_avail_bytes=_count(_get(s, "max_avail", sp), sp + ".max_avail"),
                used_ratio=_float(_get(s, "percent_used", sp), sp + ".percent_used"),
                objects=_count(_get(s, "objects", sp), sp + ".objects"),
                **layout[pool_id],
            )
        )
    return CapacityPart(collected_at=collected_at, total_bytes=total, used_bytes=used, pools=tuple(pools))


def _pool_layout(osd_dump: Any) -> dict[int, dict[str, Any]]:
    """Per pool: EC layout and its own scrub intervals (0: the cluster's)."""
    profiles = _obj(_obj(osd_dump, "osd_dump").get("erasure_code_profiles", {}), "osd_dump.erasure_code_profiles")
    out: dict[int, dict[str, Any]] = {}
    for i, p in enumerate(_list(_get(osd_dump, "pools", "osd_dump"), "osd_dump.pools")):
        path = f"osd_dump.pools[{i}]"
        pool_id = _count(_get(p, "pool", path), path + ".pool")
        size = _count(_get(p, "size", path), path + ".size")
        if size < 1:
            raise InputError(f"{path}.size: expected at least 1, got {size}")
        if _int(_get(p, "type", path), path + ".type") == 3:  # erasure
            where = path + ".erasure_code_profile"
            profile = _obj(profiles.get(_opt_str(p, "erasure_code_profile", path), {}), where)
            k = _opt_int(profile.get("k"), where + " k")
            # Without the profile, min_size defaults to k+1.
            k = k or max(1, _int(p.get("min_size", size - 1), path + ".min_size") - 1)
            if not 1 <= k < size:
                raise InputError(f"{where}: {k} data chunks in a pool of size {size}")
            m = size - k
        else:
            k, m = 1, size - 1
        # Ceph lists a pool option only once it is set (osd_dump.json: pools[].options == {}):
        # absent is the cluster's interval, which 0 stands for here.
        options = _obj(p.get("options") or {}, path + ".options")
        out[pool_id] = {
            "data_chunks": k,
            "coding_chunks": m,
            # `ceph osd pool set <pool> scrub_max_interval|deep_scrub_interval`: PG_NOT_(DEEP_)SCRUBBED
            # judges the pool's PGs by them when set.
            "scrub_max_interval_seconds": _float(
                options.get("scrub_max_interval", 0), path + ".options.scrub_max_interval"
            ),
            "deep_scrub_interval_seconds": _float(
                options.get("deep_scrub_interval", 0), path + ".options.deep_scrub_interval"
            ),
        }
    return out
