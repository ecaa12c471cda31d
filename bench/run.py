"""The scale benchmark: the full path at 1x and 10x the 10B study cluster, in one run.

    python -m bench.run                  # --scales 1,10
    python -m bench.run --scales 1 --json results.json

Per scale, on state from bench.synth (generated once into --data-dir, then reused):

- time of each stage, median of --reps runs, each in a fresh process per scale:
  parse (json.loads of the raw bytes, as the sources decode them), snapshot parts
  (exporter.core.inputs), derive, exposition (exporter.core.exposition.render);
  the sidecar's own path (pg dump and bucket stats decoded a chunk at a time);
  the floor (a bare orjson.loads of the same JSON inputs) and the cycle / floor ratio;
- peak memory: tracemalloc peak of each stage, and the peak RSS (ru_maxrss) of a
  process that runs the sources one after the other as the sidecar does, then
  derives and renders;
- exposed series;
- /metrics from the real sidecar HTTP server (exporter.sidecar.http_server.serve
  with a Collector serving the rendered bytes) under --scrapers concurrent
  scrapers, from another process, p50/p99;
- the same derivation through the ceph-mgr module's code path (mgr_module/scale
  sources.py with a stand-in manager handle that hands Python objects);
- the 10x/1x growth of time and memory;

and prints each target of issue 6 with PASS/MISS and the margin. Timings are
ratios within one run on a shared machine: never compare them across machines.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import gc
import gzip
import importlib
import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import synth  # noqa: E402
from exporter.core import exposition, inputs  # noqa: E402
from exporter.core.config import Thresholds  # noqa: E402
from exporter.core.derive import DerivationState, derive  # noqa: E402
from exporter.core.snapshot import Snapshot, SourceStatus  # noqa: E402

# Targets at 1x (issue 6).
TARGET_CYCLE_RATIO = 3.0
TARGET_P99_MS = 20.0
TARGET_SERIES = 3000
TARGET_RSS_MB = 200.0
SIDECAR_ORDER = ("osd_map", "capacity", "perf", "pgs", "settings", "health", "buckets", "reshard")
# The JSON inputs each source decodes (osd dump twice: the osd_map and capacity sources each read it).
SOURCE_FILES = {
    "osd_map": ("osd_df.json", "osd_dump.json", "osd_metadata.json"),
    "capacity": ("df_detail.json", "osd_dump.json"),
    "perf": ("mgr_prometheus_metrics.txt",),
    "pgs": ("pg_dump_pgs.json",),
    "settings": ("config_get.json",),
    "health": ("health_detail.json",),
    "buckets": ("admin_api_bucket_stats.json",),
    "reshard": ("reshard_list.json",),
}
# How the scrapers ask: keep-alive + gzip is what Prometheus does (the target is judged on it).
# "staggered": each scraper at a random moment of every half second (100 scrapes/s, ~30x what 50
# Prometheus servers at a 15 s interval send), instead of all at the same instant.
HTTP_MODES = ("keepalive-gzip", "keepalive", "new_connection-gzip", "staggered-keepalive-gzip")
STAGGER_PERIOD = 0.5
OP_COUNTERS = ("osd.op_r", "osd.op_w", "osd.op_r_out_bytes", "osd.op_w_in_bytes", "rgw.get", "rgw.put")


# --- the stages ---------------------------------------------------------------------


def decode_text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def parse_all(raws: dict[str, bytes]) -> dict[str, Any]:
    """Every input decoded as the sources decode it (json.loads; the prometheus text as str)."""
    out = {}
    for files in SOURCE_FILES.values():
        for name in files:
            raw = raws[name]
            out[name] = decode_text(raw) if name.endswith(".txt") else json.loads(raw)
    return out


def parts_from_decoded(dec: dict[str, Any], t: float) -> dict[str, Any]:
    return {
        "osd_map": inputs.osd_map_part(dec["osd_df.json"], dec["osd_dump.json"], dec["osd_metadata.json"], t),
        "capacity": inputs.capacity_part(dec["df_detail.json"], dec["osd_dump.json"], t),
        "perf": inputs.perf_part(inputs.counters_from_prometheus_text(dec["mgr_prometheus_metrics.txt"]), t),
        "pgs": inputs.pg_part(dec["pg_dump_pgs.json"], t),
        "settings": inputs.settings_part(dec["config_get.json"], t),
        "health": inputs.health_part(dec["health_detail.json"], t),
        "buckets": inputs.buckets_part(dec["admin_api_bucket_stats.json"], t),
        "reshard": inputs.reshard_part(dec["reshard_list.json"], t),
    }


def sidecar_source(name: str, raws: dict[str, bytes], t: float) -> Any:
    """One source's raw bytes to its part, exactly as exporter/sidecar/sources/<name>.py does it."""
    r = raws.get
    if name == "osd_map":
        return inputs.osd_map_part(
            json.loads(r("osd_df.json")), json.loads(r("osd_dump.json")), json.loads(r("osd_metadata.json")), t
        )
    if name == "capacity":
        return inputs.capacity_part(json.loads(r("df_detail.json")), json.loads(r("osd_dump.json")), t)
    if name == "perf":
        text = decode_text(r("mgr_prometheus_metrics.txt"))
        return inputs.perf_part(inputs.counters_from_prometheus_text(text), t)
    if name == "pgs":
        return inputs.pg_part_from_json(r("pg_dump_pgs.json"), t)
    if name == "settings":
        return inputs.settings_part(json.loads(r("config_get.json")), t)
    if name == "health":
        return inputs.health_part(json.loads(r("health_detail.json")), t)
    if name == "buckets":
        return inputs.buckets_part_from_json(r("admin_api_bucket_stats.json"), t)
    if name == "reshard":
        return inputs.reshard_part(json.loads(r("reshard_list.json")), t)
    raise KeyError(name)


