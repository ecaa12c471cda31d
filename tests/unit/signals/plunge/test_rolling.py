"""The rolling baseline is detect.baseline, value for value, over windows that slide, skip, jump
and carry unread or NaN rates."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ceph_scale.core.signals.plunge.detect import Baseline, Window, baseline
from ceph_scale.core.signals.plunge.rolling import RollingBaseline

RATE = st.one_of(
    st.none(),
    st.sampled_from([0.0, 1.0, 17_800.0, 1.0]),  # repeated values: a deletion must take one of them
    st.floats(min_value=0, max_value=1e7, allow_nan=False),
)
RATE_OR_NAN = st.one_of(RATE, st.just(math.nan))


@st.composite
def windows(draw: st.DrawFn, t: float, nan: bool) -> Window:
    kind = RATE_OR_NAN if nan else RATE

    def rates() -> dict[str, float]:
        return {op: v for op in ("put", "get") if (v := draw(kind)) is not None}

    return Window(
        t, rates(), rates(), draw(kind), draw(kind), draw(kind), rates()
    )  # fmt: skip


@st.composite
def histories(draw: st.DrawFn) -> tuple[list[Window], list[list[int]]]:
    """Windows, and the lists of them (by index, in order) each call takes: mostly a slide of one
    in and one out as at a poll, sometimes a filter (a plunge's windows left out) or a jump."""
    n = draw(st.integers(3, 60))
    nan = draw(st.sampled_from([False, False, False, True]))  # a history with NaN rates sorts anew
    made = [draw(windows(15.0 * i, nan)) for i in range(n)]
    calls, start, end = [], 0, min(n, draw(st.integers(3, 20)))
    for _ in range(draw(st.integers(1, 40))):
        step = draw(st.sampled_from(["slide", "slide", "slide", "grow", "skip", "jump"]))
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
        calls.append(chosen)
    return made, calls


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
