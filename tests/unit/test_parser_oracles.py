"""Independent expectations of the parsers, for tests/unit/test_parser_properties.py.

Each oracle reads a (possibly mutated) Ceph output the plain way, with no fast path and
no shared code with ceph_scale/core: it returns the part the parser must return, or raises
Broken with the path of the first field that is missing, mistyped or out of range. Where
Ceph leaves a field out for a real value, the oracle says so, with the capture showing it.
The tests here check that the oracles agree with the parsers on every captured fixture.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timezone
from pathlib import Path

import pytest

from ceph_scale.core import inputs, queued_bucket_ops
from ceph_scale.core.snapshot import (
    BlueFsCounters,
    Bucket,
    BucketsPart,
    CapacityPart,
    ClusterSettings,
    FullRatios,
    HealthCheck,
    HealthPart,
    Osd,
    OsdMapPart,
    OsdOpCounters,
    PerfPart,
    PgPart,
    PgScrubState,
    Pool,
    ReshardEntry,
    ReshardPart,
    RgwOpCounters,
    RgwRunningOption,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RELEASES = ("pacific", "reef", "tentacle")


class Broken(Exception):
    def __init__(self, path: tuple) -> None:
        super().__init__(path)
        self.path = path


class Reads:
    """The paths an oracle read, so the mutator can aim at them."""

    seen: set[tuple] | None = None


def _note(path: tuple) -> None:
    if Reads.seen is not None:
        Reads.seen.add(path)


def obj(v, path):
    if not isinstance(v, dict):
        raise Broken(path)
    return v


def lst(v, path):
    if not isinstance(v, list):
        raise Broken(path)
    return v


def get(o, k, path):
    _note(path + (k,))
    if k not in obj(o, path):
        raise Broken(path + (k,))
    return o[k]


def integer(v, path):
    if type(v) is int:
        return v
    if type(v) is float and math.isfinite(v) and v == int(v):
        return int(v)
    if type(v) is str and re.fullmatch(r"\s*[+-]?[0-9]+\s*", v):
        return int(v)
    raise Broken(path)


def count(v, path):
    n = integer(v, path)
    if n < 0:
        raise Broken(path)
    return n


def number(v, path):
    if type(v) in (int, float):
        f = float(v)
    elif type(v) is str:
        try:
            f = float(v)
        except ValueError:
            raise Broken(path) from None
    else:
        raise Broken(path)
    if not math.isfinite(f):
        raise Broken(path)
    return f


def text(v, path):
    if type(v) is not str:
        raise Broken(path)
    return v


def opt_text(o, k, path):
    _note(path + (k,))
    return "" if o.get(k) is None else text(o[k], path + (k,))


def stamp(v, path):
    s = text(v, path).strip()
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f%z", "%Y-%m-%dT%H:%M:%S%z", "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M:%S"):
        try:
            dt = datetime.strptime(s, fmt)
        except ValueError:
            continue
        try:
            return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()
        except (OverflowError, ValueError):
            break
    raise Broken(path)


# --- RGW --------------------------------------------------------------------------------


def bucket(b, path, t):
    b = obj(b, path)
    usage = obj(get(b, "usage", path), path + ("usage",))
    objects = size = 0  # an empty bucket: "usage": {} (admin_api_bucket.json)
    _note(path + ("usage", "rgw.main"))
    if "rgw.main" in usage:
        main = obj(usage["rgw.main"], path + ("usage", "rgw.main"))
        objects = count(
            get(main, "num_objects", path + ("usage", "rgw.main")), path + ("usage", "rgw.main", "num_objects")
        )
        size = count(
            get(main, "size_actual", path + ("usage", "rgw.main")), path + ("usage", "rgw.main", "size_actual")
        )
    quota_bytes = quota_objects = -1  # no bucket_quota, or one disabled: RGW applies none
    _note(path + ("bucket_quota",))
    if "bucket_quota" in b:
        q = obj(b["bucket_quota"], path + ("bucket_quota",))
        enabled = get(q, "enabled", path + ("bucket_quota",))
        if not isinstance(enabled, bool):
            raise Broken(path + ("bucket_quota", "enabled"))
        max_size = integer(get(q, "max_size", path + ("bucket_quota",)), path + ("bucket_quota", "max_size"))
        max_objects = integer(get(q, "max_objects", path + ("bucket_quota",)), path + ("bucket_quota", "max_objects"))
        if enabled:
            quota_bytes, quota_objects = max(-1, max_size), max(-1, max_objects)
    _note(path + ("index_generation",))
    gen = b.get("index_generation")
    _note(path + ("reshard_status",))  # Tentacle's: "None", or the state of a reshard under way
    state = text(b["reshard_status"], path + ("reshard_status",)) if "reshard_status" in b else "None"
    return Bucket(
        name=text(get(b, "bucket", path), path + ("bucket",)),
        tenant=opt_text(b, "tenant", path),
        bucket_id=text(get(b, "id", path), path + ("id",)),
        num_shards=count(get(b, "num_shards", path), path + ("num_shards",)),
        num_objects=objects,
        owner=opt_text(b, "owner", path),
        marker=opt_text(b, "marker", path),
        created=opt_text(b, "creation_time", path),
        index_gen=None if gen is None else count(gen, path + ("index_generation",)),
        stats_at=t,
        size_bytes=size,
        quota_bytes=quota_bytes,
        quota_objects=quota_objects,
        resharding=state != "None",
    )


def buckets(doc, t=0.0):
    return BucketsPart(t, tuple(bucket(b, (i,), t) for i, b in enumerate(lst(doc, ()))))


def reshard(doc, t=0.0):
    entries = []
    for i, e in enumerate(lst(doc, ())):
        e = obj(e, (i,))
        key = "new_num_shards" if "new_num_shards" in e else "tentative_new_num_shards"
        entries.append(
            ReshardEntry(
                bucket=text(get(e, "bucket_name", (i,)), (i, "bucket_name")),
                tenant=opt_text(e, "tenant", (i,)),
                bucket_id=text(get(e, "bucket_id", (i,)), (i, "bucket_id")),
                old_num_shards=count(get(e, "old_num_shards", (i,)), (i, "old_num_shards")),
                new_num_shards=count(get(e, key, (i,)), (i, key)),
                in_progress=bool(opt_text(e, "new_instance_id", (i,))),
            )
        )
    return ReshardPart(t, tuple(entries))


def rgw_names(doc, root=()):
    services = get(obj(doc, root), "services", root)
    obj(services, root + ("services",))
    _note(root + ("services", "rgw"))
    if "rgw" not in services:
        return []
    rgw = root + ("services", "rgw")
    daemons = obj(get(obj(services["rgw"], rgw), "daemons", rgw), rgw + ("daemons",))
    latest = {}
    for name, d in daemons.items():
        if name == "summary":
            continue
        p = rgw + ("daemons", name)
        meta = obj(get(obj(d, p), "metadata", p), p + ("metadata",))
        key = (text(get(meta, "hostname", p + ("metadata",)), p + ("metadata", "hostname")),
               opt_text(meta, "id", p + ("metadata",)) or name)  # fmt: skip
        started = count(get(d, "start_epoch", p), p + ("start_epoch",))
        if key not in latest or started > latest[key][0]:
            latest[key] = (started, name)
    return sorted(n for _, n in latest.values())


RGW_RUNNING = ("rgw_max_objs_per_shard", "rgw_reshard_num_logs")


def rgw_running(service_map, shown):
    """(options read, RGWs unread). Paths: 0 the service map, 1 `config show` by (daemon, option).
    An RGW whose `config show` fails (the manager has no config state for it yet) is left out
    and counted unread, never read as a value."""
    names = rgw_names(service_map, (0,))
    out = []
    for name in names:
        who = f"rgw.{name}"
        _note((1, who))
        entry = shown.get(who) if type(shown) is dict else None
        if type(entry) is not dict or any(o not in entry for o in RGW_RUNNING):
            continue
        for o in RGW_RUNNING:
            _note((1, who, o))
        out += [RgwRunningOption(name, o, count(entry[o], (1, who, o))) for o in RGW_RUNNING]
    return tuple(out), max(0, len(names) - len({o.daemon for o in out}))


def metadata_page(doc):
    if isinstance(doc, list):
        return [text(k, (i,)) for i, k in enumerate(doc)], ""
    keys = [text(k, ("keys", i)) for i, k in enumerate(lst(get(doc, "keys", ()), ("keys",)))]
    truncated = get(doc, "truncated", ())
    if truncated not in (True, False, "true", "false"):
        raise Broken(("truncated",))
    return keys, text(get(doc, "marker", ()), ("marker",)) if truncated in (True, "true") else ""


def instance_shards(doc):
    info = get(get(doc, "data", ()), "bucket_info", ("data",))
    return count(get(info, "num_shards", ("data", "bucket_info")), ("data", "bucket_info", "num_shards"))


# --- cluster ------------------------------------------------------------------------------


def osd_map(df, dump, metadata, t=0.0):
    """Paths start with the document's index: 0 osd df, 1 osd dump, 2 osd metadata."""
    state = {}
    for i, o in enumerate(lst(get(dump, "osds", (1,)), (1, "osds"))):
        p = (1, "osds", i)
        state[count(get(o, "osd", p), p + ("osd",))] = (
            bool(integer(get(o, "up", p), p + ("up",))),
            bool(integer(get(o, "in", p), p + ("in",))),
        )
    meta = {}
    for i, m in enumerate(lst(metadata, (2,))):
        meta[count(get(m, "id", (2, i)), (2, i, "id"))] = m
    nodes = lst(get(df, "nodes", (0,)), (0, "nodes"))
    stray = lst(df.get("stray", []), (0, "stray"))
    roots = crush_roots(nodes)
    osds = []
    listed = set()
    for p, n in [((0, "nodes", i), n) for i, n in enumerate(nodes)] + [
        ((0, "stray", i), n) for i, n in enumerate(stray)
    ]:
        if integer(get(n, "id", p), p + ("id",)) < 0:
            continue
        osd_id = count(get(n, "id", p), p + ("id",))
        if osd_id in listed:
            continue
        listed.add(osd_id)
        if osd_id not in state:
            raise Broken(p + ("id",))
        m = meta.get(osd_id, {})
        mp = (2, osd_id)
        flag = m.get("bluefs_dedicated_db")
        data_size = m.get("bluestore_bdev_size")
        data_size = None if data_size in (None, "") else integer(data_size, mp + ("bluestore_bdev_size",))
        osds.append(
            Osd(
                osd_id=osd_id,
                device_class=opt_text(n, "device_class", p),
                host=opt_text(m, "hostname", mp),
                up=state[osd_id][0],
                in_cluster=state[osd_id][1],
                size_bytes=count(get(n, "kb", p), p + ("kb",)) * 1024,
                used_bytes=count(get(n, "kb_used", p), p + ("kb_used",)) * 1024,
                dedicated_db=None if flag is None else str(flag).strip().lower() in ("1", "true", "yes"),
                data_device_bytes=data_size,
                crush_root=roots.get(osd_id, ""),
            )
        )
    ratios = FullRatios(
        *(number(get(dump, k, (1,)), (1, k)) for k in ("nearfull_ratio", "backfillfull_ratio", "full_ratio"))
    )
    flags = text(get(dump, "flags", (1,)), (1, "flags"))
    return OsdMapPart(t, tuple(osds), ratios, frozenset(f for f in flags.split(",") if f), opt_text(dump, "fsid", (1,)))