def floor(raws: dict[str, bytes]) -> None:
    import orjson

    for files in SOURCE_FILES.values():
        for name in files:
            if name.endswith(".json"):
                orjson.loads(raws[name])


def warm_parts(parts: dict[str, Any], t: float) -> dict[str, Any]:
    """The previous collection, 30 s earlier: op counters 0.1 % lower and DBs a little emptier, so
    that rates, slopes and hot spots have values (the steady state, not a first scrape)."""
    out = {k: dataclasses.replace(v, collected_at=t) for k, v in parts.items()}
    perf = parts["perf"]
    out["perf"] = dataclasses.replace(
        perf,
        collected_at=t,
        bluefs=tuple(dataclasses.replace(c, db_used_bytes=int(c.db_used_bytes * 0.9999)) for c in perf.bluefs),
        osd_ops=tuple(
            dataclasses.replace(c, read_ops=int(c.read_ops * 0.999), write_ops=int(c.write_ops * 0.999))
            for c in perf.osd_ops
        ),
        rgw_ops=tuple(
            dataclasses.replace(c, get_ops=int(c.get_ops * 0.999), put_ops=int(c.put_ops * 0.999)) for c in perf.rgw_ops
        ),
    )
    return out


def snapshot(parts: dict[str, Any], t: float, fsid: str, snapshot_cls=Snapshot, status_cls=SourceStatus) -> Any:
    statuses = tuple(status_cls(name, True, 0.1, t) for name in SIDECAR_ORDER)
    return snapshot_cls(taken_at=t, fsid=fsid, sources=statuses, **parts)


def primed_state(warm: dict[str, Any], t: float, fsid: str, state_cls=DerivationState, derive_fn=derive, **kw):
    state = state_cls(Thresholds())
    derive_fn(snapshot(warm, t, fsid, **kw), state)
    return state


def series_count(body: bytes) -> int:
    return sum(1 for line in body.split(b"\n") if line and not line.startswith(b"#"))


# --- the ceph-mgr module's path -------------------------------------------------------


def mgr_package():
    """mgr_module/scale as the manager imports it (its own copy of the core), without its
    __init__ (which needs Ceph's mgr_module)."""
    name = "_bench_mgr_scale"
    if name not in sys.modules:
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(REPO / "mgr_module" / "scale")]
        sys.modules[name] = pkg
    return {
        "sources": importlib.import_module(f"{name}.sources"),
        "options": importlib.import_module(f"{name}.options"),
        "inputs": importlib.import_module(f"{name}.ceph_scale_core.inputs"),
        "derive": importlib.import_module(f"{name}.ceph_scale_core.derive"),
        "snapshot": importlib.import_module(f"{name}.ceph_scale_core.snapshot"),
        "exposition": importlib.import_module(f"{name}.ceph_scale_core.exposition"),
        "config": importlib.import_module(f"{name}.ceph_scale_core.config"),
    }


