"""The scale benchmark: the full path at 1x and 10x the 10B study cluster, in one run.

    python -m bench.run                  # --scales 1,10
    python -m bench.run --scales 1 --json results.json

Per scale, on state from bench.synth (generated once into --data-dir, then reused):

- time of each stage, median of --reps runs, each in a fresh process per scale:
  parse (json.loads of the raw bytes, as the sources decode them), snapshot parts
  (ceph_scale.core.inputs), derive, exposition (ceph_scale.core.exposition.render);
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
import dataclasses
import functools
import gc
import gzip
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import canned, cost_model, synth  # noqa: E402
from bench.canned import INPUT_FILES, PARSER_FILES, SOURCE_FILES  # noqa: E402
from bench.canned_mgr import CannedMgr, mgr_bucket_poll, mgr_package, mgr_parts  # noqa: E402
from bench.http_load import HTTP_MODES, worker_scrape  # noqa: E402
from bench.report import machine, report  # noqa: E402
from ceph_scale.core import exposition, inputs  # noqa: E402
from ceph_scale.core.config import Thresholds  # noqa: E402
from ceph_scale.core.derive import DerivationState, derive  # noqa: E402
from ceph_scale.core.registry import SOURCE_BY_NAME, SOURCE_NAMES  # noqa: E402
from ceph_scale.core.signals.tenants.derive import OPTIONS as TENANTS_OPTIONS  # noqa: E402
from ceph_scale.core.signals.tenants.derive import SIGNAL as TENANTS_SIGNAL  # noqa: E402
from ceph_scale.core.signals.tenants.derive import usage_family  # noqa: E402
from ceph_scale.core.snapshot import Snapshot, SourceStatus  # noqa: E402

# --- the stages ---------------------------------------------------------------------


def decode_text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


def parse_all(raws: dict[str, bytes]) -> dict[str, Any]:
    """Every input of the whole-decode path decoded whole (json.loads; the prometheus text as str):
    the registered parsers' inputs, every bucket's stats in one request among them (the design
    before the bucket poll)."""
    out = {}
    for files in PARSER_FILES.values():
        for name in files:
            raw = raws[name]
            out[name] = decode_text(raw) if name.endswith(".txt") else json.loads(raw)
    return out


def parts_from_decoded(dec: dict[str, Any], t: float) -> dict[str, Any]:
    """Every part from the whole-decoded inputs: the path before the chunked decode."""
    return {name: parts_from_source_decoded(name, dec, t) for name in SOURCE_NAMES}


def sidecar_source(name: str, raws: dict[str, bytes], d: Path, t: float) -> Any:
    """One collection of the sidecar's real source `name` on clients canned from `d`."""
    return canned.collect(name, raws, d, t)


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
    """Every source succeeded at `t`, each with its default interval, as both producers report
    them (ceph_scale_source_interval_seconds: one series a source)."""
    statuses = tuple(
        status_cls(name, True, 0.1, t, interval_seconds=SOURCE_BY_NAME[name].interval) for name in SOURCE_NAMES
    )
    return snapshot_cls(taken_at=t, fsid=fsid, sources=statuses, **parts)


def primed_state(warm: dict[str, Any], t: float, fsid: str, state_cls=DerivationState, derive_fn=derive, **kw):
    state = state_cls(Thresholds())
    derive_fn(snapshot(warm, t, fsid, **kw), state)
    return state


def series_count(body: bytes) -> int:
    return sum(1 for line in body.split(b"\n") if line and not line.startswith(b"#"))


# What the tenants signal adds besides its usage families: its success and failure counts, and
# its options in ceph_scale_config (signals/tenants: usage_series counts the same in families).
TENANTS_MARKS = (f'signal="{TENANTS_SIGNAL}"'.encode(), *(f'option="{o}"'.encode() for o in TENANTS_OPTIONS))


def usage_series_count(body: bytes) -> int:
    """The series the tenant and bucket usage adds, which keeps a budget of its own
    (signals/tenants: series_budget, set by two options) beside the core's: its families, its
    signal's two series and its options' (as signals/tenants' usage_series counts them)."""
    return sum(
        1
        for line in body.split(b"\n")
        if line
        and not line.startswith(b"#")
        and (usage_family(line.split(b"{")[0].split(b" ")[0].decode()) or any(m in line for m in TENANTS_MARKS))
    )


# --- workers (one process per scale and kind) ------------------------------------------


def load_raws(d: Path, files: dict[str, tuple[str, ...]] = PARSER_FILES) -> dict[str, bytes]:
    every = {name for names in (*files.values(), *SOURCE_FILES.values()) for name in names}
    return {name: (d / name).read_bytes() for name in every}


