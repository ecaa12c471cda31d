"""The manager's own data, read into the shapes the core's parsers take from the `ceph` CLI.

`MgrModule.get("osd_stats")` / `get("osd_map_crush")` / `get("osd_map")` make the `osd df`
the core's `osd_map_part` reads, and the perf counter calls (`list_servers`,
`get_perf_schema`, `get_latest`, `get_latest_avg`, or the stock walker
`get_all_perf_counters`) the counters its `perf_part` reads. As in the core's parsers
(parse_base.py), a field read here is there with the right type, or the read raises
`InputError` naming its path (`osd_stats.osd_stats[3].kb_used: missing`); nothing missing
is read as 0. Where Ceph itself means a zero or an empty label by leaving something out,
the read says so.
"""

from __future__ import annotations

from typing import Any

from ceph_scale.core import inputs
from ceph_scale.core.parse_base import InputError, _count, _float, _get, _int, _list, _obj, _opt_str, _str

# --- osd_map: osd_map + osd_stats + crush classes (= osd df) -------------------------------


@inputs.refuses_bad_shapes
def osd_df_from_stats(osd_stats: Any, crush: Any, osd_dump: Any) -> dict:
    """An `osd df tree`-shaped {"nodes": [...]} from the manager's PG map OSD stats.

    `osd df` reports, per OSD in the map, kb / kb_used / kb_avail from the same osd_stat_t
    (statfs) the PG map keeps (pg_dump.json's pg_map.osd_stats of every release: each entry
    has all three), and the device class from the CRUSH map; `osd df tree` adds the CRUSH
    buckets with their children, from the same map's buckets.
    """
    if isinstance(osd_stats, dict):  # the manager's answer: {"osd_stats": [...]}
        root = "osd_stats.osd_stats"
        rows = _list(_get(osd_stats, "osd_stats", "osd_stats"), root)
    else:
        root = "osd_stats"
        rows = _list(osd_stats, root)
    stats: dict[int, tuple[int, int, int]] = {}
    for i, s in enumerate(rows):
        p = f"{root}[{i}]"
        s = _obj(s, p)
        stats[_count(_get(s, "osd", p), p + ".osd")] = (
            _count(_get(s, "kb", p), p + ".kb"),
            _count(_get(s, "kb_used", p), p + ".kb_used"),
            _count(_get(s, "kb_avail", p), p + ".kb_avail"),
        )
    classes = _device_classes(crush)
    nodes = _crush_buckets(crush)
    for i, o in enumerate(_list(_get(osd_dump, "osds", "osd_map"), "osd_map.osds")):
        p = f"osd_map.osds[{i}]"
        osd_id = _count(_get(o, "osd", p), p + ".osd")
        # An OSD in the map that has never reported (never booted) has no osd_stats entry:
        # `osd df` writes zeros for it too (OSDUtilizationDumper: no utilization, 0 kb), and
        # the fill signal skips an OSD of size 0.
        kb, kb_used, kb_avail = stats.get(osd_id, (0, 0, 0))
        nodes.append(
            {
                "id": osd_id,
                "name": f"osd.{osd_id}",
                # A label, not a number: "" as `osd df` writes it for an OSD without a class.
                "device_class": classes.get(osd_id, ""),
                "kb": kb,
                "kb_used": kb_used,
                "kb_avail": kb_avail,
            }
        )
    return {"nodes": nodes}


def _crush_buckets(crush: Any) -> list[dict]:
    """The CRUSH map's buckets as `osd df tree` lists them: id, name, type and children.
    The per-class shadow buckets ("default~hdd"), which `osd df tree` leaves out, are left out."""
    out = []
    for i, b in enumerate(_list(crush.get("buckets", []), "osd_map_crush.buckets")):
        p = f"osd_map_crush.buckets[{i}]"
        name = _str(_get(b, "name", p), p + ".name")
        if "~" in name:
            continue
        items = _list(_get(b, "items", p), p + ".items")
        out.append(
            {
                "id": _int(_get(b, "id", p), p + ".id"),
                "name": name,
                "type": _str(_get(b, "type_name", p), p + ".type_name"),
                "children": [
                    _int(_get(item, "id", f"{p}.items[{j}]"), f"{p}.items[{j}].id") for j, item in enumerate(items)
                ],
            }
        )
    return out


def _device_classes(crush: Any) -> dict[int, str]:
    """OSD id -> device class from the CRUSH map (`osd crush dump`'s devices). CrushWrapper::dump
    writes "class" only for a device that has one: left out, it is "" (as `osd df` shows it)."""
    classes = {}
    for i, d in enumerate(_list(_get(crush, "devices", "osd_map_crush"), "osd_map_crush.devices")):
        p = f"osd_map_crush.devices[{i}]"
        osd_id = _int(_get(d, "id", p), p + ".id")
        classes[osd_id] = _opt_str(d, "class", p)
    return classes


