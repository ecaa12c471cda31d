"""The reshard source's parser: RGW's reshard queue (`reshard list`; shapes: tests/fixtures/README.md)."""

from __future__ import annotations

from typing import Any

from .parse_base import InputError, _count, _get, _list, _obj, _opt_str, _str, refuses_bad_shapes
from .snapshot import ReshardEntry, ReshardPart

# --- the reshard queue ---------------------------------------------------------------


@refuses_bad_shapes
def reshard_part(reshard_list: Any, collected_at: float) -> ReshardPart:
    """`radosgw-admin reshard list`.

    Pacific 16.2.8+ and Quincy name the target `tentative_new_num_shards`;
    Octopus and Pacific up to 16.2.7 `new_num_shards` (ceph/ceph #44386,
    #45509). `new_instance_id` is set once processing has begun; Reef's
    entries leave it out (reef/reshard_list_queued.json).
    """
    entries = []
    for i, e in enumerate(_list(reshard_list, "reshard_list")):
        p = f"reshard_list[{i}]"
        e = _obj(e, p)
        new_key = "new_num_shards" if "new_num_shards" in e else "tentative_new_num_shards"
        if new_key not in e:
            raise InputError(f"{p}.tentative_new_num_shards: missing (nor new_num_shards)")
        entries.append(
            ReshardEntry(
                bucket=_str(_get(e, "bucket_name", p), p + ".bucket_name"),
                tenant=_opt_str(e, "tenant", p),
                bucket_id=_str(_get(e, "bucket_id", p), p + ".bucket_id"),
                old_num_shards=_count(_get(e, "old_num_shards", p), p + ".old_num_shards"),
                new_num_shards=_count(e[new_key], f"{p}.{new_key}"),
                in_progress=bool(_opt_str(e, "new_instance_id", p)),
            )
        )
    return ReshardPart(collected_at=collected_at, entries=tuple(entries))
