"""Which selectors of a rule one failed scrape empties, so that a pending alert's `for:` restarts.

A failed scrape writes a staleness marker for every series of its target, and an instant
selector (`x`, `x offset 1h`) reads nothing at that evaluation: the condition is gone for one
round and every pending `for:` built on it starts again (a firing alert is held by
`keep_firing_for`). With one failed scrape a day, an alert with `for: 1d` never fires.

A range function reads through the marker (range selections skip staleness markers):
`last_over_time(x[5m])` is what `x` reads, the newest sample of Prometheus' 5-minute lookback,
without the marker's cut. GAP_WINDOW is that 5 minutes, the rules' rate windows: at the 1-minute
scrape interval the rules assume it spans 4 missed scrapes, and at 2 minutes (the longest for
which a [5m] rate still has two samples) one.

Two places are exempt, where a missing sample makes the condition truer, never gone: the
right-hand side of `unless` and the argument of absent() (each flips the side; under two it is
the condition's side again). So is `up`, which Prometheus writes at every scrape, failed or not.
"""

from __future__ import annotations

from datetime import timedelta

import promql_parser as promql

GAP_WINDOW = timedelta(minutes=5)
ALWAYS_WRITTEN = {"up"}
NEGATING_CALLS = {"absent", "absent_over_time"}


def _duration(value: timedelta) -> str:
    return str(promql.display_duration(value))


def _selector(node: promql.VectorSelector, window: timedelta | None = None) -> str:
    offset = f" offset {_duration(node.offset)}" if node.offset else ""
    return f"{node.name}{f'[{_duration(window)}]' if window else ''}{offset}"


def _walk(node: object, condition_side: bool, records: set[str], out: list[str]) -> None:
    if isinstance(node, promql.VectorSelector):
        if condition_side and node.name not in ALWAYS_WRITTEN and (node.name not in records or node.offset):
            out.append(f"`{_selector(node)}` is an instant selector")
    elif isinstance(node, promql.MatrixSelector):
        if condition_side and node.range < GAP_WINDOW:
            selected = _selector(node.vector_selector, node.range)
            out.append(f"`{selected}` is a window shorter than {_duration(GAP_WINDOW)}")
    elif isinstance(node, promql.SubqueryExpr):
        if condition_side and node.range is not None and node.range < GAP_WINDOW:
            out.append(f"a subquery of {_duration(node.range)} is shorter than {_duration(GAP_WINDOW)}")
    elif isinstance(node, promql.BinaryExpr):
        _walk(node.lhs, condition_side, records, out)
        _walk(node.rhs, condition_side != (str(node.op) == "unless"), records, out)
    elif isinstance(node, promql.Call):
        negating = node.func.name in NEGATING_CALLS
        for arg in node.args:
            _walk(arg, condition_side != negating, records, out)
    elif isinstance(node, promql.AggregateExpr):
        _walk(node.expr, condition_side, records, out)
        if node.param is not None:
            _walk(node.param, condition_side, records, out)
    elif isinstance(node, (promql.ParenExpr, promql.UnaryExpr)):
        _walk(node.expr, condition_side, records, out)


def gap_fragile(expr: str, records: set[str]) -> list[str]:
    """What in `expr` reads nothing for one failed scrape, on the condition's side: instant
    selectors of scraped series (a recorded series read now is checked in its own rule, one read
    at an offset is not) and windows shorter than GAP_WINDOW. Empty when it reads through."""
    out: list[str] = []
    _walk(promql.parse(expr), True, records, out)
    return sorted(set(out))
