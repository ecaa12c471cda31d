"""The rolling baseline is the baseline taken anew (each rate's statistics.median, min and max over
the windows in their order), value for value and as printed, over windows that slide, skip, jump
and repeat, and carry unread, NaN, -0.0 or int rates."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from ceph_scale.core.signals.plunge.detect import MIN_WINDOWS, OPS, Baseline, Window
from ceph_scale.core.signals.plunge.rolling import RollingBaseline

RATE = st.one_of(
    st.none(),
    st.sampled_from([0.0, 1.0, 17_800.0, 1.0]),  # repeated values: a deletion must take one of them
    st.floats(min_value=0, max_value=1e7, allow_nan=False),
)
# Equal to a plain value yet printed otherwise (-0.0 and 0.0, 1 and 1.0), and NaN, which orders
# with nothing: where such a value sits among its equals, or whether it is sorted at all, shows.
ODD = st.sampled_from([-0.0, 0, 1, math.nan])


@st.composite
def windows(draw: st.DrawFn, t: float, odd: bool) -> Window:
    def rate() -> float | None:
        return draw(ODD) if odd and draw(st.integers(0, 3)) == 0 else draw(RATE)

    def rates() -> dict[str, float]:
        return {op: v for op in ("put", "get") if (v := rate()) is not None}

    return Window(
        t, rates(), rates(), rate(), rate(), rate(), rates()
    )  # fmt: skip


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Window], list[list[int]]]:
    """Windows, and the lists of them (by index, in order) each call takes: mostly a slide of one
    in and one out as at a poll, sometimes a filter (a plunge's windows left out), a jump, or one
    window repeated."""
    n = draw(st.integers(3, 60))
    # Mostly plain windows; in some histories a few odd ones, which enter and leave by slides.
    odd = set(draw(st.lists(st.integers(0, n - 1), max_size=3)))
    made = [draw(windows(15.0 * i, i in odd)) for i in range(n)]
    calls, start, end = [], 0, min(n, draw(st.integers(3, 20)))
    for _ in range(draw(st.integers(1, 40))):
        step = draw(st.sampled_from(["slide", "slide", "slide", "grow", "skip", "jump", "repeat"]))
        if step == "slide":
            start, end = min(start + 1, n), min(end + 1, n)
        elif step == "grow":
            end = min(end + draw(st.integers(1, 5)), n)
        elif step == "jump":
            start = draw(st.integers(0, n - 1))
            end = draw(st.integers(start, n))
        chosen = list(range(start, end))
        if step == "skip" and chosen:
            gone = set(draw(st.lists(st.sampled_from(chosen), max_size=5)))
            chosen = [i for i in chosen if i not in gone]
        if step == "repeat" and chosen:  # one window twice or more in the list, in its place
            twice = draw(st.sampled_from(chosen))
            at = chosen.index(twice)
            chosen[at:at] = [twice] * draw(st.integers(1, 3))
        calls.append(chosen)
    return made, calls


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def baseline(windows: Sequence[Window]) -> Baseline | None:
    """The baseline taken anew, as the detector took it before rolling.py: the reference."""
    if len(windows) < MIN_WINDOWS:
        return None
    ops = {op: statistics.median(w.ops.get(op, 0.0) for w in windows) for op in OPS}
    busy = {}
    for op in OPS:
        seen = [w.busy[op] for w in windows if op in w.busy]
        if seen:
            busy[op] = statistics.median(seen)
    flights = [w.in_flight for w in windows if w.in_flight is not None]
    requests = _median([w.requests for w in windows if w.requests is not None])
    floor, peak = (min(flights), max(flights)) if flights else (None, None)
    sizes = {}
    for op in OPS:
        seen = [w.bytes[op] for w in windows if op in w.bytes]
        if seen:
            sizes[op] = statistics.median(seen)
    failed = _median([w.failed for w in windows if w.failed is not None])
    return Baseline(
        ops, busy, _median(flights), requests, len(windows), floor, peak, sizes, failed=failed, start=windows[0].t
    )


def same(a: Baseline | None, b: Baseline | None) -> bool:
    return repr(a) == repr(b)  # NaN's repr is equal where NaN is not


@settings(max_examples=300, deadline=None)
@given(histories())
def test_every_call_gives_what_the_baseline_taken_anew_gives(history):
    made, calls = history
    rolling = RollingBaseline()
    for chosen in calls:
        past = [made[i] for i in chosen]
        assert same(rolling.of(past), baseline(past)), chosen


def test_a_slide_of_one_in_and_one_out_moves_two_windows_without_sorting_anew():
    made = [Window(15.0 * i, {"put": float(i % 7), "get": 1.0}, {"put": 2.0}, 9.0, 100.0, 0.0) for i in range(200)]
    rolling = RollingBaseline()
    rolling.of(made[:120])
    kept = rolling.values["ops:put"]
    for i in range(1, 80):
        assert same(rolling.of(made[i : i + 120]), baseline(made[i : i + 120]))
        assert rolling.values["ops:put"] is kept  # the same list, moved in place
