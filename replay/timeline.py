"""A replay's notifications as a Markdown table, and its signals, stalls, alerts and
notifications on one time axis (a text picture): what `python -m replay.run --markdown` prints
and `python -m replay.docs` writes into docs/replay.md.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from replay import traces
from replay.simulate import START

if TYPE_CHECKING:
    from replay.run import Result

WIDTH = 60  # columns of the time axis
LEVELS = "▁▂▃▄▅▆▇█"  # a signal's row: its lowest value in the row, up to its highest


def column(t: float, span: float) -> int:
    return min(WIDTH - 1, int((t - START) / span * WIDTH))


def bar(start: float, end: float | None, span: float) -> str:
    """`start`..`end` (None: past the span) as a row of the axis, at least one column wide."""
    first = column(start, span)
    last = WIDTH if end is None else max(first + 1, min(WIDTH, round((end - START) / span * WIDTH)))
    return " " * first + "#" * (last - first) + " " * (WIDTH - last)


def sparkline(points: list[tuple[float, float]], span: float, pick: str) -> tuple[str, float, float]:
    """A signal's samples as a row of the axis, one level per column (the column's lowest or
    highest sample, `pick`), scaled from the row's lowest to its highest finite one; a blank where
    no sample was scraped, the top level where +Inf was (a runway of "never"). Returns the row and
    the values of its lowest and highest level."""
    cols: list[list[float]] = [[] for _ in range(WIDTH)]
    for t, v in points:
        cols[column(t, span)].append(v)
    shown = [(min(c) if pick == "min" else max(c)) if c else None for c in cols]
    present = [v for v in shown if v is not None]
    if not present:
        return " " * WIDTH, 0.0, 0.0
    finite = [v for v in present if math.isfinite(v)] or [math.inf]
    lo, hi = min(finite), max(finite)
    top = len(LEVELS) - 1

    def level(v: float) -> str:
        if not math.isfinite(v):
            return LEVELS[top]
        return LEVELS[0 if hi == lo else round((v - lo) / (hi - lo) * top)]

    row = "".join(" " if v is None else level(v) for v in shown)
    return row, lo, hi if len(finite) == len(present) else math.inf


def axis(r: Result) -> str:
    marks = [" "] * WIDTH
    labels = []
    for k in range(5):  # the quarters of the span
        at = min(WIDTH - 1, k * WIDTH // 4)
        marks[at] = "|"
        labels.append((at, r.offset(START + r.scenario.span * k / 4)))
    text = [" "] * (WIDTH + 10)
    for at, label in labels:
        at = min(at, WIDTH + 10 - len(label))
        text[at : at + len(label)] = label
    return "".join(marks) + "\n" + "".join(text).rstrip()


def signal_rows(r: Result) -> list[str]:
    """A row per cluster for each signal the scenario's `timeline:` names."""
    lines = []
    for cluster in r.scenario.clusters:
        for name in r.scenario.timeline:
            tr = traces.TRACES[name]
            points = r.traces.get((cluster.name, name), [])
            row, lo, hi = sparkline(points, r.scenario.span, tr.pick)
            each = "lowest" if tr.pick == "min" else "highest"
            scale = f"{tr.value_text(lo)} to {tr.value_text(hi)} ({each} per column)" if points else "never scraped"
            lines.append(f"{row}  signal: {cluster.name}: {tr.title}, {scale}")
    return lines


def markdown(r: Result) -> str:
    sc = r.scenario
    lines = [
        f"### `{sc.name}`: {sc.span / 3600:g} h at a {sc.step:g} s step",
        "",
        f"{r.scrapes:,} scrapes, {r.series:,} series, {r.samples:,} samples. Notifications:",
        "",
        "| receiver | alert | severity | start | end |",
        "|---|---|---|---|---|",
    ]
    for n in r.notifications:
        lines.append(f"| {n.receiver} | {n.alertname} | {n.severity} | {r.offset(n.start)} | {r.offset(n.end)} |")
    if not r.notifications:
        lines.append("| (none) | | | | |")
    lines += ["", "```", axis(r), *signal_rows(r)]
    for cluster, start, end, what in r.incidents:
        lines.append(f"{bar(start, end, sc.span)}  stall: {cluster}: {what}")
    for f in r.fired:
        labels = dict(f.labels)
        extra = ",".join(f"{k}={v}" for k, v in labels.items() if k not in ("alertname", "severity", "signal", "job"))
        lines.append(f"{bar(f.start, f.end, sc.span)}  alert: {f.alert} [{labels.get('severity')}] {{{extra}}}")
    for n in r.notifications:
        lines.append(f"{bar(n.start, n.end, sc.span)}  sent: {n.receiver}: {n.alertname}")
    lines.append("```")
    return "\n".join(lines)
