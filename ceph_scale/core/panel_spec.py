"""What a signal's panels are made of, as plain data: each signal folder's panels.py describes its
panels with these, and dashboards/ turns them into Grafana's JSON (dashboards/panel_kinds.py).

Plain data rather than Grafana SDK builders: the core ships in the wheel and inside the manager
module, neither of which has the SDK, and a panel described here is read the same by the board
build, the tests and a reader. A panel kind's own settings (width, height, axis, thresholds, ...)
pass through as they are to the constructor of that kind in dashboards/panel_kinds.py, which
names and checks them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Optional

from .config import Thresholds

# Colours (Grafana's named palette).
OK, WARN, HIGH, CRIT, INFO, PURPLE = "green", "yellow", "orange", "red", "blue", "purple"

# Threshold steps [(value, colour)]; the first step is the base (value None).
Step = tuple[Optional[float], str]

DAY = 86400.0
# Reference lines from docs/study.md. A threshold's default is read from its one declaration
# (core/config.py); a panel draws the configured value as a series of its own.
_DEFAULT = Thresholds()
NONZERO_BAD: list[Step] = [(None, OK), (1, CRIT)]
# Time-to-threshold colouring: red under a week, yellow under a month.
SOON: list[Step] = [(None, CRIT), (7 * DAY, WARN), (30 * DAY, OK)]
FILL: list[Step] = [
    (None, OK),
    (_DEFAULT.fill_warn_ratio, WARN),
    (_DEFAULT.fill_target_ratio, HIGH),
    (_DEFAULT.fill_critical_ratio, CRIT),
]


def runbook(alert: str) -> str:
    """The rules/runbooks.md section of an alert: its anchor is the alert's name in lower case,
    as in the runbook_url of every alert in rules/alerts.yml."""
    return alert.lower()


@dataclass(frozen=True)
class Query:
    """One query of a panel (its refId given by its place in the panel)."""

    expr: str
    legend: str = ""
    instant: bool = False
    fmt: str = "time_series"


@dataclass(frozen=True)
class Override:
    """A field override for the series whose display name matches `regexp`: drawn "dashed" in a
    fixed colour, on the "right_axis" with its own unit and label, or "coloured" (fixed colour)."""

    kind: str
    regexp: str
    args: tuple[str, ...]


def dashed(regexp: str, color: str = CRIT) -> Override:
    """A dashed reference line in a fixed colour: red for a limit (the default), "text" (grey) for
    a comparison such as a mean."""
    return Override("dashed", regexp, (color,))


def right_axis(regexp: str, unit: str, label: str) -> Override:
    return Override("right_axis", regexp, (unit, label))


def coloured(regexp: str, color: str) -> Override:
    return Override("coloured", regexp, (color,))


@dataclass(frozen=True)
class Panel:
    """One panel: its kind (timeseries, stat, gauge, bargauge, table), what it says and queries,
    the runbook section it links to, and the kind's own settings."""

    kind: str
    title: str
    unit: str
    queries: tuple[Query, ...]
    desc: str
    runbook: str
    overrides: tuple[Override, ...] = ()
    options: Mapping[str, object] = field(default_factory=dict)


def _panel(
    kind: str, title: str, unit: str, queries: Sequence[Query], desc: str, runbook: str,
    overrides: Sequence[Override], options: Mapping[str, object],
) -> Panel:  # fmt: skip
    return Panel(kind, title, unit, tuple(queries), desc, runbook, tuple(overrides), dict(options))


def ts(
    title: str, unit: str, queries: Sequence[Query], *, desc: str, runbook: str,
    overrides: Sequence[Override] = (), **options: object,
) -> Panel:  # fmt: skip
    """A time series."""
    return _panel("timeseries", title, unit, queries, desc, runbook, overrides, options)


def st(title: str, unit: str, queries: Sequence[Query], *, desc: str, runbook: str, **options: object) -> Panel:
    """A stat: one big value per series."""
    return _panel("stat", title, unit, queries, desc, runbook, (), options)


def gg(title: str, unit: str, queries: Sequence[Query], *, desc: str, runbook: str, **options: object) -> Panel:
    """A gauge."""
    return _panel("gauge", title, unit, queries, desc, runbook, (), options)


def bars(
    title: str, unit: str, queries: Sequence[Query], *, desc: str, runbook: str,
    overrides: Sequence[Override] = (), **options: object,
) -> Panel:  # fmt: skip
    """A horizontal bar gauge."""
    return _panel("bargauge", title, unit, queries, desc, runbook, overrides, options)


def tbl(title: str, unit: str, queries: Sequence[Query], *, desc: str, runbook: str, **options: object) -> Panel:
    """A table joining instant queries on their labels (columns, keep, sort_by: see
    dashboards/panel_kinds.py tbl)."""
    return _panel("table", title, unit, queries, desc, runbook, (), options)


@dataclass(frozen=True)
class BoardRow:
    """A row a signal's panels.py adds to a board by itself (its `ROWS`), below the rows the
    board's own file lays out: how a new signal reaches a board without editing the board."""

    board: str  # the board's name (dashboards/boards: "load", "rgw-resharding", ...)
    title: str
    panels: tuple[Panel, ...]


@dataclass(frozen=True)
class Mark:
    """One kind of annotation a signal's panels.py offers the boards (its `MARKS`): its name in
    Grafana's annotation list, colour, query, and the title, text and tags Grafana makes from each
    series' labels. A board names the marks it draws and on which panels."""

    name: str
    colour: str
    expr: str
    title: str
    text: str
    tags: str
