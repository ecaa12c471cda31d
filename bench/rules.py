"""Rule cost: the rules evaluated by a real Prometheus over 100 study-scale clusters.

    python -m bench.rules [--clusters 100] [--hours 3] [--alerting-share S] [--rules FILE ...]

1. The series: the exporter's own exposition of the synthetic 1x study cluster
   (bench.synth, 318 OSDs), reduced to the families the rule files read, copied
   for --clusters clusters (label cluster="c000".."c099"), every 30 s over the
   last --hours hours: gauges drift a little, counters grow, the exporter's
   timestamps advance. --alerting-share S of the clusters carry the study's
   trouble, the others a quiet copy of the same series (bench/rules_fleet.py).
2. Written as OpenMetrics and backfilled with
   `promtool tsdb create-blocks-from openmetrics`.
3. A real Prometheus (/usr/bin/prometheus, free port, its own temporary
   directory, stopped by its PID) loads the blocks and the rule files and
   evaluates each group its share of --evaluations rounds, at least once (default files: the shipped
   rules/recording.yml and rules/alerts.yml, as a fleet loads them).
4. Reported: prometheus_rule_group_last_duration_seconds (and the samples each
   group wrote) per group, with the series count and the time span, and the
   CPU-seconds of one round: Prometheus' process_cpu_seconds_total over the
   rounds after the first (which also loads the blocks), divided by the
   rounds that elapsed (elapsed time / --interval). Nothing else runs in it:
   nothing is scraped, only this command's polls of /metrics (the rules API,
   whose answers carry every active alert's annotations, only after the rounds
   measured, for each rule's time).
   Then each rule, dearest first: its median evaluation, its expression alone
   and the samples it reads, the rest being its annotations (bench/rules_profile.py).
   With --cpu-profile FILE, Prometheus' own CPU profile of the rounds measured, and
   what in the rules it went to: recording and alerting rules, the alerts' templates,
   their parsing and their queries, garbage collection (bench/rules_pprof.py).

The data ends a little before Prometheus starts, so that the 5 m windows of
the rules see it; nothing is scraped. Needs promtool and prometheus on PATH.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench import run as bench_run  # noqa: E402
from bench import stages, synth  # noqa: E402
from bench.rules_fleet import STEP, alerting_clusters, write_openmetrics  # noqa: E402
from bench.rules_pprof import Capture, ProfileError, print_parts, read  # noqa: E402
from bench.rules_profile import RuleTimes, print_profile, profile  # noqa: E402
from ceph_scale.core import exposition  # noqa: E402
from ceph_scale.core.derive import derive  # noqa: E402
from ceph_scale.core.registry import SOURCE_NAMES  # noqa: E402
from cluster.testcluster import free_port  # noqa: E402

PROFILE_ROUNDS = 2  # rounds of the rules API polled after the measured ones, for each rule's time
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$")
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
METRIC_TOKEN = re.compile(r"(?<![:\w])(ceph_scale_[a-z0-9_]+)(?![:\w])")


def exposition_samples(data_dir: Path, seed: int) -> tuple[list[tuple[str, str, dict, float]], dict[str, str]]:
    """(family, sample name, labels, value) of the 1x study cluster's exposition, and family -> type."""
    d = bench_run.prepare(1, data_dir, seed)
    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    raws = stages.load_raws(d)
    parts = {name: stages.sidecar_source(name, raws, d, now) for name in SOURCE_NAMES}
    del raws
    state = stages.primed_state(stages.warm_parts(parts, now - 30), now - 30, fsid)
    text = exposition.render(derive(stages.snapshot(parts, now, fsid), state)).decode()
    types: dict[str, str] = {}
    samples = []
    family = ""
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            family = name[: -len("_total")] if kind == "counter" and name.endswith("_total") else name
            types[family] = kind
            continue
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if m is None:
            raise ValueError(f"unexpected exposition line: {line[:80]}")
        labels = dict(LABEL.findall(m.group(2) or ""))
        samples.append((family, m.group(1), labels, float(m.group(3))))
    return samples, types


def rule_metrics(rule_files: list[Path]) -> set[str]:
    names: set[str] = set()
    for f in rule_files:
        names |= set(METRIC_TOKEN.findall(f.read_text()))
    return names


def query(port: int, expr: str) -> list:
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())["data"]["result"]


def own_metrics(port: int) -> dict[str, list[tuple[dict, float]]]:
    """Prometheus' own /metrics (nothing is scraped, so its self-metrics are not in its TSDB)."""
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as r:
        text = r.read().decode()
    out: dict[str, list[tuple[dict, float]]] = {}
    for fam in text_string_to_metric_families(text):
        for sample in fam.samples:
            out.setdefault(sample.name, []).append((sample.labels, sample.value))
    return out