def crush_roots(nodes):
    """OSD id -> its root's name: each root's subtree, walked depth first by recursion; an OSD
    under two roots keeps the first root listed."""
    buckets = {}
    for i, n in enumerate(nodes):
        p = (0, "nodes", i)
        if integer(get(n, "id", p), p + ("id",)) >= 0:
            continue
        if n["id"] in buckets:
            raise Broken(p + ("id",))
        kids = [integer(k, p + ("children", j)) for j, k in enumerate(lst(get(n, "children", p), p + ("children",)))]
        buckets[n["id"]] = (text(get(n, "name", p), p + ("name",)), kids)
    out = {}

    def under(bucket, root, walked):
        if bucket in walked or bucket not in buckets:
            return
        walked.add(bucket)
        for item in buckets[bucket][1]:
            if item >= 0:
                out.setdefault(item, root)
            else:
                under(item, root, walked)

    below = {k for _, kids in buckets.values() for k in kids if k < 0}
    for bucket, (name, _) in buckets.items():
        if bucket not in below:  # a root: under no other bucket, whatever its type's name
            under(bucket, name, set())
    return out


def pool_layouts(dump, root):
    profiles = obj(obj(dump, root).get("erasure_code_profiles", {}), root + ("erasure_code_profiles",))
    out = {}
    for i, p in enumerate(lst(get(dump, "pools", root), root + ("pools",))):
        path = root + ("pools", i)
        pool_id = count(get(p, "pool", path), path + ("pool",))
        size = count(get(p, "size", path), path + ("size",))
        if size < 1:
            raise Broken(path + ("size",))
        if integer(get(p, "type", path), path + ("type",)) == 3:
            _note(path + ("erasure_code_profile",))
            profile = obj(profiles.get(opt_text(p, "erasure_code_profile", path), {}), path + ("erasure_code_profile",))
            k = None if profile.get("k") in (None, "") else integer(profile["k"], path + ("erasure_code_profile",))
            k = k or max(1, integer(p.get("min_size", size - 1), path + ("min_size",)) - 1)
            if not 1 <= k < size:
                raise Broken(path + ("erasure_code_profile",))
            layout = (k, size - k)
        else:
            layout = (1, size - 1)
        # Ceph lists a pool option once set (osd_dump.json: pools[].options == {}).
        _note(path + ("options",))
        options = obj(p.get("options") or {}, path + ("options",))
        out[pool_id] = (
            *layout,
            number(options.get("scrub_max_interval", 0), path + ("options", "scrub_max_interval")),
            number(options.get("deep_scrub_interval", 0), path + ("options", "deep_scrub_interval")),
        )
    return out