class BenchMgr:
    """What ceph-mgr hands the module (MgrModule.get & co.), as Python objects, from the synthetic state."""

    def __init__(self, dec: dict[str, Any], counters: dict[str, dict[str, float]]) -> None:
        nodes = dec["osd_df.json"]["nodes"]
        self.data = {
            "osd_map": dec["osd_dump.json"],
            "osd_stats": {
                "osd_stats": [
                    {"osd": n["id"], "kb": n["kb"], "kb_used": n["kb_used"], "kb_avail": n["kb_avail"]} for n in nodes
                ]
            },
            "osd_map_crush": {
                "devices": [{"id": n["id"], "name": n["name"], "class": n["device_class"]} for n in nodes]
            },
            "osd_metadata": {str(m["id"]): m for m in dec["osd_metadata.json"]},
            "df": dec["df_detail.json"],
            "pg_stats": dec["pg_dump_pgs.json"],
            # The manager wraps health as {"json": "<text>"}.
            "health": {"json": json.dumps(dec["health_detail.json"])},
        }
        self.config = dec["config_get.json"]
        self.counters = counters
        hosts: dict[str, list] = {}
        for daemon in counters:
            kind, _, ident = daemon.partition(".")
            hosts.setdefault(f"host{len(hosts) // 60}", []).append({"type": kind, "id": ident})
        self.servers = [{"hostname": h, "services": s} for h, s in hosts.items()]

    def get(self, name: str) -> Any:
        return self.data.get(name)

    def list_servers(self) -> list:
        return self.servers

    def get_perf_schema(self, kind: str, ident: str) -> dict:
        daemon = f"{kind}.{ident}"
        return {daemon: {p: {"type": 2, "priority": 5} for p in self.counters.get(daemon, {})}}

    def get_latest(self, kind: str, ident: str, path: str) -> Any:
        return self.counters[f"{kind}.{ident}"][path]

    def get_ceph_option(self, key: str) -> Any:
        return self.config.get(key)

    def mon_command(self, cmd: dict, inbuf: Any = None) -> tuple[int, str, str]:
        if cmd.get("prefix") == "config get" and cmd.get("key") in self.config:
            return 0, json.dumps(self.config[cmd["key"]]), ""
        return -2, "", "not set"


def mgr_parts(m: dict, mgr: BenchMgr, dec: dict[str, Any]) -> dict[str, Any]:
    src, settings = m["sources"], m["options"].ModuleSettings()
    t = time.time()
    return {
        "osd_map": src.collect_osd_map(mgr),
        "capacity": src.collect_capacity(mgr),
        "perf": src.collect_perf(mgr),
        "pgs": src.collect_pgs(mgr),
        "settings": src.collect_settings(mgr, settings),
        "health": src.collect_health(mgr),
        # Buckets and the reshard queue come from RGW (Admin Ops API / radosgw-admin) as JSON in the
        # manager too; here from the already-decoded list, like everything else on this path.
        "buckets": m["inputs"].buckets_part(dec["admin_api_bucket_stats.json"], t),
        "reshard": m["inputs"].reshard_part(dec["reshard_list.json"], t),
    }


# --- workers (one process per scale and kind) ------------------------------------------


def load_raws(d: Path) -> dict[str, bytes]:
    return {name: (d / name).read_bytes() for files in SOURCE_FILES.values() for name in files}


class Clock:
    """CPU seconds of this (single-threaded) process: what the work costs, whatever the neighbours
    do on a shared machine. Wall seconds are kept beside them (`wall:` keys)."""

    wall: dict[str, list[float]]

    def __init__(self) -> None:
        self.cpu: dict[str, list[float]] = {}
        self.wall = {}

    def add(self, key: str, cpu: float, wall: float | None = None) -> None:
        self.cpu.setdefault(key, []).append(cpu)
        if wall is not None:
            self.wall.setdefault(key, []).append(wall)


LAST_WALL = [0.0]


