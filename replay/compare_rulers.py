"""The shipped rules under two rule engines over one replayed scenario: Prometheus's
(replay/ruler) and Grafana Mimir's ruler with Mimir's query engine (replay/mimir_ruler).

    python -m replay.compare_rulers replay/scenarios/study_10b.yml [--keep DIR]

Simulates and backfills the scenario once (as replay.run does), evaluates the shipped rules over
the same blocks and staleness markers with each engine, and prints every difference in the alert
timelines (each state change: time, alert, labels, state, active since), none expected, then the
CPU time of one evaluation round of each engine and their ratio. Exit status 0: the timelines are
identical; 1: they differ; 2: the replay or an engine failed.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from replay import engine, scenario, simulate  # noqa: E402

# One state change of one alert, as both engines write it; the alert's value is left out (it is
# for reading, and two engines may sum in another order), and compared apart with a tolerance.
Change = tuple[float, str, str, float, tuple[tuple[str, str], ...]]
VALUE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class EngineRun:
    name: str
    changes: list[Change]
    values: dict[Change, float]
    summary: dict[str, Any]
    cpu_seconds: float  # user + system of the whole run, startup included


@dataclass(frozen=True)
class Comparison:
    evaluations: int
    runs: tuple[EngineRun, EngineRun]
    only_in: tuple[list[Change], list[Change]]  # changes of one engine the other did not write
    value_differences: list[tuple[Change, float, float]]
    round_cpu: tuple[float, float]  # CPU seconds of one round, startup excluded

    @property
    def identical(self) -> bool:
        return not self.only_in[0] and not self.only_in[1]


def mimir_ruler_binary() -> Path:
    return Path(engine.run([str(REPO / "replay" / "mimir_ruler" / "build.sh")], "building Mimir's ruler").strip())


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_engine(
    name: str, binary: Path, blocks: Path, stale: Path, start: float, end: float, interval: float
) -> EngineRun:
    cmd = [str(binary), "-blocks", str(blocks), "-stale", str(stale)]
    for f in engine.RULE_FILES:
        cmd += ["-rules", str(f)]
    cmd += ["-start", repr(start), "-end", repr(end), "-interval", repr(interval)]
    before = children_cpu()
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        raise engine.EngineError(f"{name}: {e}") from None
    cpu = children_cpu() - before
    if done.returncode != 0:
        raise engine.EngineError(f"{name} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    if done.stderr.strip():
        # A rule that fails to evaluate is silent in the timeline: name it.
        print(f"{name}: {done.stderr.strip()}", file=sys.stderr)
    lines = done.stdout.splitlines()
    if not lines:
        raise engine.EngineError(f"{name} wrote nothing")
    changes, values = [], {}
    for line in lines[:-1]:
        row = json.loads(line)
        change = (row["t"], row["alert"], row["state"], row["active_at"], tuple(sorted(row["labels"].items())))
        changes.append(change)
        values[change] = row["value"]
    return EngineRun(name, changes, values, json.loads(lines[-1]), cpu)


def compare_blocks(blocks: Path, stale: Path, start: float, end: float, interval: float) -> Comparison:
    """Both engines over the same blocks; each also runs one evaluation alone, whose CPU time
    (opening the blocks, loading the rules) is taken from its full run's to give one round's."""
    binaries = (("prometheus", engine.ruler_binary()), ("mimir", mimir_ruler_binary()))
    runs = tuple(run_engine(n, b, blocks, stale, start, end, interval) for n, b in binaries)
    startup = tuple(run_engine(n, b, blocks, stale, start, start, interval).cpu_seconds for n, b in binaries)
    evaluations = int(runs[0].summary["evaluations"])
    if int(runs[1].summary["evaluations"]) != evaluations:
        raise engine.EngineError(
            f"the engines evaluated {evaluations} and {runs[1].summary['evaluations']} rounds over one span"
        )
    rounds = max(evaluations - 1, 1)
    round_cpu = ((runs[0].cpu_seconds - startup[0]) / rounds, (runs[1].cpu_seconds - startup[1]) / rounds)
    first, second = Counter(runs[0].changes), Counter(runs[1].changes)
    value_differences = [
        (c, runs[0].values[c], runs[1].values[c])
        for c in first & second
        if abs(runs[0].values[c] - runs[1].values[c]) > VALUE_TOLERANCE * max(1.0, abs(runs[0].values[c]))
    ]
    return Comparison(
        evaluations,
        (runs[0], runs[1]),
        (sorted((first - second).elements()), sorted((second - first).elements())),
        sorted(value_differences),
        (round_cpu[0], round_cpu[1]),
    )


def compare(path: Path, work: Path) -> Comparison:
    sc = scenario.load(path)
    om, stale, blocks = work / "series.om", work / "stale.jsonl", work / "blocks"
    simulate.simulate(sc, om, stale)
    engine.backfill(om, blocks)
    return compare_blocks(blocks, stale, simulate.START, simulate.START + sc.span, sc.step)


def describe(c: Change) -> str:
    t, alert, state, active_at, labels = c
    offset = int(t - simulate.START)
    return (
        f"{offset // 86400}d{offset % 86400 // 3600:02d}:{offset % 3600 // 60:02d} {alert} {state} "
        f"(active since +{int(active_at - simulate.START)} s) {dict(labels)}"
    )


def report(name: str, c: Comparison) -> str:
    prom, mimir = c.runs
    fallbacks = mimir.summary.get("fallback_queries") or {}
    lines = [
        f"scenario {name}: {c.evaluations} evaluation rounds of rules/recording.yml and rules/alerts.yml",
        f"  prometheus: {len(prom.changes)} alert state changes",
        f"  mimir ({mimir.summary.get('engine')} engine): {len(mimir.changes)} alert state changes; "
        f"{mimir.summary.get('mqe_queries', 0):.0f} queries run by Mimir's query engine, "
        f"{sum(fallbacks.values()):.0f} fell back to Prometheus's engine" + (f" {fallbacks}" if fallbacks else ""),
    ]
    for label, only in zip(("prometheus", "mimir"), c.only_in):
        for change in only:
            lines.append(f"  only {label}: {describe(change)}")
    for change, a, b in c.value_differences:
        lines.append(f"  value differs: {describe(change)}: prometheus {a!r}, mimir {b!r}")
    lines.append(
        "  alert timelines: identical"
        if c.identical
        else f"  alert timelines: {len(c.only_in[0]) + len(c.only_in[1])} differences"
    )
    lines.append(
        f"  CPU seconds of one round (startup excluded): prometheus {c.round_cpu[0] * 1000:.1f} ms, "
        f"mimir {c.round_cpu[1] * 1000:.1f} ms, mimir/prometheus {c.round_cpu[1] / c.round_cpu[0]:.2f}"
        if c.round_cpu[0] > 0
        else "  CPU seconds of one round: too small to measure over this span"
    )
    lines.append(
        f"  whole runs: prometheus {prom.cpu_seconds:.1f} CPU s ({prom.summary['seconds']:.1f} s wall), "
        f"mimir {mimir.cpu_seconds:.1f} CPU s ({mimir.summary['seconds']:.1f} s wall)"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m replay.compare_rulers", description=__doc__.split("\n")[0])
    p.add_argument("scenario", type=Path)
    p.add_argument("--keep", type=Path, help="keep the series, markers and blocks in this directory")
    args = p.parse_args(argv)
    began = time.perf_counter()
    try:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            result = compare(args.scenario, args.keep)
        else:
            with tempfile.TemporaryDirectory(prefix="compare-rulers-") as d:
                result = compare(args.scenario, Path(d))
    except (scenario.ScenarioError, engine.EngineError) as e:
        print(f"compare_rulers: {e}", file=sys.stderr)
        return 2
    print(report(args.scenario.name, result))
    print(f"  {time.perf_counter() - began:.0f} s in all")
    return 0 if result.identical else 1


if __name__ == "__main__":
    sys.exit(main())