def capacity(df, dump, t=0.0):
    """Paths start with the document's index: 0 df detail, 1 osd dump."""
    stats = get(df, "stats", (0,))
    total = count(get(stats, "total_bytes", (0, "stats")), (0, "stats", "total_bytes"))
    used_key = "total_used_raw_bytes" if "total_used_raw_bytes" in obj(stats, (0, "stats")) else "total_used_bytes"
    used = count(get(stats, used_key, (0, "stats")), (0, "stats", used_key))
    layouts = pool_layouts(dump, (1,))
    pools = []
    for i, p in enumerate(lst(get(df, "pools", (0,)), (0, "pools"))):
        path = (0, "pools", i)
        pool_id = count(get(p, "id", path), path + ("id",))
        if pool_id not in layouts:
            raise Broken(path + ("id",))
        s = get(p, "stats", path)
        sp = path + ("stats",)
        pools.append(
            Pool(
                pool_id,
                text(get(p, "name", path), path + ("name",)),
                *(count(get(s, k, sp), sp + (k,)) for k in ("stored", "bytes_used", "max_avail")),
                number(get(s, "percent_used", sp), sp + ("percent_used",)),
                count(get(s, "objects", sp), sp + ("objects",)),
                *layouts[pool_id],
            )
        )
    return CapacityPart(t, total, used, tuple(pools))