def timed(fn: Callable, *args) -> tuple[Any, float]:
    """(result, CPU seconds); the wall seconds of the same call are left in LAST_WALL[0]."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn(*args)
    LAST_WALL[0] = time.perf_counter() - w0
    return out, time.process_time() - c0


def worker_time(d: Path, reps: int) -> dict:
    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    raws = load_raws(d)
    clock = Clock()
    walls: dict[str, float] = {}

    def add(key: str, value: float, wall: float | None = None) -> None:
        clock.add(key, value, LAST_WALL[0] if wall is None else wall)

    body = b""
    m = None
    mgr_error = ""
    try:
        m = mgr_package()
    except Exception as e:  # the module tree is someone else's work in progress: report, do not fail
        mgr_error = f"{type(e).__name__}: {e}"
    # The steady state: the previous collection's parts and the derivation state are alive while
    # the next collection is decoded (each source keeps its last part until the new one is built).
    previous = warm_parts({name: sidecar_source(name, raws, now) for name in SIDECAR_ORDER}, now - 30)
    for rep in range(reps):
        state = primed_state(previous, now - 30, fsid)
        gc.collect()
        _, t_floor = timed(floor, raws)
        add("floor", t_floor)
        walls["floor"] = LAST_WALL[0]
        # The sidecar's path, per source.
        side = {}
        total = total_wall = 0.0
        for name in SIDECAR_ORDER:
            side[name], t = timed(sidecar_source, name, raws, now)
            add(f"source:{name}", t)
            total += t
            total_wall += LAST_WALL[0]
        add("sidecar_parse_parts", total, total_wall)
        families, t_derive = timed(derive, snapshot(side, now, fsid), state)
        add("derive", t_derive)
        walls["derive"] = LAST_WALL[0]
        body, t_render = timed(exposition.render, families)
        add("render", t_render)
        walls["render"] = LAST_WALL[0]
        add("cycle", total + t_derive + t_render, total_wall + walls["derive"] + walls["render"])
        add("ratio", (total + t_derive + t_render) / t_floor, 0.0)
        add("ratio_wall", (total_wall + walls["derive"] + walls["render"]) / walls["floor"], 0.0)
        del families, state
        # Whole decode, then the parts: the path before the chunked decode, and the mgr module's input.
        dec, t_parse = timed(parse_all, raws)
        add("parse", t_parse)
        walls["parse"] = LAST_WALL[0]
        parts, t_parts = timed(parts_from_decoded, dec, now)
        add("parts", t_parts)
        walls["parts"] = LAST_WALL[0]
        if rep == 0:
            assert side == parts, "the sidecar's chunked decode must give the same parts"
        add(
            "classic_cycle",
            t_parse + t_parts + t_derive + t_render,
            walls["parse"] + walls["parts"] + walls["derive"] + walls["render"],
        )
        del side
        if m is not None:
            counters = inputs.counters_from_prometheus_text(dec["mgr_prometheus_metrics.txt"])
            mgr = BenchMgr(dec, counters)
            try:
                mparts, t_mparts = timed(mgr_parts, m, mgr, dec)
                snap_mod, derive_mod = m["snapshot"], m["derive"]
                t0 = min(now, time.time()) - 60
                mstate = primed_state(
                    warm_parts(mparts, t0),
                    t0,
                    fsid,
                    state_cls=derive_mod.DerivationState,
                    derive_fn=derive_mod.derive,
                    snapshot_cls=snap_mod.Snapshot,
                    status_cls=snap_mod.SourceStatus,
                )
                msnap = snapshot(
                    mparts, time.time(), fsid, snapshot_cls=snap_mod.Snapshot, status_cls=snap_mod.SourceStatus
                )
                w_mparts = LAST_WALL[0]
                mfam, t_mderive = timed(functools.partial(derive_mod.derive, msnap, mstate, producer="mgr"))
                w_mderive = LAST_WALL[0]
                mbody, t_mrender = timed(m["exposition"].render, mfam)
                w_mrender = LAST_WALL[0]
                add("mgr_parts", t_mparts, w_mparts)
                add("mgr_derive", t_mderive, w_mderive)
                add("mgr_render", t_mrender, w_mrender)
                add("mgr_cycle", t_mparts + t_mderive + t_mrender, w_mparts + w_mderive + w_mrender)
                if rep == 0:
                    add("mgr_series", series_count(mbody), 0.0)
            except Exception as e:
                mgr_error = f"{type(e).__name__}: {e}"
                m = None
        del dec, parts
    return {
        "median": {k: statistics.median(v) for k, v in clock.cpu.items()},
        "min": {k: min(v) for k, v in clock.cpu.items()},
        "wall_median": {k: statistics.median(v) for k, v in clock.wall.items()},
        "clock": "CPU seconds of the process (time.process_time); wall seconds in wall_median",
        "load_avg": os.getloadavg(),
        "reps": reps,
        "series": series_count(body),
        "exposition_bytes": len(body),
        "input_bytes": {k: len(v) for k, v in raws.items()},
        "mgr_error": mgr_error,
    }


def worker_trace(d: Path, classic: bool) -> dict:
    """tracemalloc peak of each stage (Python allocations; the interpreter's own memory is not in it)."""
    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    raws = load_raws(d)
    out: dict[str, float] = {}
    tracemalloc.start()

    def stage(key: str, fn: Callable, *args) -> Any:
        gc.collect()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn(*args)
        out[key] = (tracemalloc.get_traced_memory()[1] - base) / 1e6
        return result

    if classic:  # tracing every object of a whole decode costs minutes and GBs at 10x: 1x only
        dec = stage("parse", parse_all, raws)
        parts = stage("parts", parts_from_decoded, dec, now)
        del dec, parts
    side = {}
    for name in SIDECAR_ORDER:
        side[name] = stage(f"source:{name}", sidecar_source, name, raws, now)
    gc.collect()
    out["parts_held"] = tracemalloc.get_traced_memory()[0] / 1e6  # the raw bytes predate tracemalloc.start()
    state = primed_state(warm_parts(side, now - 30), now - 30, fsid)
    families = stage("derive", derive, snapshot(side, now, fsid), state)
    stage("render", exposition.render, families)
    tracemalloc.stop()
    return out


def worker_rss(d: Path, classic: bool) -> dict:
    """Peak RSS of the sidecar's work: each source's raw bytes arrive, are decoded into its part and
    dropped (as a source does), then one derivation (after a priming one) and the rendering."""
    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    parts = {}
    for name in SIDECAR_ORDER:
        raws = {f: (d / f).read_bytes() for f in SOURCE_FILES[name]}
        if classic:
            dec = {f: decode_text(b) if f.endswith(".txt") else json.loads(b) for f, b in raws.items()}
            parts[name] = parts_from_source_decoded(name, dec, now)
            del dec
        else:
            parts[name] = sidecar_source(name, raws, now)
        del raws
    state = primed_state(warm_parts(parts, now - 30), now - 30, fsid)
    body = exposition.render(derive(snapshot(parts, now, fsid), state))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"base_mb": base, "peak_mb": peak, "series": series_count(body)}