def same_parts(side: dict[str, Any], whole: dict[str, Any]) -> bool:
    """The sidecar's parts are the whole-decode path's; its bucket poll holds stats read at other
    times (each bucket's own), so buckets compare by what the signals judge."""

    def judged(part: Any) -> dict:
        return {b.key: (b.bucket_id, b.num_shards, b.num_objects) for b in part.buckets}

    rest = [n for n in SOURCE_NAMES if n != "buckets"]
    return {n: side[n] for n in rest} == {n: whole[n] for n in rest} and judged(side["buckets"]) == judged(
        whole["buckets"]
    )


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
    previous = warm_parts({name: sidecar_source(name, raws, d, now) for name in SOURCE_NAMES}, now - 30)
    for rep in range(reps):
        state = primed_state(previous, now - 30, fsid)
        gc.collect()
        _, t_floor = timed(floor, raws)
        add("floor", t_floor)
        walls["floor"] = LAST_WALL[0]
        # The sidecar's path, per source.
        side = {}
        total = total_wall = 0.0
        for name in SOURCE_NAMES:
            side[name], t = timed(sidecar_source, name, raws, d, now)
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
            assert same_parts(side, parts), "the sidecar's chunked decode must give the same parts"
        add(
            "classic_cycle",
            t_parse + t_parts + t_derive + t_render,
            walls["parse"] + walls["parts"] + walls["derive"] + walls["render"],
        )
        del side
        if m is not None:
            counters = inputs.counters_from_prometheus_text(dec["mgr_prometheus_metrics.txt"])
            mgr = CannedMgr(dec, counters)
            mgr_buckets = mgr_bucket_poll(m, d, canned.bucket_source(raws, d).ctx.rgw)
            try:
                mparts, t_mparts = timed(mgr_parts, m, mgr, dec, mgr_buckets)
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
        "usage_series": usage_series_count(body),
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
    canned.bucket_source(raws, d)  # the bucket poll's state, restored once: what a cycle adds is traced
    side = {}
    for name in SOURCE_NAMES:
        side[name] = stage(f"source:{name}", sidecar_source, name, raws, d, now)
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
    for name in SOURCE_NAMES:
        raws = {f: (d / f).read_bytes() for f in (PARSER_FILES if classic else SOURCE_FILES)[name]}
        if classic:
            dec = {f: decode_text(b) if f.endswith(".txt") else json.loads(b) for f, b in raws.items()}
            parts[name] = parts_from_source_decoded(name, dec, now)
            del dec
        else:
            parts[name] = sidecar_source(name, raws, d, now)
        del raws
    state = primed_state(warm_parts(parts, now - 30), now - 30, fsid)
    body = exposition.render(derive(snapshot(parts, now, fsid), state))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"base_mb": base, "peak_mb": peak, "series": series_count(body)}


def parts_from_source_decoded(name: str, dec: dict[str, Any], t: float) -> Any:
    """The registered parser of source `name` on its whole-decoded inputs (the module decodes whole too)."""

    def decoded(input_name: str) -> Any:
        value = dec[INPUT_FILES[input_name]]
        # The canned counters are the prometheus text: read into counters here, as the sidecar does.
        return inputs.counters_from_prometheus_text(value) if input_name == "perf counters" else value

    return SOURCE_BY_NAME[name].parse(decoded, t)


def worker_http(d: Path, scrapers: int, rounds: int) -> dict:
    """The real sidecar server, serving the rendered exposition; the scrapers run in another process."""
    from exporter.sidecar.collector import Collector
    from exporter.sidecar.http_server import serve

    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    raws = load_raws(d)
    parts = {name: sidecar_source(name, raws, d, now) for name in SOURCE_NAMES}
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


def _worker_dir(args: argparse.Namespace) -> Path:
    """The data directory a worker reads (the parent process always passes --dir)."""
    if not args.dir:
        raise SystemExit(f"bench worker {args.worker}: --dir is required")
    return Path(args.dir)


def run_worker(args: argparse.Namespace) -> None:
    if args.worker == "time":
        out = worker_time(_worker_dir(args), args.reps)
    elif args.worker == "trace":
        out = worker_trace(_worker_dir(args), classic=bool(args.classic))
    elif args.worker in ("rss", "rss-classic"):
        out = worker_rss(_worker_dir(args), classic=args.worker == "rss-classic")
    elif args.worker == "http":
        out = worker_http(_worker_dir(args), args.scrapers, args.rounds)
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
    if manifest.exists() and json.loads(manifest.read_text())["params"] == {
        "format": synth.FORMAT,
        **counts,
        "seed": seed,
    }:
        return d
    print(f"  generating {counts} into {d} ...", flush=True)
    t0 = time.perf_counter()
    synth.Synth(seed=seed, **counts).write(d)
    print(f"  generated in {time.perf_counter() - t0:.0f} s", flush=True)
    return d


def cluster_costs(scales: list[int], seed: int) -> dict[str, dict]:
    """Each source's cost to the watched cluster at each scale (bench/cost_model.py)."""
    m = cost_model.measured()
    out = {}
    for scale in scales:
        counts = synth.scaled(scale)
        shards = synth.Synth(seed=seed, **counts).index_shards()
        out[str(scale)] = cost_model.costs(counts["buckets"], shards, counts["pgs"], m)
    return out


def spawn(kind: str, d: Path, **kw) -> dict:
    argv = [sys.executable, "-m", "bench.run", "--worker", kind, "--dir", str(d)]
    for k, v in kw.items():
        argv += [f"--{k.replace('_', '-')}", str(v)]
    proc = subprocess.run(argv, capture_output=True, cwd=REPO, timeout=3600)
    if proc.returncode != 0:
        raise RuntimeError(f"worker {kind} failed:\n{proc.stderr.decode()[-3000:]}")
    return json.loads(proc.stdout.decode().strip().splitlines()[-1])


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
    results["cluster_cost"] = cluster_costs(scales, args.seed)
    if args.json:  # the measurements first: a report that fails loses none of them
        Path(args.json).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    lines = report(results, scales)
    print()
    print("\n".join(lines))
    if args.json:  # with the targets the report judged
        Path(args.json).write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