def health(doc, t=0.0):
    status = text(get(doc, "status", ()), ("status",))
    checks = []
    for code, c in sorted(obj(get(doc, "checks", ()), ("checks",)).items()):
        p = ("checks", code)
        summary = obj(get(c, "summary", p), p + ("summary",))
        _note(p + ("summary", "count"))
        n = summary.get("count")
        if n is None:  # before Octopus: one detail line each
            n = len(lst(c.get("detail", []) or [], p + ("detail",))) or 1
        checks.append(
            HealthCheck(
                code,
                text(get(c, "severity", p), p + ("severity",)),
                count(n, p + ("summary", "count")),
                text(get(summary, "message", p + ("summary",)), p + ("summary", "message")),
            )
        )
    return HealthPart(t, status, tuple(checks))


SETTINGS = {
    "osd_scrub_max_interval": ("scrub_max_interval_seconds", number),
    "osd_deep_scrub_interval": ("deep_scrub_interval_seconds", number),
    "mon_warn_pg_not_scrubbed_ratio": ("warn_pg_not_scrubbed_ratio", number),
    "mon_warn_pg_not_deep_scrubbed_ratio": ("warn_pg_not_deep_scrubbed_ratio", number),
    "rgw_max_objs_per_shard": ("rgw_max_objs_per_shard", count),
    "osd_max_scrubs": ("osd_max_scrubs", count),
    "mon_target_pg_per_osd": ("mon_target_pg_per_osd", count),
}


def settings(doc, t=0.0):
    kwargs = {}
    for option, (name, read) in SETTINGS.items():
        _note((option,))
        if obj(doc, ()).get(option) not in (None, ""):  # left out: Ceph's default
            kwargs[name] = read(doc[option], (option,))
    return ClusterSettings(collected_at=t, **kwargs)


# --- pgs -----------------------------------------------------------------------------------


