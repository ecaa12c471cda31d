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
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import cost_model, synth  # noqa: E402
from bench.http_load import worker_scrape  # noqa: E402
from bench.http_worker import worker_http  # noqa: E402
from bench.memory import worker_rss, worker_trace  # noqa: E402
from bench.report import machine, report  # noqa: E402
from bench.timing import worker_time  # noqa: E402

# --- workers (one process per scale and kind) ------------------------------------------


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
