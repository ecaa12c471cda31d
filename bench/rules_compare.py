"""Two rule sets side by side: the CPU of one round of each, measured in one run, and their ratio.

    python -m bench.rules_compare --before DIR [--after DIR] [--clusters 100] [--hours 1] [--rounds 8]

`python -m bench.rules` measures one rule set; its CPU-seconds move by a tenth or more between
runs and between machines (the same rules measured 0.97 on one 2-core machine and 1.35-1.62 on
another). This command backfills the fleet once (bench.rules' series, every cluster in the
study's trouble unless --alerting-share says otherwise), copies the blocks, and starts two real
Prometheus servers at once, one per rule set (DIR holds recording.yml and alerts.yml; --after
defaults to the shipped rules/). Both evaluate over the same wall-clock window on the same
machine, so what slows one slows the other. Printed: each one's CPU-seconds of a round over the
same --rounds rounds, after each has run every per-round group once, and after / before.

Each Prometheus gets its own temporary directory and is stopped by its PID.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.rules import (
    REPO,
    exposition_samples,
    group_evaluations,
    launched,
    own_metrics,
    parse_seconds,
    process_cpu,
    prometheus_config,
    rule_metrics,
    rules_api,
    stopped,
    until_answering,
)
from bench.rules_fleet import STEP, alerting_clusters, write_openmetrics
from cluster.testcluster import free_port

RULE_FILES = ("recording.yml", "alerts.yml")


@dataclass
class Server:
    """One Prometheus of the comparison: its rule set's name, directory, and once started its
    process and port."""

    name: str
    work: Path
    proc: subprocess.Popen | None = None
    port: int = 0
    ready: bool = False  # every per-round group has run once


def rule_set(directory: Path) -> list[Path]:
    files = [directory / f for f in RULE_FILES]
    for f in files:
        if not f.is_file():
            raise SystemExit(f"{f}: no such rule file (a rule set is a directory with {' and '.join(RULE_FILES)})")
        check = subprocess.run(["promtool", "check", "rules", str(f)], capture_output=True, text=True)
        if check.returncode != 0:
            lines = [line for line in (check.stdout + check.stderr).splitlines() if line.strip()]
            raise SystemExit(f"{f}: promtool check rules failed: {lines[-1] if lines else check.returncode}")
    return files


def prepared(name: str, rule_files: list[Path], blocks: Path, interval: str, servers: list[Server]) -> None:
    """A Prometheus's own directory: a copy of `blocks`, `rule_files` and a configuration
    evaluating them every `interval`; added to `servers` first, so that it is removed on any error."""
    server = Server(name, Path(tempfile.mkdtemp(prefix=f"ceph-scale-compare-{name}-")))
    servers.append(server)
    shutil.copytree(blocks, server.work / "tsdb")
    prometheus_config(server.work, rule_files, interval)


def start(server: Server) -> None:
    server.port = free_port()
    config = server.work / "prometheus.yml"
    server.proc = launched(config, server.work / "tsdb", server.port, server.work, "--storage.tsdb.retention.time=30d")


def stopped_all(servers: list[Server]) -> None:
    """Every server stopped by its PID and its directory removed, the others even if one fails."""
    if servers:
        try:
            stopped(servers[0].proc, servers[0].work)
        finally:
            stopped_all(servers[1:])


def round_groups(server: Server, base: float) -> set[str]:
    """The groups evaluated every round (no interval of their own longer than the base)."""
    return {g["name"] for g in rules_api(server.port) if float(g.get("interval") or base) <= base}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.rules_compare", description=__doc__.split("\n\n")[0])
    p.add_argument("--before", required=True, help="directory holding the rule set to compare against")
    p.add_argument("--after", default=str(REPO / "rules"), help="directory of the other rule set (default rules/)")
    p.add_argument("--clusters", type=int, default=100)
    p.add_argument("--hours", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=8, help="rounds measured (default 8)")
    p.add_argument("--interval", default="30s", help="group evaluation interval (default 30s)")
    p.add_argument("--alerting-share", type=float, default=None, help="as bench.rules (default 1: all)")
    p.add_argument("--data-dir", default=str(Path(tempfile.gettempdir()) / "ceph-scale-bench"))
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    base = parse_seconds(args.interval)
    sets = {"before": rule_set(Path(args.before)), "after": rule_set(Path(args.after))}
    wanted = rule_metrics(sets["before"]) | rule_metrics(sets["after"])

    samples, types = exposition_samples(Path(args.data_dir), args.seed)
    kept = [s for s in samples if s[1] in wanted]
    work = Path(tempfile.mkdtemp(prefix="ceph-scale-compare-"))
    servers: list[Server] = []
    try:
        points = int(args.hours * 3600) // STEP + 1
        # Written, backfilled and copied twice before the servers start: ~10 us a sample on 2 cores.
        lead = 60 + 10e-6 * len(kept) * args.clusters * points
        end = int(time.time() + lead) // STEP * STEP
        alerting = alerting_clusters(args.clusters, args.alerting_share)
        om = work / "series.om"
        n = write_openmetrics(om, kept, types, args.clusters, alerting, end - int(args.hours * 3600), end)
        blocks = work / "tsdb"
        subprocess.run(
            ["promtool", "tsdb", "create-blocks-from", "openmetrics", str(om), str(blocks)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        om.unlink()
        for name, files in sets.items():  # both copies made before the data ends
            prepared(name, files, blocks, args.interval, servers)
        wait = end + 1 - time.time()
        if wait > 0:  # the heads must start after the blocks end
            time.sleep(wait)
        for s in servers:  # one after the other: each takes a free port once the one before holds its own
            start(s)
            assert s.proc is not None
            until_answering(s.proc, s.work, s.port, "up", 600, data=False)
        gap = time.time() - end
        print(f"{n:,} samples of {args.clusters} clusters ({alerting} in trouble); data ends {gap:.0f} s before")
        if gap > 120:
            raise SystemExit("the data ended long before the servers started (5-minute windows empty): fewer --hours")
        groups = {s.name: round_groups(s, base) for s in servers}
        deadline = time.time() + 600
        while not all(s.ready for s in servers):
            if time.time() > deadline:
                raise RuntimeError("the rule groups did not evaluate in time")
            time.sleep(1)
            for s in servers:
                done = {g for g, (stamp, _) in group_evaluations(own_metrics(s.port)).items() if stamp > 0}
                s.ready = s.ready or groups[s.name] <= done
        t0 = time.time()
        starts = {s.name: process_cpu(s.port) for s in servers}
        time.sleep(args.rounds * base)
        rounds = (time.time() - t0) / base
        per_round = {s.name: (process_cpu(s.port) - starts[s.name]) / rounds for s in servers}
        if time.time() > end + 300:
            raise SystemExit("the rounds outlasted the data's 5-minute windows (alerts left pending): fewer --rounds")
    finally:
        stopped_all(servers)
        shutil.rmtree(work, ignore_errors=True)

    print(f"one round, CPU-seconds of each Prometheus over the same {rounds:.1f} rounds:")
    for name in sets:
        print(f"  {name:7s} {per_round[name]:.3f}  ({args.before if name == 'before' else args.after})")
    print(f"  after / before: {per_round['after'] / per_round['before']:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