def pg(s, path):
    pgid = text(get(s, "pgid", path), path + ("pgid",))
    m = re.fullmatch(r"([0-9]+)\.(.+)", pgid, re.S)
    if m is None:
        raise Broken(path + ("pgid",))
    return PgScrubState(
        pgid,
        int(m.group(1)),
        text(get(s, "state", path), path + ("state",)),
        stamp(get(s, "last_scrub_stamp", path), path + ("last_scrub_stamp",)),
        stamp(get(s, "last_deep_scrub_stamp", path), path + ("last_deep_scrub_stamp",)),
        acting(s.get("acting") if isinstance(s, dict) else None),
    )


def acting(raw):
    """The OSD ids serving the PG, the empty EC slots (CRUSH_ITEM_NONE) left out; unread (()) where
    it is not a list of CRUSH's ids (ints from 0 to 2^31 - 1): the acting set never fails a PG's
    scrub stamps."""
    if not isinstance(raw, list) or any(type(o) is not int or not 0 <= o <= 2147483647 for o in raw):
        return ()
    return tuple(o for o in raw if o != 2147483647)


def pgs(doc, t=0.0):
    # `pg dump` nests the PGs under pg_map; Nautilus's `pg dump pgs` is the bare list.
    if isinstance(doc, dict) and "pg_map" in doc:
        doc = doc["pg_map"]
    stats = doc if isinstance(doc, list) else lst(get(doc, "pg_stats", ()), ("pg_stats",))
    return PgPart(t, tuple(pg(s, ("pg_stats", i)) for i, s in enumerate(stats)))


# --- perf counters ---------------------------------------------------------------------------

RENAMED = {
    "rgw_op.put_obj_ops": "rgw.put",
    "rgw_op.get_obj_ops": "rgw.get",
    "rgw_op.put_obj_bytes": "rgw.put_b",
    "rgw_op.get_obj_bytes": "rgw.get_b",
    "rgw_op.put_obj_lat.sum": "rgw.put_initial_lat.sum",
    "rgw_op.put_obj_lat.count": "rgw.put_initial_lat.count",
    "rgw_op.get_obj_lat.sum": "rgw.get_initial_lat.sum",
    "rgw_op.get_obj_lat.count": "rgw.get_initial_lat.count",
}
BLUEFS = ("bluefs.db_total_bytes", "bluefs.db_used_bytes", "bluefs.slow_used_bytes")
WAL = "bluefs.wal_used_bytes"  # read where reported, beside the set: None where not
OSD_OPS = ("osd.op_r", "osd.op_w")
S3 = ("rgw.put", "rgw.get", "rgw.put_b", "rgw.get_b")


def _set(c, names, daemon):
    for n in names:
        _note((daemon, n))
    if not any(n in c for n in names):
        return None
    return [count(get(c, n, (daemon,)), (daemon, n)) for n in names]


def perf(counters, t=0.0):
    """Paths: (daemon, counter)."""
    bluefs, ops, rgw, without = [], [], [], []
    for daemon, raw in sorted(obj(counters, ()).items()):
        c = {RENAMED.get(k, k): v for k, v in obj(raw, (daemon,)).items()}
        kind, _, ident = daemon.partition(".")
        if kind == "osd":
            osd_id = count(ident, (daemon,))
            _note((daemon, WAL))
            fs = _set(c, BLUEFS, daemon)
            if fs is None and WAL in c:
                raise Broken((daemon, BLUEFS[0]))  # the WAL's counter without the set beside it
            if fs is not None:
                bluefs.append(BlueFsCounters(osd_id, *fs, count(c[WAL], (daemon, WAL)) if WAL in c else None))
            if (o := _set(c, OSD_OPS, daemon)) is not None:
                halves = [f"osd.op_{rw}_latency.{h}" for rw in ("r", "w") for h in ("sum", "count")]
                for h in halves:
                    _note((daemon, h))
                latency = {}
                if any(h in c for h in halves):
                    for op, (total, n) in zip(("read", "write"), (halves[:2], halves[2:])):
                        get(c, total, (daemon,)), get(c, n, (daemon,))  # both halves, or broken
                        seconds = number(c[total], (daemon, total))
                        if seconds < 0:
                            raise Broken((daemon, total))
                        latency[f"{op}_latency_sum"] = seconds
                        latency[f"{op}_latency_count"] = count(c[n], (daemon, n))
                ops.append(OsdOpCounters(osd_id, *o, **latency))
        elif kind in ("rgw", "client"):
            if all(n in c for n in S3):
                put, get_, put_b, get_b = _set(c, S3, daemon)
                extra = {}
                for op in ("get", "put"):
                    halves = [f"rgw.{op}_initial_lat.{h}" for h in ("sum", "count")]
                    if any(h in c for h in halves):
                        total = number(get(c, halves[0], (daemon,)), (daemon, halves[0]))
                        if total < 0:
                            raise Broken((daemon, halves[0]))
                        extra[f"{op}_latency_sum"] = total
                        extra[f"{op}_latency_count"] = count(get(c, halves[1], (daemon,)), (daemon, halves[1]))
                queued = c.get("rgw.qlen", c.get("rgw.qactive"))
                if queued is not None:
                    extra["in_flight"] = count(queued, (daemon, "rgw.qlen"))
                for key, name in (("rgw.req", "requests"), ("rgw.failed_req", "failed_requests")):
                    if key in c:
                        extra[name] = count(c[key], (daemon, key))
                rgw.append(RgwOpCounters(ident, get_, put, get_b, put_b, **extra))
            elif "rgw.req" in c or any(n in c for n in S3):
                without.append(ident)  # reported as missing (ceph_scale_rgw_s3_counters_missing)
    return PerfPart(t, tuple(bluefs), tuple(ops), tuple(rgw), tuple(without))