def process_cpu(port: int) -> float:
    """Prometheus' own process_cpu_seconds_total."""
    return sum(value for _, value in own_metrics(port).get("process_cpu_seconds_total", []))


def parse_seconds(duration: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m|h)", duration)
    if m is None:
        raise SystemExit(f"--interval: {duration!r} is not a duration like 30s or 1m")
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def prometheus_config(work: Path, rule_files: list[Path], interval: str) -> Path:
    """work/prometheus.yml evaluating copies of `rule_files` (in work/rules) every `interval`."""
    (work / "rules").mkdir()
    for f in rule_files:
        shutil.copy(f, work / "rules" / f.name)
    config = work / "prometheus.yml"
    config.write_text(
        json.dumps(
            {
                "global": {"evaluation_interval": interval, "scrape_interval": interval},
                "rule_files": [str(work / "rules" / f.name) for f in rule_files],
            }
        )
    )
    return config


def launched(config: Path, tsdb: Path, port: int, work: Path, *flags: str) -> subprocess.Popen:
    """Prometheus with `config` over the blocks in `tsdb` on `port`, its output in
    work/prometheus.log; `flags` added to its command line."""
    log = open(work / "prometheus.log", "wb")
    return subprocess.Popen(
        [
            "prometheus",
            f"--config.file={config}",
            f"--storage.tsdb.path={tsdb}",
            f"--web.listen-address=127.0.0.1:{port}",
            *flags,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def until_answering(proc: subprocess.Popen, work: Path, port: int, expr: str, timeout: float, data: bool) -> None:
    """Until Prometheus answers `expr` (with data, if `data`); RuntimeError with its log's tail if
    it exits, and the last connection error once `timeout` seconds have passed."""
    deadline = time.time() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"prometheus exited {proc.returncode}: {(work / 'prometheus.log').read_text()[-2000:]}")
        try:
            if query(port, expr) or not data:
                return
        except OSError:
            if time.time() > deadline:
                raise
        if time.time() > deadline:
            raise RuntimeError(f"prometheus gave no data for {expr} in {timeout:.0f} s")
        time.sleep(1)


def stopped(proc: subprocess.Popen | None, work: Path) -> None:
    """The benchmark's Prometheus stopped by its PID (SIGTERM, then SIGKILL after 60 s), and its
    temporary directory removed."""
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    shutil.rmtree(work, ignore_errors=True)


def evaluated_enough(counts: dict[str, int], intervals: dict[str, float], evaluations: int, base: float) -> bool:
    """Whether every group has run its share of `evaluations` rounds of `base` seconds: a group
    of a longer interval (the 5-minute records) at least once, as it runs once in ten 30 s rounds."""
    return all(
        counts.get(name, 0) >= max(1, int(evaluations * base // max(interval, base)))
        for name, interval in intervals.items()
    )


def group_evaluations(own: dict) -> dict[str, tuple[float, float]]:
    """{group: (its last evaluation's timestamp, how long it took)} from Prometheus' own /metrics."""
    stamps = {
        labels["rule_group"].split(";")[-1]: value
        for labels, value in own.get("prometheus_rule_group_last_evaluation_timestamp_seconds", [])
    }
    took = {
        labels["rule_group"].split(";")[-1]: value
        for labels, value in own.get("prometheus_rule_group_last_duration_seconds", [])
    }
    return {name: (stamp, took.get(name, 0.0)) for name, stamp in stamps.items()}


def rules_api(port: int) -> list:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/rules", timeout=30) as r:
        return json.loads(r.read())["data"]["groups"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.rules", description=__doc__.split("\n\n")[0])
    p.add_argument("--clusters", type=int, default=100)
    p.add_argument("--hours", type=float, default=3.0)
    p.add_argument(
        "--rules", action="append", help="rule file (repeatable; default rules/recording.yml and rules/alerts.yml)"
    )
    p.add_argument("--interval", default="30s", help="group evaluation interval (default 30s)")
    p.add_argument("--evaluations", type=int, default=4, help="rounds measured, at least (default 4)")
    p.add_argument(
        "--lead",
        type=float,
        default=None,
        help="seconds the data extends past the moment it is written, so that it ends just before Prometheus "
        "starts (default: the expected write + backfill time, ~6 us a sample on 2 cores)",
    )
    p.add_argument(
        "--alerting-share",
        type=float,
        default=None,
        help="share of the clusters in the study's trouble, the others quiet (default 1: all; bench/rules_fleet.py)",
    )
    p.add_argument("--top", type=int, default=25, help="rules shown in the per-rule profile (default 25)")
    p.add_argument("--data-dir", default=os.path.join(tempfile.gettempdir(), "ceph-scale-bench"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", help="also write the figures to this file")
    p.add_argument(
        "--cpu-profile",
        help="write Prometheus' CPU profile of the rounds measured to this file and print where it went "
        "(bench/rules_pprof.py; reading it needs Go)",
    )
    args = p.parse_args(argv)
    default_files = [str(REPO / "rules" / "recording.yml"), str(REPO / "rules" / "alerts.yml")]
    rule_files = [Path(r).resolve() for r in (args.rules or default_files)]
    for tool in ("promtool", "prometheus"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found (apt install prometheus)")
    for f in rule_files:
        subprocess.run(["promtool", "check", "rules", str(f)], check=True, capture_output=True)

    print("exposition of the 1x study cluster ...", flush=True)
    samples, types = exposition_samples(Path(args.data_dir), args.seed)
    wanted = rule_metrics(rule_files)
    kept = [s for s in samples if s[1] in wanted]
    per_cluster = len(kept)
    print(
        f"  {len(samples):,} series per cluster exposed, {per_cluster:,} in the {len(wanted)} metric names "
        f"the rules read; x {args.clusters} clusters = {per_cluster * args.clusters:,} series",
        flush=True,
    )
    work = Path(tempfile.mkdtemp(prefix="ceph-scale-rules-"))
    proc = None
    try:
        points = int(args.hours * 3600) // STEP + 1
        lead = args.lead if args.lead is not None else 30 + 8e-6 * per_cluster * args.clusters * points
        end = int(time.time() + lead) // STEP * STEP
        start = end - int(args.hours * 3600)
        om = work / "series.om"
        t0 = time.perf_counter()
        alerting = alerting_clusters(args.clusters, args.alerting_share)
        n = write_openmetrics(om, kept, types, args.clusters, alerting, start, end)
        t_write = time.perf_counter() - t0
        size = om.stat().st_size
        print(f"  wrote {n:,} samples ({size / 1e9:.2f} GB OpenMetrics) in {t_write:.0f} s", flush=True)
        tsdb = work / "tsdb"
        t0 = time.perf_counter()
        subprocess.run(
            ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(om), str(tsdb)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        t_backfill = time.perf_counter() - t0
        om.unlink()
        blocks = sum(f.stat().st_size for f in tsdb.rglob("*") if f.is_file())
        print(f"  backfilled in {t_backfill:.0f} s: {blocks / 1e6:,.0f} MB of blocks", flush=True)

        wait = end + 1 - time.time()
        if wait > 0:  # the head must start after the blocks end
            time.sleep(wait)
        port = free_port()
        config = prometheus_config(work, rule_files, args.interval)
        proc = launched(config, tsdb, port, work, "--storage.tsdb.retention.time=30d", "--web.enable-lifecycle")
        started = time.time()
        gap = started - end
        print(f"  prometheus pid {proc.pid} on port {port}; data ends {gap:.0f} s before it starts", flush=True)
        if gap > 240:
            print("  WARNING: the 5 m windows will find little data; raise --lead", flush=True)
        deadline = time.time() + 600
        until_answering(proc, work, port, "up", 600, data=False)
        durations: dict[str, list[float]] = {}
        written: dict[str, float] = {}
        seen: dict[str, float] = {}
        base = parse_seconds(args.interval)
        intervals = {g["name"]: float(g.get("interval") or base) for g in rules_api(port)}
        each_round = {name for name, interval in intervals.items() if interval <= base}
        rule_times = RuleTimes()
        # (time, CPU seconds) once every group of each round has run once; the measured rounds are
        # those after it, at least `evaluations` of them. A 5-minute group runs 0 or 1 times in
        # them, not its 0.4 share of 4 rounds: the records cost 1 to 3 ms an evaluation, under 1 ms
        # a round either way. Waiting 5 minutes more would outlast the data's lead (--lead), and
        # the 5-minute windows of the alerts would empty.
        first_round: tuple[float, float] | None = None
        capture: Capture | None = None
        while (
            first_round is None
            or time.time() - first_round[0] < args.evaluations * base
            or not evaluated_enough({k: len(v) for k, v in durations.items()}, intervals, args.evaluations, base)
        ):
            if time.time() > deadline:
                raise RuntimeError("the rule groups did not evaluate in time")
            time.sleep(2)
            for name, (stamp, seconds) in group_evaluations(own_metrics(port)).items():
                if stamp <= 0 or seen.get(name) == stamp:
                    continue
                seen[name] = stamp
                durations.setdefault(name, []).append(seconds)
            if first_round is None and each_round <= set(durations):
                first_round = (time.time(), process_cpu(port))
                if args.cpu_profile:
                    capture = Capture(port, args.evaluations * base)
        own = own_metrics(port)
        cpu_end, t_end = process_cpu(port), time.time()
        # Before the rules API's answers below, which cost the server more than a tenth of a round.
        saved = None
        if capture is not None:
            try:
                saved = capture.save(Path(args.cpu_profile))
            except ProfileError as e:
                print(f"  {e}", flush=True)
        # Only now the rules API, whose every answer carries each active alert with its
        # annotations (1,144 of them at the study's trouble): polled every 2 s during the rounds
        # measured, encoding them cost Prometheus more than a tenth of the CPU counted as rules'.
        active = {
            (r["metric"]["alertname"], r["metric"]["alertstate"]): int(float(r["value"][1]))
            for r in query(port, "count by (alertname, alertstate) (ALERTS)")
        }
        profile_end = time.time() + PROFILE_ROUNDS * base
        if profile_end > end + 300:  # the alerts' 5-minute windows empty then, and the profile with them
            print("  WARNING: the profile outlasts the data's 5-minute windows; raise --lead", flush=True)
        while time.time() < profile_end:
            rule_times.add(rules_api(port))
            time.sleep(base / 4)
        rules_profile = profile(port, rule_times)
        assert first_round is not None
        rounds = (t_end - first_round[0]) / base
        cpu_per_round = (cpu_end - first_round[1]) / rounds
        metric = {
            labels["rule_group"].split(";")[-1]: value
            for labels, value in own.get("prometheus_rule_group_last_duration_seconds", [])
        }
        for labels, value in own.get("prometheus_rule_group_last_evaluation_samples", []):
            written[labels["rule_group"].split(";")[-1]] = value
        failures = sum(value for _, value in own.get("prometheus_rule_evaluation_failures_total", []))
        rss = [value for _, value in own.get("process_resident_memory_bytes", [])]
    finally:
        stopped(proc, work)

    result = {
        "clusters": args.clusters,
        "alerting_clusters": alerting,
        "rules": rules_profile,
        "series": per_cluster * args.clusters,
        "samples": n,
        "hours": args.hours,
        "step_seconds": STEP,
        "openmetrics_gb": size / 1e9,
        "blocks_mb": blocks / 1e6,
        "backfill_seconds": t_backfill,
        "data_gap_seconds": gap,
        "rule_files": [str(f.relative_to(REPO)) if f.is_relative_to(REPO) else str(f) for f in rule_files],
        "evaluation_failures": failures,
        "cpu_seconds_per_round": cpu_per_round,
        "active_alerts": {f"{name} {state}": n for (name, state), n in sorted(active.items())},
        "rounds_measured": rounds,
        "prometheus_rss_mb": rss[0] / 1e6 if rss else None,
        "groups": {
            g: {
                "last_duration_seconds": metric.get(g),
                "median_duration_seconds": statistics.median(v),
                "max_duration_seconds": max(v),
                "evaluations": len(v),
                "samples_written": written.get(g),
            }
            for g, v in sorted(durations.items())
        },
    }
    total = sum(g["last_duration_seconds"] or 0 for g in result["groups"].values())
    result["total_last_duration_seconds"] = total
    print()
    print(
        f"rule cost: {args.clusters} clusters x {per_cluster:,} series ({result['series']:,} series, "
        f"{args.hours:g} h of {STEP} s samples), {len(rule_files)} rule file(s), evaluation every {args.interval}; "
        f"{alerting} of the clusters in the study's trouble, {args.clusters - alerting} quiet"
    )
    print(f"  {'group':36s} {'last duration':>14s} {'median':>10s} {'max':>10s} {'samples out':>12s}")
    for g, v in result["groups"].items():
        print(
            f"  {g:36s} {v['last_duration_seconds'] * 1000:11.1f} ms {v['median_duration_seconds'] * 1000:7.1f} ms "
            f"{v['max_duration_seconds'] * 1000:7.1f} ms {v['samples_written'] or 0:12,.0f}"
        )
    print(f"  all groups, last evaluation: {total * 1000:.1f} ms; evaluation failures: {failures:g}")
    out = sum(g["samples_written"] or 0 for g in result["groups"].values())
    print(
        f"  one round: {cpu_per_round:.2f} CPU-seconds of Prometheus (over {rounds:.1f} rounds) "
        f"for {result['series']:,} series read, {out:,.0f} written"
    )
    if active:
        # A pending or firing alert expands its annotations every round: their queries are in the cost.
        print("  active alerts (each expands its annotations, queries included, every round):")
        for (name, state), n in sorted(active.items()):
            print(f"    {name} {state}: {n}")
    print_profile(rules_profile, args.top)
    cpu_profile = None
    if saved is not None:  # read once the server is gone (pprof is built on its first use here)
        try:
            cpu_profile = read(saved)
        except ProfileError as e:
            print(f"  {e}")
    if cpu_profile is not None:
        print_parts(cpu_profile, base)
        result["cpu_profile"] = {"file": args.cpu_profile, **dataclasses.asdict(cpu_profile)}
    if result["prometheus_rss_mb"]:
        print(f"  Prometheus RSS: {result['prometheus_rss_mb']:,.0f} MB")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