def parts_from_source_decoded(name: str, dec: dict[str, Any], t: float) -> Any:
    g = dec.get
    if name == "osd_map":
        return inputs.osd_map_part(g("osd_df.json"), g("osd_dump.json"), g("osd_metadata.json"), t)
    if name == "capacity":
        return inputs.capacity_part(g("df_detail.json"), g("osd_dump.json"), t)
    if name == "perf":
        return inputs.perf_part(inputs.counters_from_prometheus_text(g("mgr_prometheus_metrics.txt")), t)
    if name == "pgs":
        return inputs.pg_part(g("pg_dump_pgs.json"), t)
    if name == "settings":
        return inputs.settings_part(g("config_get.json"), t)
    if name == "health":
        return inputs.health_part(g("health_detail.json"), t)
    if name == "buckets":
        return inputs.buckets_part(g("admin_api_bucket_stats.json"), t)
    return inputs.reshard_part(g("reshard_list.json"), t)


def worker_http(d: Path, scrapers: int, rounds: int) -> dict:
    """The real sidecar server, serving the rendered exposition; the scrapers run in another process."""
    from exporter.sidecar.collector import Collector
    from exporter.sidecar.http_server import serve

    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    raws = load_raws(d)
    parts = {name: sidecar_source(name, raws, now) for name in SIDECAR_ORDER}
    del raws
    state = primed_state(warm_parts(parts, now - 30), now - 30, fsid)
    body = exposition.render(derive(snapshot(parts, now, fsid), state))
    del parts, state
    gc.collect()
    collector = Collector([], Thresholds())
    collector.exposition = body
    server = serve("127.0.0.1:0", "/metrics", collector, None)
    try:
        port = server.server_address[1]
        results = {}
        gz = len(gzip.compress(body, compresslevel=6, mtime=0))
        for mode in HTTP_MODES:
            size = gz if mode.endswith("gzip") else len(body)
            cpu0 = time.process_time()
            proc = subprocess.run(
                [sys.executable, "-m", "bench.run", "--worker", "scrape", "--port", str(port), "--mode", mode,
                 "--scrapers", str(scrapers), "--rounds", str(rounds), "--expect-bytes", str(size)],
                capture_output=True, cwd=REPO, check=True, timeout=1800,
            )  # fmt: skip
            results[mode] = json.loads(proc.stdout.decode().strip().splitlines()[-1])
            results[mode]["server_cpu_ms_per_request"] = (time.process_time() - cpu0) / results[mode]["requests"] * 1e3
    finally:
        server.shutdown()
        server.server_close()
    return {"bytes": len(body), "gzip_bytes": gz, **results}


def worker_scrape(port: int, mode: str, scrapers: int, rounds: int, expect: int) -> dict:
    """`scrapers` clients, all scraping at the same instant each round (the worst alignment of
    that many Prometheus servers), over keep-alive connections as Prometheus keeps them, or a new
    connection per scrape. The client only counts the bytes (asyncio protocol, no buffering): it
    shares the two cores with the server, so it must cost as little as possible."""
    head = b"GET /metrics HTTP/1.1\r\nHost: bench\r\nAccept: text/plain\r\n"
    if mode.endswith("gzip"):
        head += b"Accept-Encoding: gzip\r\n"  # as Prometheus asks
    request_keepalive = head + b"\r\n"
    request_close = head + b"Connection: close\r\n\r\n"

    class Scraper(asyncio.Protocol):
        def __init__(self) -> None:
            self.transport: Any = None
            self.done: asyncio.Future | None = None
            self.head = b""
            self.left = -1
            self.closed = asyncio.get_running_loop().create_future()

        def connection_made(self, transport) -> None:
            self.transport = transport

        def connection_lost(self, exc) -> None:
            if not self.closed.done():
                self.closed.set_result(None)
            if self.done is not None and not self.done.done():
                self.done.set_exception(ConnectionError("closed before the whole response"))

        def get(self, request: bytes) -> asyncio.Future:
            self.done = asyncio.get_running_loop().create_future()
            self.head, self.left = b"", -1
            self.transport.write(request)
            return self.done

        def data_received(self, data: bytes) -> None:
            if self.left < 0:
                self.head += data
                end = self.head.find(b"\r\n\r\n")
                if end < 0:
                    return
                head, rest = self.head[:end], len(self.head) - end - 4
                status = int(head.split(b" ", 2)[1])
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                if status != 200 or length != expect:
                    self.done.set_exception(RuntimeError(f"status {status}, {length} bytes"))
                    return
                self.left = length - rest
            else:
                self.left -= len(data)
            if self.left <= 0 and not self.done.done():
                self.done.set_result(None)

    async def connect() -> Scraper:
        loop = asyncio.get_running_loop()
        _, proto = await loop.create_connection(Scraper, "127.0.0.1", port)
        return proto

    async def one(slot: list, keepalive: bool, delay: float) -> float:
        if delay:
            await asyncio.sleep(delay)
        t0 = time.perf_counter()
        if not slot:
            slot.append(await connect())
        await slot[0].get(request_keepalive if keepalive else request_close)
        elapsed = time.perf_counter() - t0
        if not keepalive:
            proto = slot.pop()
            proto.transport.close()
            await proto.closed
        return elapsed

    async def main() -> list[float]:
        keepalive = "keepalive" in mode
        stagger = random.Random(7) if mode.startswith("staggered") else None
        slots: list[list] = [[] for _ in range(scrapers)]
        if keepalive:  # connected before the clock starts, as a running Prometheus is
            for slot in slots:
                slot.append(await connect())
        latencies: list[float] = []
        for _ in range(rounds):
            delays = [stagger.uniform(0, STAGGER_PERIOD) if stagger else 0.0 for _ in slots]
            started = time.perf_counter()
            latencies += await asyncio.gather(*(one(slot, keepalive, d) for slot, d in zip(slots, delays)))
            if stagger:
                await asyncio.sleep(max(0.0, STAGGER_PERIOD - (time.perf_counter() - started)))
        for slot in slots:
            for proto in slot:
                proto.transport.close()
        return latencies

    load = os.getloadavg()[0]
    lat = sorted(asyncio.run(main()))

    def pct(q: float) -> float:
        return lat[min(len(lat) - 1, int(round(q * (len(lat) - 1))))] * 1000

    return {
        "requests": len(lat),
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
        "max_ms": lat[-1] * 1000,
        "load_avg": load,
    }