# --- the orchestrator's ceph-exporters (parse_orch) ---------------------------------------


def host_addresses(doc, root=()):
    out = {}
    for i, h in enumerate(lst(doc, root)):
        p = root + (i,)
        name = text(get(h, "hostname", p), p + ("hostname",))
        _note(p + ("addr",))
        addr = h.get("addr")  # HostSpec: `addr or hostname`
        out[name] = name if addr is None or addr == "" else text(addr, p + ("addr",))
    return out


def orch_exporters(doc, root=()):
    """[(path, daemon)] of the ceph-exporters; the path as the parser names it."""
    out = []
    for i, d in enumerate(lst(doc, root)):
        p = root + (i,)
        if text(get(d, "daemon_type", p), p + ("daemon_type",)) == "ceph-exporter":
            out.append((p, d))
    return out


def exporter_urls(ps, hosts):
    """Paths: 0 `orch ps`, 1 `orch host ls`. cephadm's service discovery: the daemon's ip, else
    its host's addr; its first port, else 9926."""
    listed = orch_exporters(ps, (0,))
    addresses = host_addresses(hosts, (1,))
    out = {}
    for p, d in listed:
        name = text(get(d, "daemon_name", p), p + ("daemon_name",))
        _note(p + ("ip",))
        if d.get("ip") is None:
            hostname = text(get(d, "hostname", p), p + ("hostname",))
            if not addresses.get(hostname):
                raise Broken(p + ("hostname",))
            address = addresses[hostname]
        else:
            address = text(d["ip"], p + ("ip",))
            if address == "":
                raise Broken(p + ("ip",))
        _note(p + ("ports",))
        ports = [] if d.get("ports") is None else lst(d["ports"], p + ("ports",))
        port = integer(ports[0], p + ("ports", 0)) if ports else 9926
        if not 0 < port < 65536:
            raise Broken(p + ("ports", 0))
        out[name] = f"http://{f'[{address}]' if ':' in address else address}:{port}/metrics"
    return out


# --- the module's reads of the manager's data (mgr_module/scale/module_parsers.py) ------------


def osd_df_from_stats(stats, crush, dump):
    """Paths: 0 get("osd_stats"), 1 get("osd_map_crush"), 2 get("osd_map"). An OSD without an
    osd_stats entry (never booted) gets the zeros `osd df` gives it; a device without "class"
    (CrushWrapper::dump writes it only when set) gets "", as `osd df` shows it."""
    if type(stats) is dict:
        root = (0, "osd_stats")
        rows = lst(get(stats, "osd_stats", (0,)), root)
    else:
        root = (0,)
        rows = lst(stats, root)
    sizes = {}
    for i, s in enumerate(rows):
        p = root + (i,)
        obj(s, p)
        sizes[count(get(s, "osd", p), p + ("osd",))] = tuple(
            count(get(s, k, p), p + (k,)) for k in ("kb", "kb_used", "kb_avail")
        )
    classes = {}
    for i, d in enumerate(lst(get(crush, "devices", (1,)), (1, "devices"))):
        p = (1, "devices", i)
        osd_id = integer(get(d, "id", p), p + ("id",))
        classes[osd_id] = opt_text(d, "class", p)
    nodes = []
    for i, b in enumerate(lst(crush.get("buckets", []), (1, "buckets"))):
        p = (1, "buckets", i)
        name = text(get(b, "name", p), p + ("name",))
        if "~" in name:  # a per-class shadow bucket
            continue
        items = lst(get(b, "items", p), p + ("items",))
        bucket_id = integer(get(b, "id", p), p + ("id",))
        kind = text(get(b, "type_name", p), p + ("type_name",))
        kids = [integer(get(item, "id", p + ("items", j)), p + ("items", j, "id")) for j, item in enumerate(items)]
        nodes.append({"id": bucket_id, "name": name, "type": kind, "children": kids})
    for i, o in enumerate(lst(get(dump, "osds", (2,)), (2, "osds"))):
        osd_id = count(get(o, "osd", (2, "osds", i)), (2, "osds", i, "osd"))
        kb, kb_used, kb_avail = sizes.get(osd_id, (0, 0, 0))
        nodes.append({"id": osd_id, "name": f"osd.{osd_id}", "device_class": classes.get(osd_id, ""),
                      "kb": kb, "kb_used": kb_used, "kb_avail": kb_avail})  # fmt: skip
    return {"nodes": nodes}


