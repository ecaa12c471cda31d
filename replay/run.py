"""A scenario replayed end to end, and its report.

    python -m replay.run replay/scenarios/study_10b.yml [--keep DIR] [--markdown]

Simulate (replay.simulate), backfill (promtool), evaluate the shipped rules (replay/ruler),
route (replay.alertmanager); prints the figures and every notification with its receiver,
start and end, as offsets from the span's start.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from replay import alertmanager, engine, scenario, simulate, timeline  # noqa: E402


@dataclass
class Result:
    scenario: scenario.Scenario
    series: int
    samples: int
    scrapes: int
    stale_markers: int
    events: list[engine.AlertEvent]
    fired: list[alertmanager.Firing]
    notifications: list[alertmanager.Notification]
    seconds: dict[str, float] = field(default_factory=dict)
    incidents: list[tuple[str, float, float | None, str]] = field(default_factory=list)
    traces: dict[tuple[str, str], list[tuple[float, float]]] = field(default_factory=dict)

    def offset(self, t: float | None) -> str:
        if t is None:
            return "(still at the end)"
        s = int(t - simulate.START)
        return f"{s // 86400}d{s % 86400 // 3600:02d}:{s % 3600 // 60:02d}"

    def pages(self) -> list[alertmanager.Notification]:
        return [n for n in self.notifications if n.receiver == "ceph-scale-pager"]

    def tickets(self) -> list[alertmanager.Notification]:
        """Warnings that reach a team (the pager's criticals and info tickets aside)."""
        return [n for n in self.notifications if n.receiver != "ceph-scale-pager" and n.severity == "warning"]


def replay(path: Path, work: Path) -> Result:
    sc = scenario.load(path)
    seconds = {}
    began = time.perf_counter()
    om, stale, blocks = work / "series.om", work / "stale.jsonl", work / "blocks"
    counts = simulate.simulate(sc, om, stale)
    seconds["simulate"] = time.perf_counter() - began
    began = time.perf_counter()
    engine.backfill(om, blocks)
    seconds["backfill"] = time.perf_counter() - began
    began = time.perf_counter()
    events, summary = engine.evaluate(blocks, stale, simulate.START, simulate.START + sc.span, sc.step)
    seconds["rules"] = time.perf_counter() - began
    began = time.perf_counter()
    fired = alertmanager.firings(events)
    notes = alertmanager.notifications(fired)
    seconds["route"] = time.perf_counter() - began
    seconds["evaluations"] = summary["evaluations"]
    return Result(
        sc,
        len(counts.series),
        counts.samples,
        counts.scrapes,
        counts.stale_markers,
        events,
        fired,
        notes,
        seconds,
        counts.incidents,
        counts.traces,
    )


def report(r: Result) -> str:
    lines = [
        f"scenario {r.scenario.name}: span {r.scenario.span / 86400:g} d, step {r.scenario.step:g} s, "
        f"{len(r.scenario.clusters)} cluster(s)",
        f"  {r.scrapes} scrapes, {r.series} series, {r.samples} samples, {r.stale_markers} staleness markers; "
        f"{int(r.seconds['evaluations'])} rule evaluations",
        "  seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in r.seconds.items() if k != "evaluations"),
        "  stalls simulated:",
    ]
    for cluster, start, end, what in r.incidents:
        lines.append(f"    {r.offset(start)} - {r.offset(end)}  {cluster}: {what}")
    lines.append("  alerts that fired:")
    for f in r.fired:
        labels = dict(f.labels)
        extra = {k: v for k, v in labels.items() if k not in ("alertname", "severity", "signal")}
        lines.append(f"    {r.offset(f.start)} - {r.offset(f.end)}  {f.alert} [{labels.get('severity')}] {extra}")
    lines.append("  notifications (receiver, start, end, group):")
    for n in r.notifications:
        lines.append(f"    {n.receiver:22} {r.offset(n.start)} - {r.offset(n.end)}  {dict(n.group)} [{n.severity}]")
    lines.append(f"  pages: {len(r.pages())}, warnings to teams: {len(r.tickets())}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m replay.run", description=__doc__.split("\n")[0])
    p.add_argument("scenario", type=Path)
    p.add_argument("--keep", type=Path, help="keep the series, markers and blocks in this directory")
    p.add_argument(
        "--markdown", action="store_true", help="print the notifications and a timeline in Markdown (replay/README.md)"
    )
    args = p.parse_args(argv)
    try:
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            result = replay(args.scenario, args.keep)
        else:
            with tempfile.TemporaryDirectory(prefix="replay-") as d:
                result = replay(args.scenario, Path(d))
    except (scenario.ScenarioError, engine.EngineError) as e:
        print(f"replay: {e}", file=sys.stderr)
        return 2
    print(timeline.markdown(result) if args.markdown else report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