def run_worker(args: argparse.Namespace) -> None:
    d = Path(args.dir) if args.dir else None
    if args.worker == "time":
        out = worker_time(d, args.reps)
    elif args.worker == "trace":
        out = worker_trace(d, classic=bool(args.classic))
    elif args.worker in ("rss", "rss-classic"):
        out = worker_rss(d, classic=args.worker == "rss-classic")
    elif args.worker == "http":
        out = worker_http(d, args.scrapers, args.rounds)
    elif args.worker == "scrape":
        out = worker_scrape(args.port, args.mode, args.scrapers, args.rounds, args.expect_bytes)
    else:
        raise SystemExit(f"unknown worker {args.worker}")
    print(json.dumps(out))


# --- the driver -----------------------------------------------------------------------


def prepare(scale: int, data_dir: Path, seed: int) -> Path:
    counts = synth.scaled(scale)
    d = data_dir / f"scale-{scale}-seed-{seed}"
    manifest = d / "manifest.json"
    if manifest.exists() and json.loads(manifest.read_text())["params"] == {**counts, "seed": seed}:
        return d
    print(f"  generating {counts} into {d} ...", flush=True)
    t0 = time.perf_counter()
    synth.Synth(seed=seed, **counts).write(d)
    print(f"  generated in {time.perf_counter() - t0:.0f} s", flush=True)
    return d