def manager_number(v, path):
    """A perf counter value as the manager hands it: an int or a finite float."""
    if type(v) is int or (type(v) is float and math.isfinite(v)):
        return v
    raise Broken(path)


def at(doc, *keys):
    """doc[k1][k2]...; None where a level is missing or not an object."""
    for k in keys:
        if type(doc) is not dict or k not in doc:
            return None
        doc = doc[k]
    return doc


def manager_averaged(info, total, n, info_path, total_path, count_path):
    kind = integer(get(info, "type", info_path), info_path + ("type",))
    total = manager_number(total, total_path)
    return (total / 1e9 if kind & 1 else total), count(n, count_path)  # PERFCOUNTER_TIME: nanoseconds


def manager_counters(doc):
    """What the per-daemon perf calls answer, as one document: "servers" (list_servers()),
    "schema" (get_perf_schema per daemon), "latest" (get_latest per daemon and counter), "avg"
    (get_latest_avg's [sum, count] per daemon and counter). A daemon with no schema yet is left
    out: no counters, not zeros."""
    _note(("servers",))
    daemons = []
    for i, server in enumerate(lst(at(doc, "servers"), ("servers",))):
        p = ("servers", i)
        for j, svc in enumerate(lst(get(server, "services", p), p + ("services",))):
            sp = p + ("services", j)
            kind = text(get(svc, "type", sp), sp + ("type",))
            if kind in ("osd", "rgw"):
                daemons.append(f"{kind}.{text(get(svc, 'id', sp), sp + ('id',))}")
    out = {}
    for d in daemons:
        _note(("schema", d))
        answer = at(doc, "schema", d)
        schemas = obj({} if answer is None else answer, ("schema", d))
        _note(("schema", d, d))
        if d not in schemas:
            continue
        schema = obj(schemas[d], ("schema", d, d))
        values = {}
        for path in inputs.PERF_COUNTERS:
            if path in schema:
                _note(("latest", d, path))
                values[path] = manager_number(at(doc, "latest", d, path), ("latest", d, path))
        for base in inputs.AVERAGED_COUNTERS:
            if base in schema:
                _note(("avg", d, base))
                _note(("schema", d, d, base, "type"))
                pair = at(doc, "avg", d, base)
                if type(pair) is not list or len(pair) != 2:
                    raise Broken(("avg", d, base))
                values[f"{base}.sum"], values[f"{base}.count"] = manager_averaged(
                    schema[base], pair[0], pair[1], ("schema", d, d, base), ("avg", d, base, 0), ("avg", d, base, 1)
                )
        if values:
            out[d] = values
    return out


def walked_counters(doc):
    """What the stock walker (get_all_perf_counters) answers: daemon -> counter -> its schema
    entry with "value", and "count" for an averaged counter."""
    out = {}
    for d, counters in obj(doc, ()).items():
        counters = obj(counters, (d,))
        values = {}
        for path, info in counters.items():
            if path in inputs.PERF_COUNTERS:
                _note((d, path, "value"))
                values[path] = manager_number(get(info, "value", (d, path)), (d, path, "value"))
        for base in inputs.AVERAGED_COUNTERS:
            _note((d, base, "count"))
            if base in counters:
                p = (d, base)
                total, n = get(counters[base], "value", p), get(counters[base], "count", p)
                values[f"{base}.sum"], values[f"{base}.count"] = manager_averaged(
                    counters[base], total, n, p, p + ("value",), p + ("count",)
                )
        if values:
            out[d] = values
    return out


