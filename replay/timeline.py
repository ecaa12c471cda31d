"""A replay's notifications as a Markdown table, and its stalls, alerts and notifications on one
time axis (a text picture): what `python -m replay.run --markdown` prints for replay/README.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from replay.simulate import START

if TYPE_CHECKING:
    from replay.run import Result

WIDTH = 60  # columns of the time axis


def bar(start: float, end: float | None, span: float) -> str:
    """`start`..`end` (None: past the span) as a row of the axis, at least one column wide."""
    first = min(WIDTH - 1, int((start - START) / span * WIDTH))
    last = WIDTH if end is None else max(first + 1, min(WIDTH, round((end - START) / span * WIDTH)))
    return " " * first + "#" * (last - first) + " " * (WIDTH - last)


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
    lines += ["", "```", axis(r)]
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