# --- perf counters ---------------------------------------------------------------


def _number(value: Any, path: str) -> Any:
    """A counter's value as the manager hands it, an int or a finite float, kept as it is: a
    64-bit byte counter keeps its exact integer."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{path}: expected a number, got {type(value).__name__}")
    return value if isinstance(value, int) else _float(value, path)


def fetch_counters(mgr: Any, paths: tuple[str, ...] = inputs.PERF_COUNTERS) -> dict[str, dict[str, float]]:
    """daemon ("osd.3", "rgw.<id>") -> {counter path: latest value}, only the counters the core uses.

    The same per-daemon schema and latest values `get_all_perf_counters()` (Pacific,
    Quincy) / `get_unlabeled_perf_counters()` (Reef+) walk, without their priority
    filter and without reading every other counter of every daemon. RGW daemons are
    keyed by their service id, the prometheus module's `instance_id`.
    """
    # Tentacle moved the flat "section.counter" view to the *_unlabeled_* calls; its
    # get_perf_schema answers with labelled sections instead.
    schema_of = getattr(mgr, "get_unlabeled_perf_schema", None) or mgr.get_perf_schema
    latest = getattr(mgr, "get_unlabeled_counter_latest", None) or mgr.get_latest
    latest_avg = getattr(mgr, "get_unlabeled_counter_latest_avg", None) or getattr(mgr, "get_latest_avg", None)
    out: dict[str, dict[str, float]] = {}
    for kind, ident in perf_daemons(mgr.list_servers()):
        daemon = f"{kind}.{ident}"
        schemas = _obj(schema_of(kind, ident), f"{daemon} perf schema")
        if daemon not in schemas:  # the manager has had no report from it yet: no counters, not zeros
            continue
        schema = _obj(schemas[daemon], f"{daemon} perf schema")
        values = {}
        for path in paths:
            if path in schema:
                values[path] = _number(latest(kind, ident, path), f"{daemon} {path}")
        for base in inputs.AVERAGED_COUNTERS:
            if base in schema and latest_avg is not None:
                where = f"{daemon} {base}"
                pair = latest_avg(kind, ident, base)
                if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                    raise InputError(f"{where}: expected (sum, count), got {pair!r:.80}")
                values.update(averaged(base, schema[base], pair[0], pair[1], where))
        if values:
            out[daemon] = values
    return out


def perf_daemons(servers: Any) -> list[tuple[str, str]]:
    """(type, id) of the OSDs and RGWs `list_servers()` names."""
    out = []
    for i, server in enumerate(_list(servers, "list_servers")):
        p = f"list_servers[{i}]"
        for j, service in enumerate(_list(_get(server, "services", p), p + ".services")):
            sp = f"{p}.services[{j}]"
            kind = _str(_get(service, "type", sp), sp + ".type")
            if kind in ("osd", "rgw"):
                out.append((kind, _str(_get(service, "id", sp), sp + ".id")))
    return out


PERFCOUNTER_TIME = 0x1  # mgr_module.MgrModule.PERFCOUNTER_TIME: the value is in nanoseconds


def averaged(path: str, info: Any, total: Any, count: Any, where: str) -> dict[str, float]:
    """An averaged counter as the core reads it: "<path>.sum" in seconds, "<path>.count".
    The manager hands time counters in nanoseconds (its prometheus module divides them too).
    `where` names the counter in errors; `info` is its schema entry."""
    kind = _int(_get(info, "type", where), where + ".type")
    total = _number(total, where + ".value")
    seconds = total / 1e9 if kind & PERFCOUNTER_TIME else total
    return {f"{path}.sum": seconds, f"{path}.count": _count(count, where + ".count")}


def fetch_counters_fallback(mgr: Any) -> dict[str, dict[str, float]]:
    """Through the stock walker, where the per-daemon calls are missing (renamed). It gives each
    counter its schema entry with "value", and "count" for an averaged one (mgr_module.py)."""
    walk = getattr(mgr, "get_unlabeled_perf_counters", None) or mgr.get_all_perf_counters
    wanted = set(inputs.PERF_COUNTERS)
    out: dict[str, dict[str, float]] = {}
    for daemon, counters in _obj(walk(prio_limit=0, services=("osd", "rgw")), "perf counters").items():
        counters = _obj(counters, f"perf counters {daemon}")
        values = {}
        for path, info in counters.items():
            if path in wanted:
                where = f"{daemon} {path}"
                values[path] = _number(_get(info, "value", where), where + ".value")
        for base in inputs.AVERAGED_COUNTERS:
            if base in counters:
                where, info = f"{daemon} {base}", counters[base]
                values.update(averaged(base, info, _get(info, "value", where), _get(info, "count", where), where))
        if values:
            out[daemon] = values
    return out
