"""The osd_map source's parser: `osd df tree` (or plain `osd df`) + `osd dump` + `osd metadata`
(fields: tests/fixtures/README.md)."""

from __future__ import annotations

from typing import Any

from .parse_base import (
    InputError,
    _count,
    _flag,
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
from .snapshot import FullRatios, Osd, OsdMapPart

# --- osd_map: `osd df tree`, `osd dump`, `osd metadata` ---------------------------


@refuses_bad_shapes
def osd_map_part(osd_df: Any, osd_dump: Any, osd_metadata: Any, collected_at: float) -> OsdMapPart:
    nodes = _list(_get(osd_df, "nodes", "osd_df"), "osd_df.nodes")
    # Both forms have "stray" (every capture of the three releases: empty), the OSDs in no CRUSH
    # bucket; the tree's form lists them nowhere else. An OSD listed in both is read once.
    stray = _list(osd_df.get("stray", []), "osd_df.stray")
    roots = _crush_roots(nodes)
    dump_osds = _list(_get(osd_dump, "osds", "osd_dump"), "osd_dump.osds")
    state: dict[int, tuple[bool, bool]] = {}
    for i, o in enumerate(dump_osds):
        p = f"osd_dump.osds[{i}]"
        state[_count(_get(o, "osd", p), p + ".osd")] = (
            bool(_int(_get(o, "up", p), p + ".up")),
            bool(_int(_get(o, "in", p), p + ".in")),
        )
    metadata = _metadata_by_id(osd_metadata)
    osds = []
    seen: set[int] = set()
    for p, n in [(f"osd_df.nodes[{i}]", n) for i, n in enumerate(nodes)] + [
        (f"osd_df.stray[{i}]", n) for i, n in enumerate(stray)
    ]:
        if _int(_get(n, "id", p), p + ".id") < 0:  # a CRUSH bucket (host, rack, root)
            continue
        osd_id = _count(_get(n, "id", p), p + ".id")
        if osd_id in seen:  # an OSD linked under two buckets is listed under each
            continue
        seen.add(osd_id)
        if osd_id not in state:  # the OSD was created or removed between the two commands
            raise InputError(f"{p}.id: osd.{osd_id} is not in osd_dump.osds")
        up, in_cluster = state[osd_id]
        # `osd metadata` lists only OSDs that have booted once; the others have none.
        meta = metadata.get(osd_id, {})
        mp = f"osd_metadata[{osd_id}]"
        osds.append(
            Osd(
                osd_id=osd_id,
                device_class=_opt_str(n, "device_class", p),
                host=_opt_str(meta, "hostname", mp),
                up=up,
                in_cluster=in_cluster,
                size_bytes=_count(_get(n, "kb", p), p + ".kb") * 1024,
                used_bytes=_count(_get(n, "kb_used", p), p + ".kb_used") * 1024,
                dedicated_db=_flag(meta.get("bluefs_dedicated_db")),
                data_device_bytes=_opt_int(meta.get("bluestore_bdev_size"), mp + ".bluestore_bdev_size"),
                crush_root=roots.get(osd_id, ""),
            )
        )
    ratios = FullRatios(
        nearfull=_float(_get(osd_dump, "nearfull_ratio", "osd_dump"), "osd_dump.nearfull_ratio"),
        backfillfull=_float(_get(osd_dump, "backfillfull_ratio", "osd_dump"), "osd_dump.backfillfull_ratio"),
        full=_float(_get(osd_dump, "full_ratio", "osd_dump"), "osd_dump.full_ratio"),
    )
    # Always there, "" when no flag is set: a missing one would hide noscrub.
    flags = _str(_get(osd_dump, "flags", "osd_dump"), "osd_dump.flags")
    return OsdMapPart(
        collected_at=collected_at,
        osds=tuple(osds),
        ratios=ratios,
        flags=frozenset(f for f in flags.split(",") if f),
        fsid=_opt_str(osd_dump, "fsid", "osd_dump"),
    )


def _crush_roots(nodes: list[Any]) -> dict[int, str]:
    """OSD id -> the name of the CRUSH root above it, from the tree's buckets (negative ids, with
    their `children`); the first root listed wins for an OSD under two. Empty for plain nodes."""
    children: dict[int, list[int]] = {}
    names: dict[int, str] = {}
    order: list[int] = []
    for i, n in enumerate(nodes):
        p = f"osd_df.nodes[{i}]"
        bucket = _int(_get(n, "id", p), p + ".id")
        if bucket >= 0:
            continue
        if bucket in names:  # CRUSH ids are unique: two answers mixed, or a hostile one
            raise InputError(f"{p}.id: CRUSH bucket {bucket} is listed twice")
        kids = _list(_get(n, "children", p), p + ".children")
        children[bucket] = [_int(k, f"{p}.children[{j}]") for j, k in enumerate(kids)]
        names[bucket] = _str(_get(n, "name", p), p + ".name")
        order.append(bucket)
    # A root is a bucket under no other, whatever its type is named (a CRUSH map may rename "root").
    below = {k for kids in children.values() for k in kids if k < 0}
    roots = [b for b in order if b not in below]
    out: dict[int, str] = {}
    walked: set[int] = set()  # shared: a bucket under two roots is walked once, for the first
    for root in roots:
        stack = [root]
        while stack:
            bucket = stack.pop()
            if bucket in walked:  # a bucket reached twice (or a cycle in a hostile answer)
                continue
            walked.add(bucket)
            for item in children.get(bucket, ()):
                if item >= 0:
                    out.setdefault(item, names[root])
                else:
                    stack.append(item)
    return out


def _metadata_by_id(osd_metadata: Any) -> dict[int, dict[str, Any]]:
    # `ceph osd metadata` gives a list with "id"; the manager's
    # get_metadata / get("osd_metadata") gives a dict keyed by id as a string.
    if isinstance(osd_metadata, dict):
        return {
            _count(k, f"osd_metadata[{k!r:.40}]"): _obj(v, f"osd_metadata[{k!r:.40}]") for k, v in osd_metadata.items()
        }
    out = {}
    for i, m in enumerate(_list(osd_metadata, "osd_metadata")):
        p = f"osd_metadata[{i}]"
        out[_count(_get(m, "id", p), p + ".id")] = m
    return out