# --- the parsers' error paths, as they print them ------------------------------------------


def bucket_counts(doc):
    """`get_latest_counter`'s answers for plain per-bucket counters, keyed as captured: each a count,
    or None for no such label set."""
    out = {}
    for key in obj(doc, ()):
        points = lst(get(obj(doc[key], (key,)), "rgw_op_per_bucket", (key,)), (key, "rgw_op_per_bucket"))
        if not points:
            out[key] = None
            continue
        if len(points) != 2:
            raise Broken((key, "rgw_op_per_bucket"))
        for i in (0, 1):
            _note((key, "rgw_op_per_bucket", i))
        number(points[0], (key, "rgw_op_per_bucket", 0))
        out[key] = count(points[1], (key, "rgw_op_per_bucket", 1))
    return out


def plain_bucket_counters(doc) -> dict:
    """The captured answers of plain counters (ops, bytes), not the averaged latencies'."""
    return {k: v for k, v in doc.items() if not k.endswith("_lat")}


def dotted(root: str, path: tuple) -> str:
    return root + "".join(f"[{k}]" if type(k) is int else f".{k}" for k in path)


def load(release: str, name: str):
    raw = (FIXTURES / release / name).read_text()
    return json.loads(raw) if name.endswith(".json") else raw


def names(release: str, pattern: str) -> list[str]:
    return sorted(p.name for p in (FIXTURES / release).glob(pattern))


@pytest.mark.parametrize("release", RELEASES)
def test_the_oracles_agree_with_the_parsers_on_every_capture(release):
    """The unmutated captures: what the property test starts from."""

    def fx(name):
        return load(release, name)

    for n in names(release, "*bucket*.json"):
        if n.startswith(("admin_api_bucket", "bucket_stats")) and "metadata" not in n:
            single = isinstance(fx(n), dict)  # `bucket stats --bucket B`: one bucket's object
            want = bucket(fx(n), (), 0.0) if single else buckets(fx(n))
            assert want == (inputs.bucket_record if single else inputs.buckets_part)(fx(n), 0.0), n
    for n in names(release, "reshard_list*.json"):
        assert reshard(fx(n)) == inputs.reshard_part(fx(n), 0.0), n
    for s in ("", "_queued", "_resharded"):
        args = fx(f"osd_df{s}.json"), fx(f"osd_dump{s}.json"), fx(f"osd_metadata{s}.json")
        assert osd_map(*args) == inputs.osd_map_part(*args, 0.0)
        args = fx(f"df_detail{s}.json"), fx(f"osd_dump{s}.json")
        assert capacity(*args) == inputs.capacity_part(*args, 0.0)
        assert health(fx(f"health_detail{s}.json")) == inputs.health_part(fx(f"health_detail{s}.json"), 0.0)
        assert pgs(fx(f"pg_dump_pgs{s}.json")) == inputs.pg_part(fx(f"pg_dump_pgs{s}.json"), 0.0)
        assert settings(fx(f"config_get{s}.json")) == inputs.settings_part(fx(f"config_get{s}.json"), 0.0)
        counters = inputs.counters_from_prometheus_text(fx(f"mgr_prometheus_metrics{s}.txt"))
        assert perf(counters) == inputs.perf_part(counters, 0.0)
        assert perf(counters).bluefs and perf(counters).rgw_ops  # the captures have both
    assert rgw_names(fx("service_dump.json")) == inputs.rgw_daemon_names(fx("service_dump.json"))
    for n in names(release, "admin_api_metadata_*_page.json"):
        assert metadata_page(fx(n)) == inputs.metadata_page(fx(n), "bucket")
    for n in names(release, "*metadata_bucket_instance.json") + names(release, "metadata_bucket_instance_*.json"):
        assert instance_shards(fx(n)) == inputs.instance_shards(fx(n)), n
    for n in names(release, "mgr_get_latest_counter_*.json"):
        doc = plain_bucket_counters(fx(n))
        assert bucket_counts(doc) == {k: queued_bucket_ops.latest_count(v, k) for k, v in doc.items()}, n


def test_an_oracle_says_where_an_input_is_broken():
    b = load("pacific", "admin_api_bucket_stats.json")
    b[0]["usage"]["rgw.main"].pop("num_objects")
    with pytest.raises(Broken) as e:
        buckets(b)
    assert dotted("bucket_stats", e.value.path) == "bucket_stats[0].usage.rgw.main.num_objects"