def spawn(kind: str, d: Path, **kw) -> dict:
    argv = [sys.executable, "-m", "bench.run", "--worker", kind, "--dir", str(d)]
    for k, v in kw.items():
        argv += [f"--{k.replace('_', '-')}", str(v)]
    proc = subprocess.run(argv, capture_output=True, cwd=REPO, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {kind} failed:\n{proc.stderr.decode()[-3000:]}")
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.0995 else f"{seconds * 1000:.1f} ms"


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(results: dict, scales: list[int]) -> list[str]:
    lines = []
    p = lines.append
    machine = results["machine"]
    p(f"machine: {machine['cpus']} CPUs, {machine['ram_gib']:.0f} GiB RAM, {machine['python']}, {machine['system']}")
    for scale in scales:
        r = results["scales"][str(scale)]
        t, med = r["time"], r["time"]["median"]
        p("")
        p(f"== {scale}x: {json.dumps(r['params'])}")
        p(f"   inputs: {sum(t['input_bytes'].values()) / 1e6:,.1f} MB of JSON/text; reps: {t['reps']} (median)")
        wall = t["wall_median"]
        p(f"   {'stage':44s} {'CPU time':>10s} {'(wall)':>10s} {'peak alloc (tracemalloc)':>26s}")
        tr = r["trace"]
        rows = [
            ("parse: json.loads of every input, whole", "parse", tr.get("parse")),
            ("snapshot parts from the decoded objects", "parts", tr.get("parts")),
            ("sidecar: raw bytes -> parts, per source:", "sidecar_parse_parts", None),
        ]
        for name in SIDECAR_ORDER:
            rows.append((f"  {name}", f"source:{name}", tr[f"source:{name}"]))
        rows += [
            ("derive", "derive", tr["derive"]),
            ("exposition (render)", "render", tr["render"]),
            ("cycle, sidecar path (parts+derive+render)", "cycle", None),
            ("cycle, whole-decode path", "classic_cycle", None),
            ("floor: bare orjson.loads of the JSON inputs", "floor", None),
        ]
        for label, key, mem in rows:
            mem_text = "" if mem is None else f"{mem:,.1f} MB"
            p(f"   {label:44s} {ms(med[key]):>10s} {'(' + ms(wall[key]) + ')':>10s} {mem_text:>26s}")
        p(
            f"   cycle / floor: {med['ratio']:.2f}x in CPU time, {med['ratio_wall']:.2f}x in wall time "
            f"(medians of per-rep ratios; load average {t['load_avg'][0]:.1f})"
        )
        p(f"   parts held after the sources: {tr['parts_held']:,.1f} MB")
        rss, base = r["rss"]["peak_mb"], r["rss"]["base_mb"]
        p(f"   peak RSS, sidecar path: {rss:,.0f} MB (interpreter and imports: {base:.0f} MB)")
        p(f"   peak RSS, whole-decode path: {r['rss_classic']['peak_mb']:,.0f} MB")
        p(f"   exposed series: {t['series']:,} ({t['exposition_bytes'] / 1e3:,.0f} kB)")
        h = r["http"]
        for mode in HTTP_MODES:
            x = h[mode]
            p(
                f"   /metrics, {results['scrapers']} scrapers, {mode:24s}: p50 {x['p50_ms']:5.1f} ms, "
                f"p99 {x['p99_ms']:6.1f} ms, max {x['max_ms']:6.1f} ms ({x['requests']} requests; server CPU "
                f"{x['server_cpu_ms_per_request']:.2f} ms/request; load avg {x['load_avg']:.1f})"
            )
        p99s = ", ".join(f"{x['keepalive-gzip']['p99_ms']:.1f}" for x in r["http_runs"])
        p(f"   keep-alive+gzip p99 of the {len(r['http_runs'])} scrape runs: {p99s} ms (the median run is shown)")
        if "mgr_cycle" in med:
            p(
                f"   mgr module path (objects -> parts -> derive -> render), CPU: parts {ms(med['mgr_parts'])}, "
                f"derive {ms(med['mgr_derive'])}, render {ms(med['mgr_render'])}, total {ms(med['mgr_cycle'])} "
                f"(wall {ms(wall['mgr_cycle'])}); series {int(med['mgr_series']):,}"
            )
        else:
            p(f"   mgr module path: not measured ({t['mgr_error']})")
    p("")
    p("== targets (issue 6)")
    targets = evaluate(results, scales)
    for name, ok, detail in targets:
        p(f"   {verdict(ok)}  {name}: {detail}")
    results["targets"] = [{"target": n, "pass": ok, "detail": d} for n, ok, d in targets]
    return lines


def evaluate(results: dict, scales: list[int]) -> list[tuple[str, bool, str]]:
    out = []
    one = results["scales"].get("1")
    if one:
        ratio = one["time"]["median"]["ratio"]
        out.append(
            (
                f"full cycle <= {TARGET_CYCLE_RATIO:g}x the bare orjson parse (1x)",
                ratio <= TARGET_CYCLE_RATIO,
                f"{ratio:.2f}x in CPU time ({(ratio / TARGET_CYCLE_RATIO - 1) * 100:+.0f} % of the target); "
                f"{one['time']['median']['ratio_wall']:.2f}x in wall time",
            )
        )
        h = one["http"]
        p99 = h["keepalive-gzip"]["p99_ms"]
        out.append(
            (
                f"/metrics p99 < {TARGET_P99_MS:g} ms with {results['scrapers']} concurrent scrapers (1x)",
                p99 < TARGET_P99_MS,
                f"{p99:.1f} ms as Prometheus scrapes (keep-alive, gzip; {(p99 / TARGET_P99_MS - 1) * 100:+.0f} %); "
                f"{h['keepalive']['p99_ms']:.1f} ms uncompressed; {h['new_connection-gzip']['p99_ms']:.1f} ms "
                f"with a new connection per scrape; {h['staggered-keepalive-gzip']['p99_ms']:.1f} ms staggered; "
                f"load average {h['keepalive-gzip']['load_avg']:.1f} on {results['machine']['cpus']} CPUs",
            )
        )
        series = one["time"]["series"]
        out.append(
            (
                f"at most {TARGET_SERIES:,} exposed series (1x)",
                series <= TARGET_SERIES,
                f"{series:,} ({series - TARGET_SERIES:+,})",
            )
        )
        rss = one["rss"]["peak_mb"]
        out.append(
            (
                f"peak RSS < {TARGET_RSS_MB:g} MB (1x)",
                rss < TARGET_RSS_MB,
                f"{rss:,.0f} MB ({rss - TARGET_RSS_MB:+,.0f} MB); "
                f"whole-decode path {one['rss_classic']['peak_mb']:,.0f} MB",
            )
        )
    big = [s for s in scales if s != 1]
    if one and big:
        s = big[-1]
        r = results["scales"][str(s)]
        g_time = r["time"]["median"]["cycle"] / one["time"]["median"]["cycle"]  # CPU time: load-independent
        g_rss = r["rss"]["peak_mb"] / one["rss"]["peak_mb"]
        g_rss_net = (r["rss"]["peak_mb"] - r["rss"]["base_mb"]) / (one["rss"]["peak_mb"] - one["rss"]["base_mb"])
        results["growth"] = {"scale": s, "time": g_time, "rss": g_rss, "rss_without_interpreter": g_rss_net}
        out.append(
            (
                f"{s}x grows the cycle time at most linearly",
                g_time <= s,
                f"{g_time:.1f}x CPU time for {s}x the state ({(g_time / s - 1) * 100:+.0f} % of linear)",
            )
        )
        out.append(
            (
                f"{s}x grows peak RSS at most linearly",
                g_rss_net <= s,
                f"{g_rss:.1f}x ({g_rss_net:.1f}x without the interpreter's {one['rss']['base_mb']:.0f} MB; "
                f"{(g_rss_net / s - 1) * 100:+.0f} % of linear)",
            )
        )
    return out


def machine() -> dict:
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return {
        "cpus": os.cpu_count(),
        "ram_gib": ram,
        "python": f"Python {platform.python_version()}",
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "load_avg_at_start": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    p.add_argument("--scales", default="1,10", help="comma-separated multiples of the study cluster (default 1,10)")
    p.add_argument("--reps", type=int, default=5, help="timed repetitions at 1x (fewer at larger scales; default 5)")
    p.add_argument("--scrapers", type=int, default=50)
    p.add_argument("--requests", type=int, default=2000, help="scrapes at 1x, fewer at larger scales (default 2000)")
    p.add_argument("--http-runs", type=int, default=3, help="runs of the scrape test; the median is judged (default 3)")
    p.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(), "ceph-scale-bench"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="also write every figure to this file")
    p.add_argument("--update", help="results file of an earlier run to re-measure into (with --only)")
    p.add_argument("--only", help="measurements to (re)run: time,trace,rss,rss_classic,http (default all)")
    # Internal: one measurement in its own process.
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--dir", help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, help=argparse.SUPPRESS)
    p.add_argument("--mode", help=argparse.SUPPRESS)
    p.add_argument("--rounds", type=int, default=40, help=argparse.SUPPRESS)
    p.add_argument("--expect-bytes", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--classic", type=int, default=1, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        run_worker(args)
        return 0
    scales = [int(s) for s in args.scales.split(",") if s.strip()]
    results: dict = {"machine": machine(), "scrapers": args.scrapers, "scales": {}}
    if args.update:  # re-measure some kinds only, into an earlier run's results
        results = json.loads(Path(args.update).read_text())
        scales = sorted({*scales, *(int(k) for k in results["scales"])})
    only = set(args.only.split(",")) if args.only else None
    started = time.perf_counter()
    for scale in scales:
        if only is not None and str(scale) not in args.scales.split(","):
            continue
        print(f"{scale}x:", flush=True)
        d = prepare(scale, Path(args.data_dir), args.seed)
        reps = max(2, args.reps // scale) if scale > 1 else args.reps
        rounds = max(4, args.requests // args.scrapers // scale)
        r: dict = results["scales"].get(str(scale), {})
        r["params"] = json.loads((d / "manifest.json").read_text())["params"]
        for key, kind, kw in (
            ("time", "time", {"reps": reps}),
            ("trace", "trace", {"classic": int(scale == 1)}),
            ("rss", "rss", {}),
            ("rss_classic", "rss-classic", {}),
        ):
            if only is not None and key not in only:
                continue
            t0 = time.perf_counter()
            r[key] = spawn(kind, d, **kw)
            print(f"  {key}: {time.perf_counter() - t0:.0f} s", flush=True)
        results["scales"][str(scale)] = r
        if only is not None and "http" not in only:
            continue
        # Latency depends on what else runs on the machine: several runs, the median one is reported.
        runs = []
        for _ in range(args.http_runs):
            t0 = time.perf_counter()
            runs.append(spawn("http", d, scrapers=args.scrapers, rounds=rounds))
            print(f"  http: {time.perf_counter() - t0:.0f} s", flush=True)
        runs.sort(key=lambda x: x["keepalive-gzip"]["p99_ms"])
        r["http_runs"] = runs
        r["http"] = runs[len(runs) // 2]
        results["scales"][str(scale)] = r
    results["elapsed_seconds"] = time.perf_counter() - started
    scales = sorted(int(k) for k in results["scales"])
    lines = report(results, scales)
    print()
    print("\n".join(lines))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
